package daemontest

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// RoundTripPage is the page a browser's round-trip budgets are counted
// on: a field, a button whose click writes the page (at once, in its
// handler), a select, a button that changes nothing, and a tall end to
// scroll by.
const RoundTripPage = `<!doctype html>
<html><head><title>Round trips</title></head>
<body>
<h1>Round trips</h1>
<label>Name <input id="name" type="text"></label>
<button id="inc" onclick="document.getElementById('count').textContent = String(++window.clicks)">Increment</button>
<p id="count">0</p>
<label>Colour <select id="colour"><option>Red</option><option>Green</option><option>Blue</option></select></label>
<button id="idle">Nothing</button>
<div style="height: 3000px"></div>
<script>window.clicks = 0</script>
</body></html>`

// Budgets are the commands each verb of RoundTrips may cost, in its
// order; each browser's test sets and explains its own.
type Budgets struct {
	Open, Snapshot, SnapshotI                  int
	ClickNoVerify, Click, ClickIdle            int
	FillNoVerify, Fill, SelectNoVerify, Select int
	TypeNoVerify, KeyNoVerify, ScrollNoVerify  int
	GetTitle, Screenshot                       int
}

// RoundTrips drives session's tab of s through every browser verb on
// RoundTripPage, as vibespace-browser drives it, with the effect check on
// (the default) and off (--no-verify), counts the commands each costs
// (log, the pool's Calls), holds them to b, and verifies each effect in
// the page's own DOM (eval in the page). The session's first open (its
// browser, its context) is not counted.
func RoundTrips(t *testing.T, s *Served, log *Calls, session string, b Budgets) {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, RoundTripPage)
	}))
	t.Cleanup(site.Close)
	req := func(verb string) daemon.Request { return daemon.Request{Verb: "browser." + verb, Session: session} }
	page := func(what, expr, want string) {
		t.Helper()
		if got, ok := s.WaitEval(t, session, expr, want); !ok {
			t.Fatalf("after %s the page says %s, want %s", what, got, want)
		}
	}
	count := func(what string, r daemon.Request, budget int, word target.EffectWord) daemon.Response {
		t.Helper()
		resp := log.Count(t, s, what, r, budget)
		if word != "" && (resp.Effect == nil || resp.Effect.Word != word) {
			t.Fatalf("%s answered effect %+v, want %s", resp.Did, resp.Effect, word)
		}
		return resp
	}
	s.OK(t, req("open").With(args.OpenURL{URL: site.URL + "/rt"}))
	count("open", req("open").With(args.OpenURL{URL: site.URL + "/rt?again"}), b.Open, "")
	page("open", "location.search + ' ' + window.clicks", `"?again 0"`)
	full := count("snapshot", req("snapshot"), b.Snapshot, "")
	if !strings.Contains(full.Text, `heading "Round trips"`) {
		t.Fatalf("snapshot:\n%s", full.Text)
	}
	si := req("snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	si.JSON = true // the tree to find refs in: the same commands as the text
	snap := count("snapshot -i", si, b.SnapshotI, "").Snapshot
	ref := func(role, name string) string {
		t.Helper()
		n := snap.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name && n.Ref != "" })
		if n == nil {
			t.Fatalf("no %s %q with a ref in:\n%s", role, name, snap.Text())
		}
		return n.Ref
	}
	inc, idle, name, colour := ref("push button", "Increment"), ref("push button", "Nothing"), ref("entry", "Name"), ref("combo box", "Colour")
	byID := func(id, prop string) string { return fmt.Sprintf("document.getElementById(%q).%s", id, prop) }

	count("click @ref --no-verify", req("click").With(args.Click{Ref: inc, NoVerify: true}), b.ClickNoVerify, "")
	page("one click", byID("count", "textContent"), `"1"`)
	count("click @ref", req("click").With(args.Click{Ref: inc}), b.Click, target.EffectConfirmed)
	page("two clicks", byID("count", "textContent"), `"2"`)
	count("click @ref (no change)", req("click").With(args.Click{Ref: idle}), b.ClickIdle, target.EffectNoVisibleChange)
	page("the idle click", byID("count", "textContent")+" + ' ' + window.clicks", `"2 2"`)

	count("fill @ref --no-verify", req("fill").With(args.Fill{Ref: name, Text: "hello", NoVerify: true}), b.FillNoVerify, "")
	page("fill", byID("name", "value"), `"hello"`)
	count("fill @ref", req("fill").With(args.Fill{Ref: name, Text: "world"}), b.Fill, target.EffectConfirmed)
	page("fill", byID("name", "value"), `"world"`)

	count("select @ref --no-verify", req("select").With(args.Select{Ref: colour, Options: []string{"Green"}, NoVerify: true}), b.SelectNoVerify, "")
	page("select", byID("colour", "value"), `"Green"`)
	count("select @ref", req("select").With(args.Select{Ref: colour, Options: []string{"Blue"}}), b.Select, target.EffectConfirmed)
	page("select", byID("colour", "value"), `"Blue"`)

	count("type @ref --no-verify", req("type").With(args.Type{Ref: name, Text: "!?", NoVerify: true}), b.TypeNoVerify, "")
	page("type", byID("name", "value")+" + ' ' + document.activeElement.id", `"world!? name"`)
	count("key --no-verify", req("key").With(args.Key{Chord: "Tab", NoVerify: true}), b.KeyNoVerify, "")
	page("Tab", "document.activeElement.id", `"inc"`)
	count("scroll --no-verify", req("scroll").With(args.Scroll{Direction: "down", NoVerify: true}), b.ScrollNoVerify, "")
	page("scroll", "scrollY > 0", "true")

	title := count("get title", req("get").With(args.Get{What: "title"}), b.GetTitle, "")
	page("get title", "document.title", fmt.Sprintf("%q", title.Text))
	shot := count("screenshot", req("screenshot"), b.Screenshot, "")
	img, err := png.DecodeConfig(bytes.NewReader(shot.PNG))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	page("screenshot", "[innerWidth * devicePixelRatio, innerHeight * devicePixelRatio].join('x')", fmt.Sprintf(`"%dx%d"`, img.Width, img.Height))
}

// WaitEval evaluates expr in session's tab until it answers want (its
// JSON), for up to 10 s: what a page does after an act returns (a wheel's
// scroll, a navigation's load) is waited for, a little. It answers the
// last answer and whether it was want.
func (s *Served) WaitEval(t *testing.T, session, expr, want string) (string, bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := string(s.OK(t, daemon.Request{Verb: "browser.eval", Session: session}.With(args.Eval{Expr: expr})).Value)
		if got == want || time.Now().After(deadline) {
			return got, got == want
		}
		select {
		case <-t.Context().Done():
			return got, false
		case <-time.After(50 * time.Millisecond):
		}
	}
}
