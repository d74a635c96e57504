package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"strings"
	"testing"
	"time"

	proto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/storage"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// TestBrowserEphemeralEndToEnd drives a page through the daemon's verbs in
// a session's own context: every effect is checked by what the page
// reported to the test's server, or read back through CDP directly.
func TestBrowserEphemeralEndToEnd(t *testing.T) {
	h := startHarness(t, "", Options{}, nil)
	s := newSite(t)
	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "alice"} }

	// Nothing open yet: a page verb says to open first.
	wantCode(t, h.call(t, a("browser.snapshot")), target.CodeNoTab)

	req := a("browser.open").With(args.OpenURL{URL: s.URL + "/page"})
	open := h.ok(t, req)
	if open.Target == nil || open.Target.ID.Kind() != target.KindTab || open.Target.Title != "Daemon test page" {
		t.Fatalf("open answered target %+v", open.Target)
	}
	if open.Profile == nil || !open.Profile.Ephemeral {
		t.Fatalf("open answered profile %+v, want the session's own ephemeral context", open.Profile)
	}
	tabID := open.Target.ID

	snap := h.ok(t, a("browser.snapshot"))
	// The answer names the tab and its title once, in its target; the
	// text's header keeps the counts.
	if snap.Profile == nil || !snap.Profile.Ephemeral || snap.Target == nil || snap.Target.ID != tabID || snap.Target.Title != "Daemon test page" ||
		!strings.HasPrefix(snap.Text, "# ") || strings.Contains(firstLine(snap.Text), "Daemon test page") || strings.Contains(firstLine(snap.Text), string(tabID)) {
		t.Fatalf("snapshot answer does not name the profile (%+v) and the tab once (target %+v):\n%s", snap.Profile, snap.Target, head(snap.Text))
	}
	inc := findRef(t, snap.Text, "push button", "Increment")
	doomed := findRef(t, snap.Text, "push button", "Remove me")
	name := findRef(t, snap.Text, "entry", "Name")
	keys := findRef(t, snap.Text, "entry", "Keys")

	// An unchanged page keeps its refs.
	snap2 := h.ok(t, a("browser.snapshot"))
	if findRef(t, snap2.Text, "push button", "Increment") != inc || findRef(t, snap2.Text, "push button", "Remove me") != doomed {
		t.Fatalf("refs moved across two snapshots of an unchanged page")
	}
	js := a("browser.snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	js.JSON = true
	if r := h.ok(t, js); r.Snapshot == nil || !r.Snapshot.Interactive || r.Snapshot.Target != string(tabID) {
		t.Fatalf("snapshot -i --json: %+v", r.Snapshot)
	}

	click := a("browser.click").With(args.Click{Ref: inc})
	if r := h.ok(t, click); r.By != target.RoadPoint {
		t.Fatalf("click went by %q", r.By)
	}
	s.waitSeen(t, "clicked")

	fill := a("browser.fill").With(args.Fill{Ref: name, Text: "Ada Lovelace"})
	h.ok(t, fill)
	// Fill is an input event; the page reports on change, which Tab makes.
	key := a("browser.key").With(args.Key{Chord: "Tab"})
	h.ok(t, key)
	s.waitSeen(t, "name:Ada Lovelace")

	typ := a("browser.type").With(args.Type{Ref: keys, Text: "hello"})
	h.ok(t, typ)
	key = key.With(args.Key{Chord: "Return"})
	h.ok(t, key)
	s.waitSeen(t, "enter:hello")

	// The audit never carries typed or filled text.
	audit := readFile(t, h.dir, "audit.jsonl")
	if strings.Contains(audit, "Ada Lovelace") || strings.Contains(audit, "hello") {
		t.Fatalf("the audit carries typed text:\n%s", audit)
	}
	if !strings.Contains(audit, `"browser.fill"`) {
		t.Fatalf("the audit has no browser.fill line:\n%s", audit)
	}

	get := a("browser.get").With(args.Get{What: "title"})
	if r := h.ok(t, get); r.Text != "Daemon test page" {
		t.Fatalf("get title %q", r.Text)
	}
	get = get.With(args.Get{What: "url"})
	if r := h.ok(t, get); r.URL != s.URL+"/page" {
		t.Fatalf("get url %q", r.URL)
	}
	ev := a("browser.eval").With(args.Eval{Expr: "document.getElementById('name').value.length + 1"})
	if r := h.ok(t, ev); string(r.Value) != "13" {
		t.Fatalf("eval answered %s", r.Value)
	}
	ev = ev.With(args.Eval{Expr: "(() => { throw new Error('boom') })()"})
	wantCode(t, h.call(t, ev), target.CodeScriptError)

	shot := h.ok(t, a("browser.screenshot"))
	cfg, err := png.DecodeConfig(bytes.NewReader(shot.PNG))
	if err != nil || shot.Bounds == nil || cfg.Width != shot.Bounds.W || cfg.Width == 0 {
		t.Fatalf("screenshot: %v bounds %+v", err, shot.Bounds)
	}

	scroll := a("browser.scroll").With(args.Scroll{Direction: "down"})
	h.ok(t, scroll)
	waitEval(t, h, "alice", "window.scrollY > 0")

	// A node removed by the page: its ref is stale, never a guess.
	ev = ev.With(args.Eval{Expr: "document.getElementById('doomed').remove(), true"})
	h.ok(t, ev)
	click = click.With(args.Click{Ref: doomed})
	wantCode(t, h.call(t, click), target.CodeStaleRef)

	// list shows the tab to its owner, with the tab's capabilities.
	l := h.ok(t, a("list"))
	if len(l.Targets) != 1 || l.Targets[0].ID != tabID || len(l.Targets[0].Capabilities) == 0 {
		t.Fatalf("list: %+v", l.Targets)
	}

	// back / forward / reload / wait.
	req = req.With(args.OpenURL{URL: s.URL + "/echo"})
	h.ok(t, req)
	h.ok(t, a("browser.back"))
	if r := h.ok(t, get); r.URL != s.URL+"/page" {
		t.Fatalf("after back the tab is at %q", r.URL)
	}
	h.ok(t, a("browser.forward"))
	h.ok(t, a("browser.reload"))
	w := a("browser.wait").With(args.Wait{Selector: "#c"})
	h.ok(t, w)

	// tab new / list / select / close.
	tn := a("browser.tab").With(args.Tab{Action: "new", URL: s.URL + "/page"})
	second := h.ok(t, tn).Target.ID
	tl := a("browser.tab").With(args.Tab{Action: "list"})
	if r := h.ok(t, tl); len(r.Targets) != 2 {
		t.Fatalf("tab list: %+v", r.Targets)
	}
	sel := a("browser.tab").With(args.Tab{Action: "select"})
	sel.Target = string(tabID)
	h.ok(t, sel)
	get = get.With(args.Get{What: "url"})
	if r := h.ok(t, get); r.URL != s.URL+"/echo" {
		t.Fatalf("after select the current tab is at %q", r.URL)
	}
	cl := a("browser.tab").With(args.Tab{Action: "close"})
	cl.Target = string(second)
	h.ok(t, cl)
	sel.Target = string(second)
	wantCode(t, h.call(t, sel), target.CodeTabGone)
}

// TestBrowserSessionsIsolated: two sessions share no cookies, see none of
// each other's tabs, and cannot reach them (not_your_tab).
func TestBrowserSessionsIsolated(t *testing.T) {
	h := startHarness(t, "", Options{}, nil)
	s := newSite(t)
	open := func(session, url string) daemon.Response {
		return h.ok(t, daemon.Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: url}))
	}
	eval := func(session, expr string) string {
		return string(h.ok(t, daemon.Request{Verb: "browser.eval", Session: session}.With(args.Eval{Expr: expr})).Value)
	}
	ta := open("alice", s.URL+"/page").Target.ID
	tb := open("bob", s.URL+"/page").Target.ID
	eval("alice", "document.cookie = 'secret=alice-only; path=/', true")
	if got := eval("alice", "document.cookie"); got != `"secret=alice-only"` {
		t.Fatalf("alice's own cookie reads %s", got)
	}
	if got := eval("bob", "document.cookie"); got != `""` {
		t.Fatalf("bob's page sees cookies %s", got)
	}
	// The server sees what each context sends.
	open("bob", s.URL+"/echo")
	if got := eval("bob", "document.getElementById('c').textContent"); got != `"cookies: "` {
		t.Fatalf("bob's context sent %s", got)
	}
	open("alice", s.URL+"/echo")
	if got := eval("alice", "document.getElementById('c').textContent"); got != `"cookies: secret=alice-only"` {
		t.Fatalf("alice's context sent %s", got)
	}
	// And CDP itself, asked per browser context outside the daemon.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	h.pool.mu.Lock()
	conn := h.pool.browsers[""].b.Conn()
	ca, cb := h.pool.contexts["alice"].ID(), h.pool.contexts["bob"].ID()
	h.pool.mu.Unlock()
	cookies := func(id string) []string {
		res, err := proto.Call(ctx, conn, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: proto.BrowserContextID(id)})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range res.Cookies {
			out = append(out, c.Name+"="+c.Value)
		}
		return out
	}
	if got := cookies(ca); len(got) != 1 || got[0] != "secret=alice-only" {
		t.Fatalf("alice's context holds cookies %v", got)
	}
	if got := cookies(cb); len(got) != 0 {
		t.Fatalf("bob's context holds cookies %v", got)
	}

	// Tabs: each sees only its own; the other's id is not_your_tab.
	for _, c := range []struct {
		session string
		mine    target.ID
		theirs  target.ID
	}{{"alice", ta, tb}, {"bob", tb, ta}} {
		r := h.ok(t, daemon.Request{Verb: "browser.tab", Session: c.session}.With(args.Tab{Action: "list"}))
		if len(r.Targets) != 1 || r.Targets[0].ID != c.mine {
			t.Fatalf("%s's tab list: %+v", c.session, r.Targets)
		}
		if l := h.ok(t, daemon.Request{Verb: "list", Session: c.session}); len(l.Targets) != 1 || l.Targets[0].ID != c.mine {
			t.Fatalf("%s's list: %+v", c.session, l.Targets)
		}
		for _, action := range []string{"select", "close"} {
			resp := h.call(t, daemon.Request{Verb: "browser.tab", Session: c.session, Target: string(c.theirs)}.With(args.Tab{Action: action}))
			wantCode(t, resp, target.CodeNotYourTab)
			if strings.Contains(resp.Message, "Echo") || strings.Contains(resp.Message, s.URL) {
				t.Fatalf("not_your_tab tells about the other tab: %s", resp.Message)
			}
		}
	}
	// The other session's tab is still there.
	if got := eval("bob", "document.title"); got != `"Echo"` {
		t.Fatalf("bob's tab after alice's attempts: %s", got)
	}
}

// waitEval polls an expression through the daemon until it is true.
func waitEval(t *testing.T, h *harness, session, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		r := h.ok(t, daemon.Request{Verb: "browser.eval", Session: session}.With(args.Eval{Expr: expr}))
		var ok bool
		if json.Unmarshal(r.Value, &ok) == nil && ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never became true", expr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// firstLine is a text's first line.
func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func head(s string) string {
	lines := strings.SplitN(s, "\n", 6)
	return strings.Join(lines[:min(len(lines), 5)], "\n")
}
