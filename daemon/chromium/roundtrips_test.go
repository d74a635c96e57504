package chromium

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// The CDP commands one browser verb sends, through the whole daemon (its
// road decided, its node read, the verifier's looks, the act), on
// roundTripPage. A change that asks the browser once more changes a
// number here: it is seen, and said in its commit.
//
// Counted in this order on one tab; a ref's first use resolves it to its
// DOM node (Runtime.callFunctionOn, DOM.describeNode,
// Runtime.releaseObject: 3), later uses do not. A node's JS object is
// resolved (DOM.resolveNode) at its first use and held for the next
// (cdp's heldNodes). A node read (kind.NodeReader) is
// Accessibility.getPartialAXTree and Runtime.callFunctionOn (2); a look
// of the effect check is a node read, Target.getTargetInfo (title, URL)
// and Runtime.evaluate (the content's digest): 4.
const (
	// open of an address in the session's tab: Page.navigate,
	// Target.getTargetInfo.
	openCalls = 2
	// snapshot of a freshly loaded page: Page.createIsolatedWorld (the
	// walk's world, once per document), Runtime.evaluate (the walk),
	// DOMDebugger.getEventListeners, DOM.resolveNode,
	// Runtime.callFunctionOn, Runtime.releaseObjectGroup (the clickable
	// nodes' listeners).
	snapshotCalls = 6
	// snapshot -i: the same in the world made already.
	snapshotICalls = 5
	// click @ref (first use of the ref), --no-verify: the ref resolved
	// (3), DOM.resolveNode, Runtime.callFunctionOn (scrolled into view,
	// its point hit-tested; the node's object is held for the next use:
	// no Runtime.releaseObject), Input.dispatchMouseEvent ×3 (move, press,
	// release). Before: 13, the node read (4) only to name it in the
	// answer (it is named from the session's snapshot now), then 9, the
	// object released after each use.
	clickCallsNoVerify = 8
	// click @ref (ref known) with the check, on a button that changes the
	// page: the look before (4: Accessibility.getPartialAXTree and
	// Runtime.callFunctionOn on the node's held object, the title and
	// address, the content), the page's watcher armed (Runtime.evaluate,
	// 1), the act (4: the probe, the mouse), one look after (4), and the
	// watcher asked what changed, to name it (Runtime.evaluate, 1).
	// Before the watcher: 18; then 20, every use of the node resolving
	// and releasing it (2 more each).
	clickCalls = 14
	// click @ref (first use) on a button that changes nothing: the ref
	// (3), the look before (5: the node resolved and held, then as
	// above), the watcher armed (1), the act (4), a look at once (4), one
	// Runtime.evaluate waiting for the watcher's word (a change, or
	// quiet: nothing the act started still pending), and a last look
	// then (4). Before: about 63, a look every 50 ms (the count varied
	// with the machine's speed); then 28, before the watcher (its wait
	// was the sign of change's); then 29, before the node's object was
	// held.
	clickIdleCalls = 22
	// fill @ref (first use), --no-verify: the ref (3), DOM.resolveNode,
	// Runtime.callFunctionOn (its facts, the checks, focused with its text
	// selected, the text inserted, its value read back: cdp's fillJS).
	// Before: 15 (the field's facts, its focus, the insertion and the
	// read-back were four calls and two resolves), then 10 (a node read,
	// 4, only to name it: named from the snapshot now), then 6 (the
	// object released after use).
	fillCallsNoVerify = 5
	// fill @ref with the check: the look before (4, the node's object
	// held), the watcher armed (1), the fill (1), one look after (4),
	// which sees the field's own value change (no question to the
	// watcher). Before: 20, then 15 before the watcher, then 16 before
	// the node's object was held (each use resolved and released it).
	fillCalls = 10
	// select @ref (first use), --no-verify: the ref (3), the node read
	// (3: DOM.resolveNode, the node's object then held), Runtime.callFunctionOn,
	// Runtime.callFunctionOn (the options chosen, the choice read back).
	// Before: 11, the object resolved and released for each use.
	selectCallsNoVerify = 8
	// select @ref with the check: the node read for the road (2, its
	// object held), which the look before takes (2 more: the title and
	// address, the content), the watcher armed (1), the act (2), one look
	// after (4). Before the watcher: 20; then 21, the look before reading
	// the node again (4); then 17 before the node's object was held.
	selectCalls = 11
	// get title: Target.getTargetInfo.
	getTitleCalls = 1
	// screenshot: Page.captureScreenshot.
	screenshotCalls = 1
)

// roundTripPage is the page the budgets are counted on: a field, a button
// whose click writes the page (at once, in its handler), a select, and a
// button that changes nothing.
const roundTripPage = `<!doctype html>
<html><head><title>Round trips</title></head>
<body>
<h1>Round trips</h1>
<label>Name <input id="name" type="text"></label>
<button id="inc" onclick="document.getElementById('count').textContent = String(++window.clicks)">Increment</button>
<p id="count">0</p>
<label>Colour <select id="colour"><option>Red</option><option>Green</option><option>Blue</option></select></label>
<button id="idle">Nothing</button>
<script>window.clicks = 0</script>
</body></html>`

// cdpLog records the methods of the CDP commands the pool sends.
type cdpLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *cdpLog) add(method string) {
	l.mu.Lock()
	l.methods = append(l.methods, method)
	l.mu.Unlock()
}

// since is the methods sent after the first n.
func (l *cdpLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.methods[n:])
}

func (l *cdpLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.methods)
}

// TestBrowserRoundTrips counts the CDP commands of each browser verb on a
// tab, driven through a served daemon as vibespace-browser drives it, with
// the effect check on (the default) and off (--no-verify), verifies each
// effect in the page's own DOM, and holds the counts to the budgets above.
func TestBrowserRoundTrips(t *testing.T) {
	var log cdpLog
	mux := http.NewServeMux()
	mux.HandleFunc("/rt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, roundTripPage)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	// The daemon's own wait and poll: what an agent gets.
	h := startHarness(t, "", Options{Calls: log.add}, nil)
	const session = "rt"
	req := func(verb string) daemon.Request { return daemon.Request{Verb: "browser." + verb, Session: session} }
	eval := func(expr string) string {
		t.Helper()
		return string(h.ok(t, req("eval").With(args.Eval{Expr: expr})).Value)
	}
	count := func(what string, r daemon.Request, budget int) daemon.Response {
		t.Helper()
		from := log.len()
		resp := h.ok(t, r)
		got := log.since(from)
		eff := ""
		if resp.Effect != nil {
			eff = " → " + string(resp.Effect.Word)
		}
		t.Logf("%s: %d CDP commands%s: %s", what, len(got), eff, strings.Join(got, " "))
		if len(got) != budget {
			t.Errorf("%s sent %d CDP commands, its budget is %d: a change of the budget is said where it is set", what, len(got), budget)
		}
		return resp
	}
	// The first open starts the browser and its context: not counted.
	h.ok(t, req("open").With(args.OpenURL{URL: site.URL + "/rt"}))
	count("open", req("open").With(args.OpenURL{URL: site.URL + "/rt?again"}), openCalls)
	if got := eval("location.search + ' ' + window.clicks"); got != `"?again 0"` {
		t.Fatalf("after open the page says %s", got)
	}
	full := count("snapshot", req("snapshot"), snapshotCalls)
	if !strings.Contains(full.Text, `heading "Round trips"`) {
		t.Fatalf("snapshot:\n%s", full.Text)
	}
	si := req("snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	si.JSON = true // the tree to find refs in: the same commands as the text
	snap := count("snapshot -i", si, snapshotICalls).Snapshot
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

	count("click @ref --no-verify", req("click").With(args.Click{Ref: inc, NoVerify: true}), clickCallsNoVerify)
	if got := eval("document.getElementById('count').textContent"); got != `"1"` {
		t.Fatalf("after one click the count reads %s", got)
	}
	wantEffect(count("click @ref", req("click").With(args.Click{Ref: inc}), clickCalls), target.EffectConfirmed)
	if got := eval("document.getElementById('count').textContent"); got != `"2"` {
		t.Fatalf("after two clicks the count reads %s", got)
	}
	wantEffect(count("click @ref (no change)", req("click").With(args.Click{Ref: idle}), clickIdleCalls), target.EffectNoVisibleChange)

	count("fill @ref --no-verify", req("fill").With(args.Fill{Ref: name, Text: "hello", NoVerify: true}), fillCallsNoVerify)
	if got := eval("document.getElementById('name').value"); got != `"hello"` {
		t.Fatalf("after fill the field holds %s", got)
	}
	wantEffect(count("fill @ref", req("fill").With(args.Fill{Ref: name, Text: "world"}), fillCalls), target.EffectConfirmed)
	if got := eval("document.getElementById('name').value"); got != `"world"` {
		t.Fatalf("after fill the field holds %s", got)
	}

	count("select @ref --no-verify", req("select").With(args.Select{Ref: colour, Options: []string{"Green"}, NoVerify: true}), selectCallsNoVerify)
	if got := eval("document.getElementById('colour').value"); got != `"Green"` {
		t.Fatalf("after select the select holds %s", got)
	}
	wantEffect(count("select @ref", req("select").With(args.Select{Ref: colour, Options: []string{"Blue"}}), selectCalls), target.EffectConfirmed)
	if got := eval("document.getElementById('colour').value"); got != `"Blue"` {
		t.Fatalf("after select the select holds %s", got)
	}

	title := count("get title", req("get").With(args.Get{What: "title"}), getTitleCalls)
	if want := eval("document.title"); fmt.Sprintf("%q", title.Text) != want {
		b, _ := json.Marshal(title)
		t.Fatalf("get title answered %s; the page's title is %s", b, want)
	}
	shot := count("screenshot", req("screenshot"), screenshotCalls)
	img, err := png.DecodeConfig(bytes.NewReader(shot.PNG))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	if want := eval("[innerWidth * devicePixelRatio, innerHeight * devicePixelRatio].join('x')"); fmt.Sprintf(`"%dx%d"`, img.Width, img.Height) != want {
		t.Fatalf("the screenshot is %dx%d, the page's viewport %s", img.Width, img.Height, want)
	}
}
