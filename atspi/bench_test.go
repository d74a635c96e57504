package atspi_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/testenv"
)

// BenchmarkWalk walks one window of gtk3-widget-factory, of gtk3-demo and
// of the Qt 5 and GTK 4 fixtures with this package and, interleaved in the same loop so that all three
// see the same machine load, with pyatspi (one persistent /usr/bin/python3
// process reading the same fields: role, name, description, states,
// interfaces, screen extents, action names, up to 200 characters of text;
// timed inside Python, so its start-up is not counted) and with dogtail's
// plain dump (its own fields: role, name, actions). It reports medians:
// ms/walk is ours, pyatspi-ms and dogtail-ms the peers'; x-pyatspi and
// x-dogtail are the medians of the per-iteration ratios (how many times
// faster ours is); calls/walk and calls/node are the D-Bus calls one walk
// of ours makes (Options.Calls), in all and per node of the tree
// (TestWalkRoundTrips holds the fixtures' to their budgets), round-trips
// its depth in round trips (atspi.WithDepth); nocache-ms is ours without Cache.GetItems
// (WalkOptions.NoCache, every object asked every field); self-cpu-ms and app-cpu-ms are the CPU time this process
// and the application spent per walk of ours, app-cpu-pyatspi-ms the
// application's per pyatspi walk.
//
//	go test ./atspi -run '^$' -bench Walk -benchtime 30x
func BenchmarkWalk(b *testing.B) {
	d := testenv.SharedDesktop(b)
	apps := []struct {
		name  string
		start func(b *testing.B) *testenv.App
	}{
		{"gtk3-widget-factory", func(b *testing.B) *testenv.App { return launch(b, d, "gtk3-widget-factory") }},
		{"gtk3-demo", func(b *testing.B) *testenv.App { return launch(b, d, "gtk3-demo") }},
		// The toolkit fixtures: Qt 5 answers Cache.GetItems with nothing
		// (every node asked), GTK 4 is asked its extents by visibility.
		{"qt5-fixture", func(b *testing.B) *testenv.App { return toolkitFixtures[0].start(b, d).App }},
		{"gtk4-fixture", func(b *testing.B) *testenv.App { return toolkitFixtures[1].start(b, d).App }},
	}
	for _, a := range apps {
		name := a.name
		b.Run(name, func(b *testing.B) {
			app := a.start(b)
			var calls atomic.Uint64
			bus := connect(b, d, atspi.Options{Calls: &calls})
			f := frameOf(b, bus, app)
			first := settled(b, bus, f.Object)
			peer := startPeer(b, d, app.PID, frameIndex(b, bus, app.PID, f))
			// Warm the peers the same way as ours: one walk each first.
			pyNodes, _ := peer.walk("pyatspi")
			dtLines, _ := peer.walk("dogtail")
			if pyNodes != first.Census.Nodes {
				b.Errorf("pyatspi walked %d nodes, we %d", pyNodes, first.Census.Nodes)
			}

			var ours, plain, pys, dts, xpy, xdt []float64
			var self, appCPU, pyApp time.Duration
			var ourCalls uint64
			var depth int
			for b.Loop() {
				c0 := calls.Load()
				s0, a0 := selfCPU(), procCPU(app.PID)
				t0 := time.Now()
				s, err := bus.Walk(b.Context(), f.Object, atspi.WithDepth(atspi.WalkOptions{}, &depth))
				ms := float64(time.Since(t0)) / float64(time.Millisecond)
				self += selfCPU() - s0
				appCPU += procCPU(app.PID) - a0
				ourCalls += calls.Load() - c0
				if err != nil || s.Census != first.Census {
					b.Fatalf("walk: %v, census %+v, want %+v", err, s.Census, first.Census)
				}
				// The walk without the cache (every object asked every
				// field), as the daemon asked for it until the cache's
				// first-walk fix: side by side with the default.
				t1 := time.Now()
				s, err = bus.Walk(b.Context(), f.Object, atspi.WalkOptions{NoCache: true})
				plain = append(plain, float64(time.Since(t1))/float64(time.Millisecond))
				if err != nil || s.Census != first.Census {
					b.Fatalf("walk without the cache: %v, census %+v, want %+v", err, s.Census, first.Census)
				}
				a1 := procCPU(app.PID)
				_, py := peer.walk("pyatspi")
				pyApp += procCPU(app.PID) - a1
				_, dt := peer.walk("dogtail")
				ours, pys, dts = append(ours, ms), append(pys, py), append(dts, dt)
				xpy, xdt = append(xpy, py/ms), append(xdt, dt/ms)
			}
			n := float64(len(ours))
			b.ReportMetric(median(ours), "ms/walk")
			b.ReportMetric(median(plain), "nocache-ms")
			b.ReportMetric(float64(first.Census.Nodes), "nodes")
			b.ReportMetric(float64(ourCalls)/n, "calls/walk")
			b.ReportMetric(float64(ourCalls)/n/float64(first.Census.Nodes), "calls/node")
			b.ReportMetric(float64(depth), "round-trips")
			b.ReportMetric(median(pys), "pyatspi-ms")
			b.ReportMetric(median(xpy), "x-pyatspi")
			b.ReportMetric(median(dts), "dogtail-ms")
			b.ReportMetric(median(xdt), "x-dogtail")
			b.ReportMetric(float64(self)/float64(time.Millisecond)/n, "self-cpu-ms")
			b.ReportMetric(float64(appCPU)/float64(time.Millisecond)/n, "app-cpu-ms")
			b.ReportMetric(float64(pyApp)/float64(time.Millisecond)/n, "app-cpu-pyatspi-ms")
			b.Logf("%s: %d nodes (census %+v); medians of %d interleaved walks: atspi %.1f ms (without the cache %.1f ms), pyatspi %.1f ms (%.1fx), dogtail dump %.1f ms for %d lines (%.1fx); CPU per atspi walk: ours %.1f ms, the app's %.1f ms (the app's per pyatspi walk: %.1f ms)",
				name, first.Census.Nodes, first.Census, len(ours), median(ours), median(plain), median(pys), median(xpy), median(dts), dtLines, median(xdt),
				float64(self)/float64(time.Millisecond)/n, float64(appCPU)/float64(time.Millisecond)/n, float64(pyApp)/float64(time.Millisecond)/n)
		})
	}
}

// peer is the persistent pyatspi/dogtail process of testdata/pyatspi_walk.py
// in serve mode.
type peer struct {
	b   *testing.B
	in  io.Writer
	out *bufio.Scanner
}

func startPeer(b *testing.B, d *testenv.Desktop, pid, frame int) *peer {
	b.Helper()
	testenv.NeedIntegration(b, systemPython)
	pyatspi(b, d, "tree", strconv.Itoa(pid), strconv.Itoa(frame)) // waits for the app to register
	cmd := exec.CommandContext(b.Context(), systemPython, "testdata/pyatspi_walk.py", "serve", strconv.Itoa(pid), strconv.Itoa(frame))
	// dogtail makes scratch directories under /tmp named after LOGNAME:
	// give it a name of our own, and remove them afterwards.
	logname := "vibespace-bench-" + strconv.Itoa(os.Getpid())
	cmd.Env = append(d.Env(), "LOGNAME="+logname)
	b.Cleanup(func() { os.RemoveAll(filepath.Join(os.TempDir(), "dogtail-"+logname)) })
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil && b.Context().Err() == nil {
			b.Logf("peer: %v\n%s", err, stderr.String())
		}
	})
	return &peer{b: b, in: in, out: bufio.NewScanner(out)}
}

// walk asks the peer for one walk ("pyatspi" or "dogtail") and returns the
// count it printed and the milliseconds it took.
func (p *peer) walk(kind string) (int, float64) {
	p.b.Helper()
	if _, err := io.WriteString(p.in, kind+"\n"); err != nil {
		p.b.Fatalf("peer: %v", err)
	}
	if !p.out.Scan() {
		p.b.Fatalf("peer ended: %v", p.out.Err())
	}
	f := strings.Fields(p.out.Text())
	if len(f) != 2 {
		p.b.Fatalf("peer line %q", p.out.Text())
	}
	n, _ := strconv.Atoi(f[0])
	ms, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		p.b.Fatal(err)
	}
	return n, ms
}

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is process pid's CPU time so far (user + system, clock ticks of
// 10 ms from /proc/PID/stat).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return time.Duration(u+k) * 10 * time.Millisecond
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
