package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/target"
)

// BenchmarkCLICodec runs whole command lines (status, click @ref,
// snapshot) through three builds of vibespace-window, interleaved in one
// run against one daemon: the hand-written codec of daemon/wire (codec),
// the request through encoding/json and the answer through the codec
// (jsonenc, -tags wirejsonenc), and plain encoding/json both ways (json,
// -tags wirejson). Each iteration calls each verb once with each build,
// the order alternating; it reports the medians, and logs the minimum
// and the first quartile too (on a loaded machine, the nearest to a quiet
// one's figure).
func BenchmarkCLICodec(b *testing.B) {
	e := newEnv(b)
	dir := b.TempDir()
	names := []string{"codec", "jsonenc", "json"}
	builds := map[string]string{}
	for name, tags := range map[string]string{"codec": clitest.BuildTags, "jsonenc": clitest.BuildTags + ",wirejsonenc", "json": clitest.BuildTags + ",wirejson"} {
		builds[name] = filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-tags", tags, "-o", builds[name], ".").CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", name, err, out)
		}
	}
	e.StartServe()
	id, _, _ := e.openFixture("s1")
	resp := e.Answer("s1", "snapshot", id)
	alpha := resp.Snapshot.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	if alpha == nil {
		b.Fatal("no Alpha")
	}
	verbs := map[string][]string{
		"status":   {"status"},
		"click":    {"click", id, alpha.Ref, "--no-verify"},
		"snapshot": {"snapshot", id},
	}
	order := []string{"status", "click", "snapshot"}
	// run answers the call's wall time and the process's CPU time (user
	// and system: less moved by a loaded machine than the wall time).
	run := func(build string, args []string) (wall, cpu time.Duration) {
		cmd := exec.Command(builds[build], args...)
		cmd.Env = e.Environ("s1")
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		wall = time.Since(t0)
		if err != nil {
			b.Fatalf("%s %v: %v\n%s", build, args, err, out)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	took, cpu := map[string][]time.Duration{}, map[string][]time.Duration{}
	for _, v := range order { // warm each, and the page cache
		for _, build := range names {
			run(build, verbs[v])
		}
	}
	i := 0
	for b.Loop() {
		for _, v := range order {
			turn := slices.Clone(names)
			if i%2 == 1 {
				slices.Reverse(turn)
			}
			for _, build := range turn {
				w, c := run(build, verbs[v])
				took[v+"/"+build] = append(took[v+"/"+build], w)
				cpu[v+"/"+build] = append(cpu[v+"/"+build], c)
			}
		}
		i++
	}
	b.StopTimer()
	// quantile q of ds, in ms.
	quantile := func(ds []time.Duration, q float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(q*float64(len(s)-1))].Microseconds()) / 1000
	}
	load, _ := os.ReadFile("/proc/loadavg")
	for _, v := range order {
		for _, build := range names {
			k := v + "/" + build
			b.ReportMetric(quantile(took[k], 0.5), "ms/"+v+"_"+build)
			b.ReportMetric(quantile(cpu[k], 0.5), "cpu_ms/"+v+"_"+build)
			b.Logf("%-8s %-7s wall min %.2f p25 %.2f median %.2f ms; CPU min %.2f median %.2f ms (%d calls)", v, build,
				quantile(took[k], 0), quantile(took[k], 0.25), quantile(took[k], 0.5), quantile(cpu[k], 0), quantile(cpu[k], 0.5), len(took[k]))
		}
	}
	b.Logf("load average at the end: %s", load)
}
