package capture_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// animatedPage changes a counter on every animation frame, on a solid
// background the test checks the pixels against; ?still=1 draws it once.
const animatedPage = `<!doctype html>
<html><head><title>animated</title>
<style>html, body { margin: 0; height: 100%%; background: rgb(%d, %d, %d); }
#n { font: 64px monospace; color: white; position: absolute; left: 40%%; top: 40%%; }</style></head>
<body><div id="n">0</div>
<script>
let n = 0;
window.frames_drawn = 0;
function tick() { document.getElementById('n').textContent = ++n; window.frames_drawn = n; requestAnimationFrame(tick); }
if (!location.search.includes('still')) requestAnimationFrame(tick);
</script></body></html>`

var background = [3]int{200, 30, 60}

func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, animatedPage, background[0], background[1], background[2])
	}))
	t.Cleanup(srv.Close)
	return srv
}

// launchBrowser starts a headless Chromium for the test, closed (and its
// processes reaped) when the test ends.
func launchBrowser(t *testing.T, ctx context.Context) *cdp.Context {
	t.Helper()
	testenv.NeedIntegration(t, "chromium")
	b, err := cdp.Launch(context.WithoutCancel(ctx), cdp.Options{Headless: true, StartTimeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() {
		pid := b.PID()
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			t.Errorf("the browser left processes %v", left)
		}
	})
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// viewport is the tab's viewport in device pixels, as the page says.
func viewport(t *testing.T, ctx context.Context, tab *cdp.Tab) (w, h int) {
	t.Helper()
	var v [2]int
	if err := tab.EvalInto(ctx, "[Math.round(innerWidth * devicePixelRatio), Math.round(innerHeight * devicePixelRatio)]", &v); err != nil {
		t.Fatal(err)
	}
	return v[0], v[1]
}

// near reports whether the pixel at x, y is within tol of c per channel.
func near(f capture.Frame, x, y int, c [3]int, tol int) bool {
	p := f.Pix[y*f.Stride+4*x:]
	for i := range 3 {
		if d := int(p[i]) - c[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}

// TestTabOfAnimatedPage: a real headless Chromium tab showing an animated
// page is delivered at the viewport's size, with the page's colours, and
// its frames change; the same tab made still still answers a keyframe
// request with a frame; closing the tab ends the source with tab_gone.
func TestTabOfAnimatedPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	c := launchBrowser(t, ctx)
	srv := pageServer(t)
	tab, err := c.NewTab(ctx, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	W, H := viewport(t, ctx, tab)
	src, err := capture.NewTab(tab, capture.TabOptions{FPS: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	var prev capture.Frame
	for i := range 4 {
		f, err := src.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Width != W || f.Height != H || f.Format != capture.FormatRGBA || len(f.Pix) < f.Stride*(H-1)+4*W {
			t.Fatalf("frame %d: %dx%d %s (%d bytes), the viewport is %dx%d", i, f.Width, f.Height, f.Format, len(f.Pix), W, H)
		}
		if !near(f, 2, 2, background, 12) || !near(f, W-3, H-3, background, 12) {
			t.Fatalf("frame %d: corner pixels %v, %v; the page's background is %v", i, f.Pix[2*f.Stride+8:][:3], f.Pix[(H-3)*f.Stride+4*(W-3):][:3], background)
		}
		if i > 0 && bytes.Equal(f.Pix, prev.Pix) {
			t.Fatalf("frame %d: the same pixels as the one before, on an animated page", i)
		}
		if i > 0 && (f.Seq != prev.Seq+1 || !f.Time.After(prev.Time)) {
			t.Fatalf("frame %d: seq %d time %s after seq %d time %s", i, f.Seq, f.Time, prev.Seq, prev.Time)
		}
		prev = f
	}
	var drawn int
	if err := tab.EvalInto(ctx, "window.frames_drawn", &drawn); err != nil || drawn < 4 {
		t.Fatalf("the page drew %d frames (%v)", drawn, err)
	}

	// The same tab, still: Chromium stops sending pictures, and a keyframe
	// request is answered with the last one again.
	if err := tab.Navigate(ctx, srv.URL+"/?still=1"); err != nil {
		t.Fatal(err)
	}
	for {
		src.RequestKeyframe()
		f, err := src.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Forced {
			if f.Width != W || f.Height != H || !near(f, 2, 2, background, 12) {
				t.Fatalf("the forced frame: %dx%d", f.Width, f.Height)
			}
			if !bytes.Equal(f.Pix, prev.Pix) {
				t.Fatal("a forced frame differs from the frame before it")
			}
			break
		}
		prev = f // the page was still settling: a new picture came first
	}

	// The tab closes: the source ends with tab_gone.
	if err := c.CloseTab(ctx, tab.ID()); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := src.Next(ctx)
		if err == nil {
			continue // a picture sent before the close
		}
		if target.CodeOf(err) != target.CodeTabGone {
			t.Fatalf("after the tab closed: %v, want tab_gone", err)
		}
		break
	}
	if err := src.Close(); err != nil {
		t.Fatalf("close after the tab went: %v", err)
	}
}

// TestTabClose: Close stops the screencast and ends a Next in progress with
// ErrClosed; the tab itself stays.
func TestTabClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	c := launchBrowser(t, ctx)
	srv := pageServer(t)
	tab, err := c.NewTab(ctx, srv.URL+"/?still=1")
	if err != nil {
		t.Fatal(err)
	}
	src, err := capture.NewTab(tab, capture.TabOptions{Format: "png"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// PNG is lossless: the background is exact.
	if !near(f, 2, 2, background, 0) {
		t.Fatalf("png frame corner %v, want %v", f.Pix[2*f.Stride+8:][:3], background)
	}
	errc := make(chan error, 1)
	go func() {
		for { // a still page: Next waits (a late picture of the load aside)
			if _, err := src.Next(ctx); err != nil {
				errc <- err
				return
			}
		}
	}()
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, capture.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
	if title, err := tab.Title(ctx); err != nil || title != "animated" {
		t.Fatalf("the tab after Close: %q, %v", title, err)
	}
}

// TestTabNextEndsWithItsContext: a page that changes on every frame has a
// picture waiting whenever its reader is slower than its period (an encoder
// under load), so Next never has to wait; it still returns as soon as its
// context ends (a pipeline stopping its source spun on this under load).
func TestTabNextEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := launchBrowser(t, ctx)
	tab, err := c.NewTab(ctx, pageServer(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	src, err := capture.NewTab(tab, capture.TabOptions{FPS: 60})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	nctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := src.Next(nctx); err != nil {
				done <- err
				return
			}
			time.Sleep(50 * time.Millisecond) // three periods: a slow encoder
		}
	}()
	time.Sleep(500 * time.Millisecond)
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Next ended with %v, want its context's end", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next went on after its context ended")
	}
}
