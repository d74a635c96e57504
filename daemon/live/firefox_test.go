package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestLiveViewFirefoxTab: a Firefox tab is watched like a Chromium one,
// through the same pane: a real viewer (a headless Chromium on the page
// the daemon serves) decodes its frames (the picture's colour is the
// page's, and follows it when the page changes colour), Take over pauses
// the agent (browser_paused), and a click and typing from the viewer
// reach the page's DOM (its input handler reports the field's value to
// our server); Hand back tells the agent once.
func TestLiveViewFirefoxTab(t *testing.T) {
	testenv.NeedIntegration(t, "firefox-esr")
	pool := chromium.New(chromium.Options{StartTimeout: 60 * time.Second})
	ff := firefox.NewPool(firefox.Options{StartTimeout: 2 * time.Minute})
	br := firefox.Beside(pool, ff)
	t.Cleanup(func() { br.Close() })
	h := startLiveDaemon(t, func(c *daemon.Config) {
		c.Browser = br
		c.VerbTimeout = 2 * time.Minute // a Firefox's start, inside the first open
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	var (
		mu     sync.Mutex
		values []string
	)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Live Firefox tab</title>
<body style="margin:0;background:#c83">
<input id="field" aria-label="Field" style="position:absolute;left:40px;top:40px;width:200px;height:40px"
 oninput="fetch('/report?v=' + encodeURIComponent(this.value))"></body>`)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		values = append(values, r.URL.Query().Get("v"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	reported := func(v string) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(values, v), fmt.Sprintf("the page reported %q", values)
	}

	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "agent"} }
	prof := h.ok(t, a("browser.new").With(args.New{Label: "fox", Provider: provider.Firefox})).Profile.ID
	h.ok(t, a("browser.use").With(args.Use{Label: prof}))
	if err := ff.Start(t.Context(), prof); err != nil { // outside the first open's call: a fresh Firefox is slow to start
		t.Fatal(err)
	}
	open := h.ok(t, a("browser.open").With(args.OpenURL{URL: site.URL + "/page"}))
	id := open.Target.ID
	if id.Kind() != target.KindTab {
		t.Fatalf("browser.open answered target %s", id)
	}
	if ev := h.ok(t, a("browser.eval").With(args.Eval{Expr: "navigator.userAgent.includes('Firefox')"})); string(ev.Value) != "true" {
		t.Fatalf("the tab is not Firefox's: %s", ev.Value)
	}

	var viewport struct{ W, H float64 }
	ev := h.ok(t, a("browser.eval").With(args.Eval{Expr: "({W: innerWidth, H: innerHeight})"}))
	if err := json.Unmarshal(ev.Value, &viewport); err != nil || viewport.W == 0 {
		t.Fatalf("the viewport: %s %v", ev.Value, err)
	}
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	b := cdptest.LaunchViewer(t, ctx)
	v := openPage(t, ctx, b, w.URL)
	// (A still page sends one picture: a new one comes when it changes.)
	waitPane(t, ctx, v, id, "live with a frame", func(s paneState) bool {
		return s.State == "live" && s.W > 0 && s.H > 0 && s.Frames >= 1 && s.Decoded >= 1
	})
	if ps := panePipelines(h.view.Hub()); len(ps) != 1 || ps[0].Key != string(id) {
		t.Fatalf("pipelines %+v", ps)
	}
	// The decoded picture is the page's: its colour, then the colour the
	// page takes next.
	waitFor(t, ctx, "the picture to show the page's colour", func() (bool, string) {
		rgb := centreColour(t, ctx, v, id)
		return near(rgb, "cc8833"), fmt.Sprintf("the centre is %v", rgb)
	})
	h.ok(t, a("browser.eval").With(args.Eval{Expr: "document.body.style.background = '#2a6'"}))
	waitFor(t, ctx, "the picture to follow the page's new colour", func() (bool, string) {
		rgb := centreColour(t, ctx, v, id)
		return near(rgb, "22aa66"), fmt.Sprintf("the centre is %v", rgb)
	})
	if st := pane(t, ctx, v, id); st.Decoded < 2 {
		t.Fatalf("the new colour came in %d decoded frames", st.Decoded)
	}

	clickSelector(t, ctx, v, ".pane .takeover")
	waitPane(t, ctx, v, id, "driven by us", func(s paneState) bool { return s.Driving && s.Badge == "You are driving" })
	if resp := h.call(t, a("browser.snapshot")); resp.OK || resp.Code != target.CodeBrowserPaused {
		t.Fatalf("the agent's snapshot while the user drives: %+v", resp)
	}

	// A click on the field's centre (140,60 of the viewport) as a point of
	// the picture (the viewport, scaled), then keys typed in the viewer.
	var geo struct{ VW, VH float64 }
	if err := v.EvalInto(ctx, fmt.Sprintf(`(() => { const v = window.vibespace.panes.get(%q).video;
		return {VW: v.videoWidth, VH: v.videoHeight}; })()`, string(id)), &geo); err != nil {
		t.Fatal(err)
	}
	p := pagePoint(t, ctx, v, id, int(140*geo.VW/viewport.W), int(60*geo.VH/viewport.H))
	if err := v.ClickAt(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := v.Type(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the typing to reach the page's field", func() (bool, string) { return reported("hello") })

	clickSelector(t, ctx, v, ".pane .handback")
	waitPane(t, ctx, v, id, "back with the agent", func(s paneState) bool { return !s.Driving })
	r := h.ok(t, a("browser.get").With(args.Get{What: "title"}))
	if r.Note == "" {
		t.Fatalf("the agent was not told of the handback")
	}
	if r := h.ok(t, a("browser.get").With(args.Get{What: "title"})); r.Note != "" {
		t.Fatalf("told twice: %q", r.Note)
	}
	if v := h.ok(t, a("browser.eval").With(args.Eval{Expr: "document.getElementById('field').value"})); string(v.Value) != `"hello"` {
		t.Fatalf("the field holds %s", v.Value)
	}
}
