package rtc_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// countingSource records whether the hub closed its source.
type countingSource struct {
	capture.Source
	closed atomic.Int32
}

func (c *countingSource) Close() error {
	c.closed.Add(1)
	return c.Source.Close()
}

// eventually polls cond until it holds or ctx ends.
func eventually(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s: %v", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func needVP8(t *testing.T) {
	t.Helper()
	if !rtc.VP8Available() {
		if os.Getenv(testenv.IntegrationEnv) == "1" {
			t.Fatalf("this build has no VP8 encoder (cgo or libvpx-dev missing) — %s=1, so this is a failure, not a skip", testenv.IntegrationEnv)
		}
		t.Skip("SKIP: this build has no VP8 encoder (cgo or libvpx-dev missing)")
	}
}

// fixtureWindow launches the GTK fixture on the shared desktop and answers
// our own connection to that display and the fixture's window; the
// connection closes, then the fixture stops, when the test ends.
func fixtureWindow(t *testing.T, ctx context.Context) (*x11.Display, x11.Window) {
	t.Helper()
	d := testenv.SharedDesktop(t)
	fx, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fx.Stop() })
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disp.Close() })
	win, err := disp.Window(ctx, fx.Window.ID)
	if err != nil {
		t.Fatal(err)
	}
	return disp, win
}

// TestLiveViewOfFixture is the live view end to end: the fixture's real GTK
// window is captured, encoded once and watched by two peer connections of a
// real headless Chromium, which decode it at the window's size; one viewer
// closing its connection is dropped while the other keeps the pipeline;
// the browser dying drops the last viewer, which stops the pipeline and
// closes its source.
func TestLiveViewOfFixture(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	needVP8(t)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Second)
	defer cancel()
	disp, win := fixtureWindow(t, ctx)
	W, H := win.Geometry.Width, win.Geometry.Height
	t.Logf("fixture window %s %q", win.Geometry, win.Title)

	hub := rtc.New(rtc.Options{Logger: testLogger(t)})
	defer hub.Close()
	var (
		srcMu sync.Mutex
		srcs  []*countingSource
	)
	resolve := func(r *http.Request) (string, rtc.OpenFunc, error) {
		return "win:" + win.ID.String(), func(context.Context) (capture.Source, error) {
			s := &countingSource{Source: capture.NewWindow(disp, win.ID, capture.WindowOptions{FPS: 10})}
			srcMu.Lock()
			srcs = append(srcs, s)
			srcMu.Unlock()
			return s, nil
		}, nil
	}
	opened := func() []*countingSource {
		srcMu.Lock()
		defer srcMu.Unlock()
		return append([]*countingSource(nil), srcs...)
	}
	vs := newViewerServer(t, hub.WHEP(resolve))
	b := launchViewer(t, vs.URL+"/viewer?page=a&n=2")

	for i := range 2 {
		rp, err := vs.wait(ctx, "a", i, func(r report) bool { return r.Frames >= 1 && r.Width > 0 })
		if err != nil {
			t.Fatal(err)
		}
		if rp.Width != W || rp.Height != H {
			t.Fatalf("viewer %d decoded %dx%d, the window is %dx%d", i, rp.Width, rp.Height, W, H)
		}
		t.Logf("viewer %d: %dx%d, %d frames decoded, %s", i, rp.Width, rp.Height, rp.Frames, rp.State)
	}

	// Two viewers, one pipeline, one source, one encoder.
	ps := hub.Pipelines()
	if len(ps) != 1 || ps[0].Viewers != 2 || ps[0].Encoders != 1 || len(opened()) != 1 {
		t.Fatalf("want one pipeline with two viewers and one encoder, got %+v (sources opened: %d)", ps, len(opened()))
	}
	if ps[0].Width != W || ps[0].Height != H || ps[0].Keyframes < 1 {
		t.Fatalf("pipeline %+v for a %dx%d window", ps[0], W, H)
	}
	id := ps[0].ID

	// One viewer closes its peer connection: it is dropped, the pipeline stays.
	vs.command("a", "close 0")
	eventually(t, ctx, "the closed viewer to be dropped", func() bool { return hub.Viewers() == 1 })
	if ps := hub.Pipelines(); len(ps) != 1 || ps[0].ID != id || ps[0].Viewers != 1 {
		t.Fatalf("after one viewer left: %+v", ps)
	}
	if _, err := vs.wait(ctx, "a", 1, func(r report) bool { return r.State == "connected" }); err != nil {
		t.Fatal(err)
	}

	// The browser dies: the last viewer is dropped, the pipeline stops and
	// its source is closed.
	b.kill(t)
	eventually(t, ctx, "the vanished viewer to be dropped", func() bool { return hub.Viewers() == 0 })
	eventually(t, ctx, "the pipeline to stop", func() bool { return len(hub.Pipelines()) == 0 })
	eventually(t, ctx, "the source to be closed", func() bool { return opened()[0].closed.Load() >= 1 })
}
