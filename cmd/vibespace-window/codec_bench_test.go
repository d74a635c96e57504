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
// snapshot) through two builds of vibespace-window, interleaved in one
// run against one daemon: the hand-written codec of daemon/wire (codec.go)
// and plain encoding/json (-tags wirejson). Each iteration calls each verb
// once with each build, the order alternating; it reports the median of
// each.
func BenchmarkCLICodec(b *testing.B) {
	e := newEnv(b)
	dir := b.TempDir()
	builds := map[string]string{"codec": filepath.Join(dir, "codec"), "json": filepath.Join(dir, "json")}
	for name, tags := range map[string]string{"codec": clitest.BuildTags, "json": clitest.BuildTags + ",wirejson"} {
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
	for _, v := range order { // warm both, and the page cache
		run("codec", verbs[v])
		run("json", verbs[v])
	}
	i := 0
	for b.Loop() {
		for _, v := range order {
			pair := []string{"codec", "json"}
			if i%2 == 1 {
				pair = []string{"json", "codec"}
			}
			for _, build := range pair {
				w, c := run(build, verbs[v])
				took[v+"/"+build] = append(took[v+"/"+build], w)
				cpu[v+"/"+build] = append(cpu[v+"/"+build], c)
			}
		}
		i++
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	load, _ := os.ReadFile("/proc/loadavg")
	for _, v := range order {
		c, j := median(took[v+"/codec"]), median(took[v+"/json"])
		b.ReportMetric(c, "ms/"+v+"_codec")
		b.ReportMetric(j, "ms/"+v+"_json")
		b.ReportMetric(j-c, "ms/"+v+"_saved")
		cc, cj := median(cpu[v+"/codec"]), median(cpu[v+"/json"])
		b.ReportMetric(cc, "cpu_ms/"+v+"_codec")
		b.ReportMetric(cj, "cpu_ms/"+v+"_json")
		b.Logf("%s: codec %.2f ms, encoding/json %.2f ms (medians of %d each): the codec saves %.2f ms; CPU time %.2f vs %.2f ms",
			v, c, j, len(took[v+"/codec"]), j-c, cc, cj)
	}
	b.Logf("load average at the end: %s", load)
}
