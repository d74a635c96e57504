package firefox_test

import (
	"bytes"
	"fmt"
	"image/png"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// The BiDi commands one verb sends on a Firefox tab, through the whole
// daemon (its road decided, its node read, the verifier's looks, the
// act), on roundTripPage. A change that asks the browser once more
// changes a number here: it is seen, and said in its commit.
//
// Counted in this order on one tab. Every verb starts with the tab's
// facts (Tab.Info: one script.evaluate in the sandbox, its address and
// title from one document): "the info" below, 1. A node read
// (kind.NodeReader) is one script.callFunction in the sandbox, on the
// walk's handle; a look of the effect check is a node read, the info and
// script.evaluate (the content's digest, in the sandbox): 3.
const (
	// open: the info, browsingContext.navigate, the info again (the
	// answer's title and address). Before: 5, the info two commands
	// (browsingContext.getTree, the title).
	ffOpenCalls = 3
	// snapshot: the info, script.callFunction (the walk, in the sandbox).
	ffSnapshotCalls = 2
	// snapshot -i: the same.
	ffSnapshotICalls = 2
	// click @ref, --no-verify: the info, script.callFunction (scrolled
	// into view, its point hit-tested), input.performActions (move,
	// press, release).
	ffClickCallsNoVerify = 3
	// click @ref with the check, on a button that changes the page: the
	// info, the look before (3) with the page's watcher armed beside it
	// (script.evaluate in the page, 1), the act (2), one look after (3),
	// and the watcher asked what changed, to name it (script.evaluate,
	// 1). Before the watcher: a look every 50 ms to the wait's end (a
	// screenshot each); then 14, the info two commands.
	ffClickCalls = 11
	// click @ref on a button that changes nothing: the info, the look
	// before (3), the watcher armed (1), the act (2), a look at once (3),
	// one script.evaluate waiting for the watcher's word (a change, or
	// quiet: nothing the act started still pending), and a last look
	// then (3). Before: 18, the info two commands.
	ffClickIdleCalls = 14
	// fill @ref, --no-verify: the info, script.callFunction (focused,
	// its text selected, the text inserted, its value read back).
	ffFillCallsNoVerify = 2
	// fill @ref with the check: the info, the look before (3), the
	// watcher armed (1), the fill (1), one look after (3), which sees the
	// field's own value change (no question to the watcher). Before: 12.
	ffFillCalls = 9
	// select @ref, --no-verify: the info, then cdp.SelectOn's page
	// functions, each a script.callFunction (3).
	ffSelectCallsNoVerify = 4
	// type @ref, --no-verify: the info, the focus (script.callFunction),
	// the keys (input.performActions).
	ffTypeCallsNoVerify = 3
	// key, --no-verify: the info, input.performActions.
	ffKeyCallsNoVerify = 2
	// scroll, --no-verify: the info, the viewport's size
	// (script.callFunction), input.performActions (the wheel).
	ffScrollCallsNoVerify = 3
	// get title: the info, and the title read again (script.evaluate).
	ffGetTitleCalls = 2
	// screenshot: the info, browsingContext.captureScreenshot.
	ffScreenshotCalls = 2
)

// roundTripPage is the page the budgets are counted on (the Chromium
// tab's, daemon/chromium's roundtrips_test.go, and a tall end to scroll
// by): a field, a button whose click writes the page (at once, in its
// handler), a select, and a button that changes nothing.
const roundTripPage = `<!doctype html>
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

// bidiLog records the methods of the BiDi commands the pool sends.
type bidiLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *bidiLog) add(method string) {
	l.mu.Lock()
	l.methods = append(l.methods, method)
	l.mu.Unlock()
}

func (l *bidiLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.methods[n:])
}

func (l *bidiLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.methods)
}

// served is a daemon with Firefox beside Chromium as the program runs
// them (Firefox's commands counted into log when it is set), and a
// session on each: "fx" uses a profile of provider firefox, "ch" the
// daemon's own Chromium. Firefox is started outside every call.
func served(t *testing.T, log *bidiLog) *daemontest.Served {
	t.Helper()
	testenv.NeedIntegration(t, "firefox-esr", "chromium")
	dir := t.TempDir()
	o := firefox.Options{StartTimeout: 2 * time.Minute}
	if log != nil {
		o.Calls = log.add
	}
	ch := chromium.New(chromium.Options{StartTimeout: 90 * time.Second})
	ff := firefox.NewPool(o)
	br := firefox.Beside(ch, ff)
	t.Cleanup(func() { br.Close() })
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{native.Xvfb(native.Options{})}, Browser: br, VerbTimeout: 2 * time.Minute})
	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "fx"} }
	id := sv.OK(t, a("browser.new").With(args.New{Label: "rt", Provider: provider.Firefox})).Profile.ID
	sv.OK(t, a("browser.use").With(args.Use{Label: id}))
	if err := ff.Start(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	return sv
}

// TestFirefoxRoundTrips counts the BiDi commands of each verb on a
// Firefox tab, driven through a served daemon as vibespace-browser drives
// it, with the effect check on (the default) and off (--no-verify),
// verifies each effect in the page's own DOM (eval in the page), and
// holds the counts to the budgets above.
func TestFirefoxRoundTrips(t *testing.T) {
	var log bidiLog
	sv := served(t, &log)
	s := newSite(t, map[string]string{"/rt": roundTripPage})
	req := func(verb string) daemon.Request { return daemon.Request{Verb: "browser." + verb, Session: "fx"} }
	eval := func(expr string) string {
		t.Helper()
		return string(sv.OK(t, req("eval").With(args.Eval{Expr: expr})).Value)
	}
	count := func(what string, r daemon.Request, budget int) daemon.Response {
		t.Helper()
		from := log.len()
		resp := sv.OK(t, r)
		got := log.since(from)
		eff := ""
		if resp.Effect != nil {
			eff = " → " + string(resp.Effect.Word)
		}
		t.Logf("%s: %d BiDi commands%s: %s", what, len(got), eff, strings.Join(got, " "))
		if len(got) != budget {
			t.Errorf("%s sent %d BiDi commands, its budget is %d: a change of the budget is said where it is set", what, len(got), budget)
		}
		return resp
	}
	// The first open makes the session's user context and tab: not counted.
	sv.OK(t, req("open").With(args.OpenURL{URL: s.URL + "/rt"}))
	count("open", req("open").With(args.OpenURL{URL: s.URL + "/rt?again"}), ffOpenCalls)
	if got := eval("location.search + ' ' + window.clicks"); got != `"?again 0"` {
		t.Fatalf("after open the page says %s", got)
	}
	full := count("snapshot", req("snapshot"), ffSnapshotCalls)
	if !strings.Contains(full.Text, `heading "Round trips"`) {
		t.Fatalf("snapshot:\n%s", full.Text)
	}
	si := req("snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	si.JSON = true
	snap := count("snapshot -i", si, ffSnapshotICalls).Snapshot
	ref := func(role, name string) string {
		t.Helper()
		n := snap.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name && n.Ref != "" })
		if n == nil {
			t.Fatalf("no %s %q with a ref in:\n%s", role, name, snap.Text())
		}
		return n.Ref
	}
	inc, idle, name, colour := ref("push button", "Increment"), ref("push button", "Nothing"), ref("entry", "Name"), ref("combo box", "Colour")
	wantEffect := func(resp daemon.Response, word target.EffectWord) {
		t.Helper()
		if resp.Effect == nil || resp.Effect.Word != word {
			t.Fatalf("%s answered effect %+v, want %s", resp.Did, resp.Effect, word)
		}
	}

	count("click @ref --no-verify", req("click").With(args.Click{Ref: inc, NoVerify: true}), ffClickCallsNoVerify)
	if got := eval("document.getElementById('count').textContent"); got != `"1"` {
		t.Fatalf("after one click the count reads %s", got)
	}
	wantEffect(count("click @ref", req("click").With(args.Click{Ref: inc}), ffClickCalls), target.EffectConfirmed)
	if got := eval("document.getElementById('count').textContent"); got != `"2"` {
		t.Fatalf("after two clicks the count reads %s", got)
	}
	wantEffect(count("click @ref (no change)", req("click").With(args.Click{Ref: idle}), ffClickIdleCalls), target.EffectNoVisibleChange)
	if got := eval("document.getElementById('count').textContent + ' ' + window.clicks"); got != `"2 2"` {
		t.Fatalf("after the idle click the page says %s", got)
	}

	count("fill @ref --no-verify", req("fill").With(args.Fill{Ref: name, Text: "hello", NoVerify: true}), ffFillCallsNoVerify)
	if got := eval("document.getElementById('name').value"); got != `"hello"` {
		t.Fatalf("after fill the field holds %s", got)
	}
	wantEffect(count("fill @ref", req("fill").With(args.Fill{Ref: name, Text: "world"}), ffFillCalls), target.EffectConfirmed)
	if got := eval("document.getElementById('name').value"); got != `"world"` {
		t.Fatalf("after fill the field holds %s", got)
	}

	count("select @ref --no-verify", req("select").With(args.Select{Ref: colour, Options: []string{"Green"}, NoVerify: true}), ffSelectCallsNoVerify)
	if got := eval("document.getElementById('colour').value"); got != `"Green"` {
		t.Fatalf("after select the select holds %s", got)
	}

	count("type @ref --no-verify", req("type").With(args.Type{Ref: name, Text: "!?", NoVerify: true}), ffTypeCallsNoVerify)
	if got := eval("document.getElementById('name').value + ' ' + document.activeElement.id"); got != `"world!? name"` {
		t.Fatalf("after type the page says %s", got)
	}
	count("key --no-verify", req("key").With(args.Key{Chord: "Tab", NoVerify: true}), ffKeyCallsNoVerify)
	if got := eval("document.activeElement.id"); got != `"inc"` {
		t.Fatalf("after Tab the focus is on %s", got)
	}
	count("scroll --no-verify", req("scroll").With(args.Scroll{Direction: "down", NoVerify: true}), ffScrollCallsNoVerify)
	waitEval(t, eval, "scrollY > 0", "true")

	title := count("get title", req("get").With(args.Get{What: "title"}), ffGetTitleCalls)
	if want := eval("document.title"); fmt.Sprintf("%q", title.Text) != want {
		t.Fatalf("get title answered %q; the page's title is %s", title.Text, want)
	}
	shot := count("screenshot", req("screenshot"), ffScreenshotCalls)
	img, err := png.DecodeConfig(bytes.NewReader(shot.PNG))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	if want := eval("[innerWidth * devicePixelRatio, innerHeight * devicePixelRatio].join('x')"); fmt.Sprintf(`"%dx%d"`, img.Width, img.Height) != want {
		t.Fatalf("the screenshot is %dx%d, the page's viewport %s", img.Width, img.Height, want)
	}
}

// waitEval evaluates expr until it answers want (a scroll's wheel event
// is handled by the page after the action returns), for up to 10 s.
func waitEval(t *testing.T, eval func(string) string, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := eval(expr)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s answered %s, want %s", expr, got, want)
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
