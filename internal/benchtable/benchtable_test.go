package benchtable

import (
	"strings"
	"testing"
)

// A stream as `go test -bench ./...` prints it: two packages with a
// benchmark of the same name, logs and a table between, GOMAXPROCS
// suffixes, a figure reported twice.
const run = `goos: linux
goarch: amd64
pkg: example.org/m/atspi
cpu: Some CPU
BenchmarkWalk/gtk3-demo-2         	      10	  16000000 ns/op	        16.5 ms/walk	       250.0 pyatspi-ms
    bench_test.go:102: gtk3-demo: 400 nodes
BenchmarkWalk/gtk3-demo-2         	      10	  16000000 ns/op	        17.5 ms/walk	       250.0 pyatspi-ms
PASS
ok  	example.org/m/atspi	12.3s
pkg: example.org/m/rtc/livebench
row                codec       fps
BenchmarkLiveView/vp8-tab-loopback-2     	       1	         1 ns/op	        15.0 frames/s	       300 g2g-p50-ms
BenchmarkLiveView/agent-browser-tab-loopback-2 	       1	         1 ns/op	        15.3 frames/s	       307 g2g-p50-ms
BenchmarkType/unicode100 	       5	   3000 ns/op	  0.5 x-xdotool
pkg: example.org/m/rtc
BenchmarkLiveView-2     	       1	         1 ns/op	        99.0 frames/s
ok  	example.org/m/rtc	1s
`

func TestJudge(t *testing.T) {
	r, err := Parse(strings.NewReader(run), "example.org/m")
	if err != nil {
		t.Fatal(err)
	}
	walk := Metric{"atspi", "BenchmarkWalk/gtk3-demo", "ms/walk"}
	if got := r[walk]; len(got) != 2 || got[0] != 16.5 || got[1] != 17.5 {
		t.Fatalf("ms/walk of gtk3-demo: %v, want [16.5 17.5]", got)
	}
	if got := r[Metric{"rtc", "BenchmarkLiveView", "frames/s"}]; len(got) != 1 || got[0] != 99 {
		t.Fatalf("rtc's own BenchmarkLiveView: %v, want [99] (kept apart from livebench's)", got)
	}
	tab := func(row, unit string) Metric { return Metric{"rtc/livebench", "BenchmarkLiveView/" + row, unit} }
	goals := []Goal{
		{Row: "walk", Ours: walk, Peer: Metric{"atspi", "BenchmarkWalk/gtk3-demo", "pyatspi-ms"}, Goal: 1.0 / 15, Words: "≥ 15×"},
		{Row: "tab fps", Ours: tab("vp8-tab-loopback", "frames/s"), Peer: tab("agent-browser-tab-loopback", "frames/s"), AtLeast: true, Goal: 1},
		{Row: "tab g2g", Ours: tab("vp8-tab-loopback", "g2g-p50-ms"), Peer: tab("agent-browser-tab-loopback", "g2g-p50-ms"), Goal: 1},
		{Row: "type", Ours: Metric{"rtc/livebench", "BenchmarkType/unicode100", "x-xdotool"}, Goal: 1},
		{Row: "gone", Ours: Metric{"atspi", "BenchmarkWalk/qt5-fixture", "ms/walk"}, Goal: 1},
		{Row: "no peer", Ours: walk, Peer: Metric{"atspi", "BenchmarkWalk/gtk3-demo", "dogtail-ms"}, Goal: 1},
	}
	vs := Judge(r, goals)
	want := []struct {
		met     bool
		figure  float64
		missing bool
	}{
		{false, 17.0 / 250, false}, // the median of 16.5 and 17.5 over 250
		{false, 15.0 / 15.3, false},
		{true, 300.0 / 307, false},
		{true, 0.5, false},
		{false, 0, true},
		{false, 0, true},
	}
	for i, w := range want {
		v := vs[i]
		if v.Met != w.met || (v.Missing != "") != w.missing || (!w.missing && abs(v.Figure-w.figure) > 1e-9) {
			t.Errorf("%s: met %v figure %v missing %q; want met %v figure %v missing %v", v.Row, v.Met, v.Figure, v.Missing, w.met, w.figure, w.missing)
		}
	}
	var sb strings.Builder
	if err := Write(&sb, vs); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, s := range []string{"2 of 6 goals met", "not measured: no atspi BenchmarkWalk/qt5-fixture ms/walk", "0.068"} {
		if !strings.Contains(out, s) {
			t.Errorf("the table lacks %q:\n%s", s, out)
		}
	}
}

func TestTrimProcs(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkWalk/gtk3-demo-2": "BenchmarkWalk/gtk3-demo",
		"BenchmarkType/unicode100":  "BenchmarkType/unicode100",
		"BenchmarkX-":               "BenchmarkX-",
		"BenchmarkLiveView-16":      "BenchmarkLiveView",
	} {
		if got := trimProcs(in); got != want {
			t.Errorf("trimProcs(%q) = %q, want %q", in, got, want)
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
