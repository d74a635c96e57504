package displays_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// BenchmarkSSHRoad measures what the ssh road adds to a verb: the same
// verbs (status, list, snapshot -i, click by ref on the check box, a visible change each time) on a local daemon and on
// the remote host's (clitest.SSHHost), interleaved in one run, each a
// whole command-line process with the master warm; medians, printed as a
// table with the overhead.
func BenchmarkSSHRoad(b *testing.B) {
	testenv.NeedIntegration(b)
	if b.N == 1 {
		// The framework's probe round (-benchtime Nx runs b.N=1 first):
		// a second remote host in the same run, torn down and started
		// again, can pick an X display number of the first (the hosts
		// share this machine's /tmp/.X11-unix), so only the measured
		// round sets one up. Run with -benchtime 20x.
		return
	}
	local := newEnv(b)
	local.StartServe()
	lid, _, _ := local.OpenFixture("s1")
	lref := alphaRef(b, local.Snapshot("s1", lid))

	remote, h, _ := remoteEnv(b)
	logPath := filepath.Join(h.Logs, "fixture.jsonl")
	open := remote.Answer("s1", "open", testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), "--log", logPath)
	if !open.OK {
		b.Fatalf("remote open: %+v", open)
	}
	rid := string(open.Target.ID)
	flog := testenv.OpenFixtureLog(logPath)
	if _, err := flog.WaitFrom(b.Context(), 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		b.Fatal(err)
	}
	rref := alphaRef(b, remote.Snapshot("s1", rid))

	verbs := []struct {
		name          string
		local, remote []string
	}{
		{"status", []string{"status"}, []string{"status"}},
		{"list", []string{"list"}, []string{"list"}},
		{"snapshot -i", []string{"snapshot", lid, "-i"}, []string{"snapshot", rid, "-i"}},
		{"click @ref", []string{"click", lid, lref}, []string{"click", rid, rref}},
	}
	times := make([][2][]time.Duration, len(verbs))
	timed := func(e *env, args []string) time.Duration {
		start := time.Now()
		if r := e.CLI("s1", args...); r.Code != 0 {
			b.Fatalf("%v: exit %d %s", args, r.Code, r.Errout)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	for range b.N {
		for i, v := range verbs {
			times[i][0] = append(times[i][0], timed(local, v.local))
			times[i][1] = append(times[i][1], timed(remote, v.remote))
		}
	}
	b.StopTimer()
	fmt.Fprintf(os.Stdout, "\nper-verb median of %d, each a whole CLI process (ssh master warm)\n%-12s %10s %10s %10s\n", b.N, "verb", "local", "ssh", "overhead")
	for i, v := range verbs {
		l, r := median(times[i][0]), median(times[i][1])
		fmt.Fprintf(os.Stdout, "%-12s %8.1fms %8.1fms %8.1fms\n", v.name, ms(l), ms(r), ms(r-l))
		b.ReportMetric(ms(r-l), "ms-overhead-"+map[string]string{"status": "status", "list": "list", "snapshot -i": "snapshot", "click @ref": "click"}[v.name])
	}
}

func alphaRef(b *testing.B, s *target.Snapshot) string {
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == "check box" && n.Name == "Check me" })
	if n == nil {
		b.Fatal("no check box \"Check me\" in the fixture's snapshot")
	}
	return n.Ref
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
