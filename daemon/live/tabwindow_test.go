package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/target"
)

// reportLag lets the viewer page's counts catch up with what the hub sent.
const reportLag = 500 * time.Millisecond

// stillTab is how long a tab's page stays still while its pane is counted.
const stillTab = 6 * time.Second

// TestLiveViewTabWindow: a tab of the shared browser run as the daemon
// serves it with --tab-pane window (chromium's Options.PaneXvfb, headed
// on a private Xvfb of its own) is
// watched through its own window, not the
// screencast (the browser was asked where the tab's window is, and never
// for a screencast: the pool's own count of CDP commands). A real
// Chromium viewer decodes the pane; a still page sends no more frames
// than keyframes were asked for, by the hub's count and the viewer's; a
// change of the page (its DOM) is sent and decoded; a click taken over
// from the page lands in the tab (the page reports it to our server); the
// browser's windows (on its private display) are not targets of anyone's
// list.
func TestLiveViewTabWindow(t *testing.T) {
	var (
		mu      sync.Mutex
		methods = map[string]int{}
		hits    []string
	)
	pool := chromium.New(chromium.Options{StartTimeout: 60 * time.Second,
		TabPane: chromium.PaneWindow, PaneXvfb: true,
		Calls: func(m string) {
			mu.Lock()
			methods[m]++
			mu.Unlock()
		}})
	h := startLiveDaemon(t, func(c *daemon.Config) { c.Browser = pool })
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	called := func(m string) int {
		mu.Lock()
		defer mu.Unlock()
		return methods[m]
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Window tab</title>
<body style="margin:0;background:#264">
<div id="n" style="font:48px monospace;color:#fff">still</div>
<button id="b" style="position:absolute;left:100px;top:120px;width:160px;height:80px"
 onclick="fetch('/report?v=clicked')">Press</button></body>`)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Query().Get("v"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	clicked := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, h := range hits {
			if h == "clicked" {
				n++
			}
		}
		return n
	}

	open := h.ok(t, daemon.Request{Verb: "browser.open", Session: "agent"}.With(args.OpenURL{URL: site.URL + "/page"}))
	id := open.Target.ID
	if id.Kind() != target.KindTab {
		t.Fatalf("browser.open answered target %s", id)
	}
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	b := cdptest.LaunchViewer(t, ctx)
	v := openPage(t, ctx, b, w.URL)
	waitPane(t, ctx, v, id, "live with frames", func(s paneState) bool {
		return s.State == "live" && s.W > 0 && s.H > 0 && s.Frames >= 1 && s.Decoded >= 1
	})
	if n, sc := called("Browser.getWindowForTarget"), called("Page.startScreencast"); n == 0 || sc != 0 {
		t.Fatalf("the pane asked for the tab's window %d times and for a screencast %d times: want the window road alone", n, sc)
	}
	for _, l := range []string{"agent", "other"} {
		for _, ti := range h.ok(t, daemon.Request{Verb: "list", Session: l}).Targets {
			if ti.ID.Kind() != target.KindTab {
				t.Errorf("%s's list shows %s %q: the browser's window is no target", l, ti.ID, ti.Title)
			}
		}
	}

	// Still: no more frames than keyframes asked for, sent or decoded.
	hub := h.view.Hub()
	key := string(id)
	time.Sleep(time.Second) // the keyframes of the start and the load's last paints
	a, ok := hub.Stats(key)
	if !ok {
		t.Fatal("no pipeline")
	}
	time.Sleep(reportLag)
	seen := pane(t, ctx, v, id)
	time.Sleep(stillTab)
	st, _ := hub.Stats(key)
	time.Sleep(reportLag)
	after := pane(t, ctx, v, id)
	st2, _ := hub.Stats(key)
	sent, asked, decoded := st.Frames-a.Frames, st.Asked-a.Asked, after.Decoded-seen.Decoded
	t.Logf("over %v still: %d frames sent, %d keyframe requests answered; the viewer decoded %d", stillTab, sent, asked, decoded)
	if sent > asked {
		t.Errorf("a still tab sent %d frames in %v, and was asked for %d", sent, stillTab, asked)
	}
	if decoded < 0 || uint64(decoded) > st2.Asked-a.Asked {
		t.Errorf("the viewer decoded %d frames of a still tab in %v, %d were asked for", decoded, stillTab, st2.Asked-a.Asked)
	}

	// The page changes: sent and decoded.
	h.ok(t, daemon.Request{Verb: "browser.eval", Session: "agent", Target: string(id)}.With(args.Eval{Expr: `document.getElementById('n').textContent = 'changed', 1`}))
	waitPane(t, ctx, v, id, "the change decoded", func(s paneState) bool { return s.Decoded > after.Decoded })
	if c, _ := hub.Stats(key); c.Frames <= st.Frames {
		t.Errorf("the change sent no frame")
	}

	var viewport struct{ W, H float64 }
	vr := h.ok(t, daemon.Request{Verb: "browser.eval", Session: "agent", Target: string(id)}.With(args.Eval{Expr: "({W: innerWidth, H: innerHeight})"}))
	if err := json.Unmarshal(vr.Value, &viewport); err != nil || viewport.W == 0 {
		t.Fatalf("the viewport: %s %v", vr.Value, err)
	}
	var geo struct{ VW, VH float64 }
	if err := v.EvalInto(ctx, fmt.Sprintf(`(() => { const v = window.vibespace.panes.get(%q).video;
		return {VW: v.videoWidth, VH: v.videoHeight}; })()`, string(id)), &geo); err != nil {
		t.Fatal(err)
	}
	// The picture is the page's viewport, the window less the browser's
	// bar (the encoder pads an odd size to the next even one, codec.go).
	even := func(f float64) float64 { return f + float64(int(f)%2) }
	if geo.VW != even(viewport.W) || geo.VH != even(viewport.H) {
		t.Errorf("the pane's picture is %gx%g, the tab's viewport %gx%g", geo.VW, geo.VH, viewport.W, viewport.H)
	}

	// Take over and click the button from the page: the tab's page sees it.
	clickSelector(t, ctx, v, ".pane .takeover")
	waitPane(t, ctx, v, id, "driven by us", func(s paneState) bool { return s.Driving && s.Badge == "You are driving" })
	px, py := int(180*geo.VW/viewport.W), int(160*geo.VH/viewport.H)
	p := pagePoint(t, ctx, v, id, px, py)
	if err := v.ClickAt(ctx, p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page's click to land in the tab", func() (bool, string) {
		return clicked() == 1, fmt.Sprintf("%d clicks", clicked())
	})
	clickSelector(t, ctx, v, ".pane .handback")
	waitPane(t, ctx, v, id, "back with the agent", func(s paneState) bool { return !s.Driving && strings.HasPrefix(s.Badge, "Agent is driving") })
}
