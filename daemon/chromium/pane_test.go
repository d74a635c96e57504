package chromium

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// TestTabPaneWindow: a pool whose browsers run headed on a display
// (Options.PaneDisplay) opens each tab in a window of its own, and a tab's
// pane is that window less the browser's bar. Three tabs (two of one
// context, one of another), each page one colour: each pane's frame is
// the page's viewport in size and wholly its own page's colour (the page's
// style is the oracle; a frame that took the bar, or another tab's
// window, has pixels of another colour). A colour the page then takes
// (set in its DOM) is the next frame's. The pool's browser opens no port
// and leaves no process when closed.
func TestTabPaneWindow(t *testing.T) {
	needChromium(t)
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>pane %s</title><body style="margin:0;background:#%s"></body>`, r.URL.Query().Get("c"), r.URL.Query().Get("c"))
	}))
	defer page.Close()
	pool := New(Options{StartTimeout: 60 * time.Second, IdleStop: -1,
		PaneDisplay: func(context.Context) (string, error) { return d.Display, nil }})
	var pid int
	defer func() {
		if err := pool.Close(); err != nil {
			t.Errorf("closing the pool: %v", err)
		}
		if left := cdp.GroupProcesses(pid); pid > 0 && len(left) > 0 {
			t.Errorf("the browser left processes %v", left)
		}
	}()

	type paneTab struct {
		kind.Target
		colour [3]byte
	}
	var tabs []paneTab
	for i, o := range []struct {
		owner  string
		colour [3]byte
	}{{"kim", [3]byte{0xc0, 0x20, 0x20}}, {"kim", [3]byte{0x20, 0xc0, 0x20}}, {"lee", [3]byte{0x20, 0x20, 0xc0}}} {
		bc, release, err := pool.Context(ctx, kind.BrowserKey{Session: o.owner, Owner: o.owner})
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		tb, err := bc.NewTab(ctx)
		if err != nil {
			t.Fatal(err)
		}
		url := fmt.Sprintf("%s/?c=%02x%02x%02x", page.URL, o.colour[0], o.colour[1], o.colour[2])
		if err := tb.(kind.Navigator).Navigate(ctx, url); err != nil {
			t.Fatalf("tab %d: %v", i, err)
		}
		tabs = append(tabs, paneTab{tb, o.colour})
	}
	pool.mu.Lock()
	br := pool.browsers[""]
	pool.mu.Unlock()
	pid = br.b.PID()
	if br.b.Display() != d.Display {
		t.Fatalf("the shared browser shows on %q, want %s", br.b.Display(), d.Display)
	}
	// Each tab has a window of its own: the browser has at least as many
	// windows on the display as tabs (its first, blank one besides).
	xd, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer xd.Close()
	waitUntil(t, ctx, "a window per tab", func() (bool, string) {
		ws, err := xd.WindowsOfPID(ctx, pid)
		n := 0
		for _, w := range ws {
			if w.Viewable && w.Geometry.Width > 100 {
				n++
			}
		}
		return n >= len(tabs), fmt.Sprintf("%d viewable windows of the browser (%v)", n, err)
	})

	for i, tb := range tabs {
		var vp struct{ W, H int }
		if err := tb.Target.(*tab).t.EvalInto(ctx, "({W: innerWidth, H: innerHeight})", &vp); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		src, err := tb.Frames(ctx, kind.FrameOptions{FPS: 30})
		if err != nil {
			t.Fatalf("tab %d's pane: %v", i, err)
		}
		t.Logf("tab %d's window found in %v", i, time.Since(start).Round(time.Millisecond))
		if _, ok := src.(*tabWindow); !ok {
			t.Fatalf("tab %d's pane is a %T, not its window", i, src)
		}
		f := nextColour(t, ctx, src, tb.colour)
		if f.Width != vp.W || f.Height != vp.H {
			t.Errorf("tab %d's pane is %dx%d, its viewport %dx%d", i, f.Width, f.Height, vp.W, vp.H)
		}
		// The page changes: the pane follows.
		next := [3]byte{tb.colour[1], tb.colour[2], tb.colour[0]}
		if _, err := tb.Target.(kind.Evaluator).Eval(ctx, fmt.Sprintf("document.body.style.background = '#%02x%02x%02x'", next[0], next[1], next[2])); err != nil {
			t.Fatal(err)
		}
		nextColour(t, ctx, src, next)
		t.Logf("tab %d's pane: its page, then its change, in %v", i, time.Since(start).Round(time.Millisecond))
		if err := src.Close(); err != nil {
			t.Errorf("closing tab %d's pane: %v", i, err)
		}
	}

	// A closed tab's pane ends tab_gone.
	src, err := tabs[1].Frames(ctx, kind.FrameOptions{FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tabs[1].Close(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := src.Next(ctx)
		if err == nil {
			continue
		}
		if target.CodeOf(err) != target.CodeTabGone {
			t.Fatalf("the closed tab's pane ended with %v, want tab_gone", err)
		}
		break
	}
}

// nextColour reads src until a frame is wholly c (its four corners and
// its centre), and returns it; it fails the test if ctx ends first.
func nextColour(t *testing.T, ctx context.Context, src target.FrameSource, c [3]byte) capture.Frame {
	t.Helper()
	var last string
	for {
		f, err := src.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for a frame of #%02x%02x%02x (last: %s): %v", c[0], c[1], c[2], last, err)
		}
		ok := true
		last = ""
		for _, p := range [][2]int{{0, 0}, {f.Width - 1, 0}, {0, f.Height - 1}, {f.Width - 1, f.Height - 1}, {f.Width / 2, f.Height / 2}} {
			px := f.Pix[p[1]*f.Stride+4*p[0]:]
			r, g, b := px[0], px[1], px[2]
			if f.Format == capture.FormatBGRX {
				r, b = b, r
			}
			last += fmt.Sprintf(" %v=#%02x%02x%02x", p, r, g, b)
			if r != c[0] || g != c[1] || b != c[2] {
				ok = false
			}
		}
		if ok {
			return f
		}
	}
}

// waitUntil polls cond until it holds, or fails the test when ctx ends.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() (bool, string)) {
	t.Helper()
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s: %s", what, state)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
