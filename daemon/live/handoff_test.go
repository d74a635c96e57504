package live_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/handoff"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// startHandoffDaemon is startLiveDaemon with the hand-off's desk wired as
// the program wires it: its stage among the stages, its asks and its
// decline route in the live view. It answers the state directory too.
func startHandoffDaemon(t *testing.T, tune func(*daemon.Config)) (*liveHarness, string) {
	t.Helper()
	desk := handoff.New()
	var view *live.View
	var stateDir string
	h := startLiveDaemon(t, func(c *daemon.Config) {
		c.Stages = stages.Of(nil, desk)
		c.Live = func(d daemon.LiveHands) daemon.LiveView {
			view = live.New(d, live.Options{Asks: desk.Asks, Routes: desk.Routes()})
			return view
		}
		stateDir = c.StateDir
		if tune != nil {
			tune(c)
		}
	})
	h.view = view
	return h, stateDir
}

// needs is what the page shows of a target's hand-off: its pane's "needs
// you" bar, its strip row's mark, and the page's notices.
type needs struct {
	Pane    string   `json:"pane"` // "" while hidden
	Row     string   `json:"row"`  // "" while hidden
	Notices []string `json:"notices"`
	Title   string   `json:"title"`
}

func readNeeds(t *testing.T, ctx context.Context, tab *cdp.Tab, id target.ID) needs {
	t.Helper()
	var n needs
	expr := fmt.Sprintf(`(() => {
		const p = window.vibespace.panes.get(%q);
		const bar = p && p.q('.needs');
		const row = document.querySelector('.tab[data-id=%q] .t-needs');
		return {pane: bar && !bar.hidden ? bar.textContent.replace(/\s+/g, ' ').trim() : '',
			row: row && !row.hidden ? row.textContent : '',
			notices: window.vibespace.notices().filter((x) => x.id === %q).map((x) => x.text),
			title: document.title};
	})()`, string(id), string(id), string(id))
	if err := tab.EvalInto(ctx, expr, &n); err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	return n
}

// waitNeeds waits until the page shows id's hand-off with reason (shown
// true) or shows none (false).
func waitNeeds(t *testing.T, ctx context.Context, tab *cdp.Tab, id target.ID, reason string, shown bool) needs {
	t.Helper()
	var n needs
	waitFor(t, ctx, fmt.Sprintf("the page to show %s's needs-you %v", id, shown), func() (bool, string) {
		n = readNeeds(t, ctx, tab, id)
		on := strings.Contains(n.Pane, "Needs you: "+reason) && strings.Contains(n.Row, "needs you: "+reason) &&
			len(n.Notices) == 1 && strings.Contains(n.Notices[0], "needs you: "+reason) && strings.HasPrefix(n.Title, "(needs you)")
		off := n.Pane == "" && n.Row == "" && len(n.Notices) == 0 && !strings.Contains(n.Title, "needs you")
		return (shown && on) || (!shown && off), fmt.Sprintf("%+v", n)
	})
	return n
}

// watchPane opens the pane of id, as the address watch prints, in a page
// of a real headless Chromium, and waits for its frames.
func watchPane(t *testing.T, ctx context.Context, h *liveHarness, id target.ID) *cdp.Tab {
	t.Helper()
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	v := openPage(t, ctx, cdptest.LaunchViewer(t, ctx), w.URL)
	waitPane(t, ctx, v, id, "live with frames", func(s paneState) bool { return s.State == "live" && s.Frames >= 1 && s.Decoded >= 1 })
	return v
}

// handoffCall runs a hand-off in the background; its answer comes on the
// channel.
func handoffCall(h *liveHarness, ctx context.Context, req daemon.Request) <-chan daemon.Response {
	out := make(chan daemon.Response, 1)
	go func() { out <- h.D.Handle(ctx, req) }()
	return out
}

func answer(t *testing.T, ctx context.Context, ch <-chan daemon.Response) daemon.Response {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		t.Fatal("the hand-off never answered")
	}
	return daemon.Response{}
}

// TestHandoffWindow: an agent hands the GTK fixture off to a person. The
// live view's own page, in a real headless Chromium, shows "needs you"
// and the reason in the pane, the strip row and a notice; a decline from
// the page is told to the agent handoff_declined; a hand-off nobody takes
// ends at its bound handoff_timeout and its mark is withdrawn; the person
// takes over from the page, types into the fixture through the pane,
// hands back, and the agent's answer says it came back through a person,
// after how long, with the diff holding what they typed (the fixture's
// own log says it was typed). The audit has each end, never the text.
func TestHandoffWindow(t *testing.T) {
	h, stateDir := startHandoffDaemon(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	id, flog := h.openFixture(t, ctx, "agent")
	entry := h.node(t, "agent", id, func(n *target.Node) bool { return n.Role == "text" && n.Name == "Name" })
	shot := h.ok(t, daemon.Request{Verb: "screenshot", Session: "agent", Target: string(id)})
	ex, ey := entry.Bounds.X+entry.Bounds.W/2-shot.Bounds.X, entry.Bounds.Y+entry.Bounds.H/2-shot.Bounds.Y

	v := watchPane(t, ctx, h, id)

	ask := func(reason, wait string) daemon.Request {
		return daemon.Request{Verb: "handoff", Session: "agent", Target: string(id)}.With(args.Handoff{Reason: reason, Wait: wait})
	}

	// A decline from the page's own button.
	ch := handoffCall(h, ctx, ask("sign the form for me", "2m"))
	waitNeeds(t, ctx, v, id, "sign the form for me", true)
	clickSelector(t, ctx, v, ".pane .decline")
	r := answer(t, ctx, ch)
	if r.OK || r.Code != target.CodeHandoffDeclined || !strings.Contains(r.Message, "declined") || !strings.HasPrefix(fmt.Sprint(r.Facts["user"]), "viewer-") {
		t.Fatalf("the declined hand-off answered %+v", r)
	}
	waitNeeds(t, ctx, v, id, "", false)

	// Nobody comes: the bound ends it, and the mark goes.
	ch = handoffCall(h, ctx, ask("nobody will come", "2s"))
	waitNeeds(t, ctx, v, id, "nobody will come", true)
	r = answer(t, ctx, ch)
	if r.OK || r.Code != target.CodeHandoffTimeout || r.Facts["driving"] != nil {
		t.Fatalf("the unattended hand-off answered %+v", r)
	}
	waitNeeds(t, ctx, v, id, "", false)

	// A person comes, takes over, types a name through the pane, hands back.
	ch = handoffCall(h, ctx, ask("type your name into Name", "3m"))
	waitNeeds(t, ctx, v, id, "type your name into Name", true)
	clickSelector(t, ctx, v, ".pane .takeover")
	waitPane(t, ctx, v, id, "driven by us", func(s paneState) bool { return s.Driving })
	waitFor(t, ctx, "the pane's mark to name who took it over", func() (bool, string) {
		n := readNeeds(t, ctx, v, id)
		return strings.Contains(n.Pane, "took it over"), n.Pane
	})
	from := flog.Len()
	if err := v.ClickAt(ctx, pagePoint(t, ctx, v, id, ex, ey)); err != nil {
		t.Fatal(err)
	}
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "focus" || e.Type == "click" || e.Type == "text" }); err != nil {
		t.Logf("no focus event logged for the entry (%v); typing anyway", err)
	}
	const typed = "Grace"
	if err := v.Type(ctx, typed); err != nil {
		t.Fatal(err)
	}
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" && strings.Contains(e.Text, typed) }); err != nil {
		t.Fatalf("the person's typing never reached the fixture: %v", err)
	}
	clickSelector(t, ctx, v, ".pane .handback")
	r = answer(t, ctx, ch)
	if !r.OK || !strings.Contains(r.Did, "came back through a person (viewer-") || !strings.Contains(r.Did, "after ") || r.Facts["outcome"] != handoff.Back {
		t.Fatalf("the hand-off answered %+v", r)
	}
	if !strings.Contains(r.Text, typed) || !strings.Contains(r.Did, "since the hand-off:") {
		t.Fatalf("the diff does not show what the person typed:\n%s\n%s", r.Did, r.Text)
	}
	t.Logf("the hand-off's answer: %s\n%s", r.Did, r.Text)
	if ms, ok := r.Facts["after_ms"].(int64); !ok || ms <= 0 {
		t.Fatalf("after_ms %v (%T)", r.Facts["after_ms"], r.Facts["after_ms"])
	}
	waitNeeds(t, ctx, v, id, "", false)
	// The agent drives again.
	h.ok(t, daemon.Request{Verb: "snapshot", Session: "agent", Target: string(id)})

	// The audit: each end, who, never what was typed.
	for _, verb := range []string{"handoff.ask", "handoff.declined", "handoff.timeout", "handoff.taken", "handoff.back"} {
		if len(auditLines(t, stateDir, verb)) == 0 {
			t.Errorf("no %s row in the audit", verb)
		}
	}
	for _, verb := range []string{"handoff", "handoff.back", "handoff.taken", "takeover", "handback"} {
		for _, l := range auditLines(t, stateDir, verb) {
			if strings.Contains(fmt.Sprint(l), typed) {
				t.Errorf("the audit holds what the person typed: %v", l)
			}
		}
	}
}

// TestHandoffTab: a tab of the headless Chromium handed off; the person,
// in the live view's page, takes it over, clicks the page's "I am human"
// button through the pane and hands back; the answer says it came back
// through a person with the diff of the page's change, which the page's
// own DOM confirms.
func TestHandoffTab(t *testing.T) {
	pool := chromium.New(chromium.Options{StartTimeout: 60 * time.Second})
	h, _ := startHandoffDaemon(t, func(c *daemon.Config) { c.Browser = pool })
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()

	mux := http.NewServeMux()
	mux.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Human check</title>
<body style="margin:0;background:#eee">
<h1 id="status">Prove you are human</h1>
<button id="b" style="position:absolute;left:100px;top:120px;width:160px;height:80px"
 onclick="document.getElementById('status').textContent = 'Verified human'; fetch('/report')">I am human</button></body>`)
	})
	reported := make(chan struct{}, 1)
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		select {
		case reported <- struct{}{}:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	open := h.ok(t, daemon.Request{Verb: "browser.open", Session: "agent"}.With(args.OpenURL{URL: site.URL + "/check"}))
	id := open.Target.ID
	v := watchPane(t, ctx, h, id)
	at := viewportPoints(t, ctx, h, v, id)

	ch := handoffCall(h, ctx, daemon.Request{Verb: "browser.handoff", Session: "agent"}.With(args.Handoff{Reason: "pass the human check", Wait: "3m"}))
	waitNeeds(t, ctx, v, id, "pass the human check", true)
	clickSelector(t, ctx, v, ".pane .takeover")
	waitPane(t, ctx, v, id, "driven by us", func(s paneState) bool { return s.Driving })
	if err := v.ClickAt(ctx, at(180, 160)); err != nil {
		t.Fatal(err)
	}
	// The page's own report of the click, before the person hands back
	// (its DOM is read again once the agent has it back).
	select {
	case <-reported:
	case <-ctx.Done():
		t.Fatal("the person's click never reached the page")
	}
	clickSelector(t, ctx, v, ".pane .handback")
	r := answer(t, ctx, ch)
	if !r.OK || !strings.Contains(r.Did, "came back through a person (viewer-") || r.Facts["outcome"] != handoff.Back {
		t.Fatalf("the hand-off answered %+v", r)
	}
	t.Logf("the hand-off's answer: %s\n%s", r.Did, r.Text)
	if !strings.Contains(r.Text, "Verified human") {
		t.Fatalf("the diff does not show the person's change:\n%s\n%s", r.Did, r.Text)
	}
	got := h.ok(t, daemon.Request{Verb: "browser.eval", Session: "agent", Target: string(id)}.With(args.Eval{Expr: "document.getElementById('status').textContent"}))
	if !strings.Contains(string(got.Value), "Verified human") {
		t.Fatalf("the page's own DOM says %s", got.Value)
	}
	waitNeeds(t, ctx, v, id, "", false)
}
