package live_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// openFixtureOn opens the GTK fixture as session on display (a provider's
// name) and waits for it.
func (h *liveHarness) openFixtureOn(t *testing.T, ctx context.Context, session, display string) (target.ID, *testenv.FixtureLog) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "fixture.jsonl")
	resp := h.ok(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{Display: display, App: testenv.FixturePython, Args: []string{script, "--log", logPath}}))
	log := testenv.OpenFixtureLog(logPath)
	if _, err := log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	return resp.Target.ID, log
}

// TestLiveViewXpraWindow: a window on the session's own Xpra display (which
// xpra keeps unmapped while no xpra client views it) is watched like one of
// our Xvfb: the page decodes frames of the window's size and its pixels
// (not the black of a hidden window), and after Take
// over a click on the video lands in the app (its own log says so).
func TestLiveViewXpraWindow(t *testing.T) {
	testenv.NeedIntegration(t, "chromium", "xpra")
	h := startLiveDaemon(t, func(c *daemon.Config) {
		c.Displays = []kind.DisplayProvider{native.Xvfb(native.Options{Logf: t.Logf}), native.Xpra(native.Options{Logf: t.Logf})}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	id, flog := h.openFixtureOn(t, ctx, "agent", native.XpraName)

	alpha := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	shot := h.ok(t, daemon.Request{Verb: "screenshot", Session: "agent", Target: string(id)})
	ax, ay := alpha.Bounds.X+alpha.Bounds.W/2-shot.Bounds.X, alpha.Bounds.Y+alpha.Bounds.H/2-shot.Bounds.Y

	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	b := cdptest.LaunchViewer(t, ctx)
	v := openPage(t, ctx, b, w.URL)
	s := waitPane(t, ctx, v, id, "live with frames", func(s paneState) bool {
		return s.State == "live" && s.W > 0 && s.H > 0 && s.Frames >= 1 && s.Decoded >= 1
	})
	if s.W != shot.Bounds.W || s.H != shot.Bounds.H {
		t.Errorf("the video is %dx%d, the window %dx%d", s.W, s.H, shot.Bounds.W, shot.Bounds.H)
	}
	// The pixels are the window's, not the black of a window xpra holds
	// unmapped: the decoded picture has many colours.
	var colours int
	if err := v.EvalInto(ctx, fmt.Sprintf(`(() => { const v = window.vibespace.panes.get(%q).video;
		const c = document.createElement('canvas'); c.width = v.videoWidth; c.height = v.videoHeight;
		const x = c.getContext('2d'); x.drawImage(v, 0, 0);
		const d = x.getImageData(0, 0, c.width, c.height).data, seen = new Set();
		for (let i = 0; i < d.length && seen.size < 64; i += 4 * 97) seen.add(d[i] >> 3 << 10 | d[i+1] >> 3 << 5 | d[i+2] >> 3);
		return seen.size; })()`, string(id)), &colours); err != nil {
		t.Fatal(err)
	}
	if colours < 3 {
		t.Fatalf("the decoded picture has %d colours: the window's pixels did not reach the page", colours)
	}
	if ps := panePipelines(h.view.Hub()); len(ps) != 1 || ps[0].Key != string(id) || ps[0].Viewers != 1 {
		t.Fatalf("pipelines %+v, want one of %s with one viewer", ps, id)
	}

	// A person takes over from the page and clicks Alpha on the video.
	clickSelector(t, ctx, v, ".pane .takeover")
	waitPane(t, ctx, v, id, "driven by us", func(s paneState) bool { return s.Driving && s.Badge == "You are driving" })
	from := flog.Len()
	if err := v.ClickAt(ctx, pagePoint(t, ctx, v, id, ax, ay)); err != nil {
		t.Fatal(err)
	}
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatalf("the page's click did not land in the app on the xpra display: %v", err)
	}
	clickSelector(t, ctx, v, ".pane .handback")
	waitPane(t, ctx, v, id, "back with the agent", func(s paneState) bool { return !s.Driving && strings.HasPrefix(s.Badge, "Agent is driving") })

	// The live view is no xpra client: xpra's connect hooks never ran.
	doc := h.ok(t, daemon.Request{Verb: "doctor", Session: "agent"})
	said := false
	for _, c := range doc.Checks {
		if strings.Contains(c.Detail, "an xpra client is attached") {
			t.Fatalf("doctor says an xpra client is attached while only the live view watches: %+v", c)
		}
		said = said || strings.Contains(c.Detail, "no xpra client attached")
	}
	if !said {
		t.Fatalf("doctor says nothing of the xpra display's clients: %+v", doc.Checks)
	}
}
