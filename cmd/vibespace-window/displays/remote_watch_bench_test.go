package displays_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/testenv"
)

// BenchmarkRemoteWatchFirstFrame measures how long a new viewer waits for
// its first decoded picture of the fixture's window: on a local daemon
// (its UDP candidates), and on the remote host's (clitest.SSHHost) through
// the ssh tunnel watch set up (the page and the video's ICE-TCP road
// forwarded over the master), interleaved in one run. Each round opens
// the printed address in a fresh browser context of one headless
// Chromium on this side, from the page's load to the pane's first
// decoded frame; medians are printed with the road the video took. Run
// with -benchtime 10x.
func BenchmarkRemoteWatchFirstFrame(b *testing.B) {
	testenv.NeedIntegration(b, "chromium")
	if b.N == 1 {
		// The framework's probe round: one remote host per run (see
		// BenchmarkSSHRoad).
		return
	}
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	local := newEnv(b)
	local.StartServe()
	lid, _, _ := local.OpenFixture("s1")
	lw := local.Answer("s1", "watch", lid)
	if !lw.OK {
		b.Fatalf("local watch: %+v", lw)
	}

	remote, h, _ := remoteEnv(b)
	logPath := filepath.Join(h.Logs, "fixture.jsonl")
	open := remote.Answer("s1", "open", testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), "--log", logPath)
	if !open.OK {
		b.Fatalf("remote open: %+v", open)
	}
	rid := string(open.Target.ID)
	if _, err := testenv.OpenFixtureLog(logPath).WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		b.Fatal(err)
	}
	rw := remote.Answer("s1", "watch", rid)
	if !rw.OK {
		b.Fatalf("remote watch: %+v", rw)
	}

	br := cdptest.LaunchViewer(b, ctx)
	sides := []struct {
		name, id, url string
		times         []time.Duration
		road          string
	}{{name: "local", id: lid, url: lw.URL}, {name: "ssh", id: rid, url: rw.URL}}
	b.ResetTimer()
	for range b.N {
		for i := range sides {
			s := &sides[i]
			start := time.Now()
			tab, closeTab := openViewer(b, ctx, br, s.url)
			var st remotePane
			for {
				st = readRemotePane(b, ctx, tab, s.id)
				if st.Decoded >= 1 && st.W > 0 {
					break
				}
				select {
				case <-ctx.Done():
					b.Fatalf("%s: no picture: %+v", s.name, st)
				case <-time.After(5 * time.Millisecond):
				}
			}
			s.times = append(s.times, time.Since(start))
			s.road = strings.TrimSpace(st.Local) + " → " + strings.TrimSpace(st.Remote)
			closeTab()
		}
	}
	b.StopTimer()
	fmt.Fprintf(os.Stdout, "\nfirst decoded frame of a new viewer, median of %d (page load → picture)\n", b.N)
	for _, s := range sides {
		m := median(s.times)
		fmt.Fprintf(os.Stdout, "%-6s %8.1fms   road %s\n", s.name, ms(m), s.road)
		b.ReportMetric(ms(m), "ms-first-frame-"+s.name)
	}
}
