package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// heldPage has 20 buttons; each click is counted by the page, per button.
func heldPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Held</title><script>window.hits = {}</script>`)
	for i := range 20 {
		fmt.Fprintf(&b, `<button id="b%d" onclick="window.hits[this.id] = (window.hits[this.id] || 0) + 1">Button %d</button>`, i, i)
	}
	return b.String()
}

// TestHeldNodes: a node's JS object is resolved once and held for its next
// uses, at most 16 of them per tab, the oldest released by the browser; a
// held object the page no longer has is resolved again, and the act still
// runs once; a held node removed from the page is stale_ref. The clicks
// are counted by the page's own handlers, the release by the browser.
func TestHeldNodes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, heldPage())
	}))
	t.Cleanup(srv.Close)
	tab := openAt(t, newContext(t), srv.URL)
	ctx := ctxT(t)
	s := snapshot(t, tab, false)
	button := func(i int) cdp.NodeRef { return nr(tab, find(t, s, "push button", fmt.Sprintf("Button %d", i)).Ref) }
	hits := func(id string) string {
		t.Helper()
		v, err := tab.Eval(ctx, "String(window.hits['"+id+"'] || 0)")
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	click := func(i int) {
		t.Helper()
		if err := tab.Click(ctx, button(i)); err != nil {
			t.Fatalf("click button %d: %v", i, err)
		}
	}

	click(0)
	held := tab.HeldObjects()
	if len(held) != 1 {
		t.Fatalf("after one click the tab holds %d objects, want 1", len(held))
	}
	click(0)
	if again := tab.HeldObjects(); len(again) != 1 || again[0] != held[0] {
		t.Fatalf("a second click of the same node did not use its held object: %v, then %v", held, again)
	}
	if got := hits("b0"); got != `"2"` {
		t.Fatalf("after two clicks the page counted %s", got)
	}

	// The page lets go of the held object (as when its context goes):
	// the next click resolves the node again, and clicks once.
	if err := tab.RawCall(ctx, runtime.CommandReleaseObject, &runtime.ReleaseObjectParams{ObjectID: runtime.RemoteObjectID(held[0])}, nil); err != nil {
		t.Fatal(err)
	}
	click(0)
	if got := hits("b0"); got != `"3"` {
		t.Fatalf("after a click on a lost object the page counted %s, want 3", got)
	}

	// A held node removed from the page is gone, not acted on.
	click(19)
	if _, err := tab.Eval(ctx, "document.getElementById('b19').remove()"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.NodeFacts(ctx, button(19)); target.CodeOf(err) != target.CodeStaleRef {
		t.Fatalf("a removed held node read: %v, want stale_ref", err)
	}
	if err := tab.Click(ctx, button(19)); target.CodeOf(err) != target.CodeStaleRef {
		t.Fatalf("a removed held node clicked: %v, want stale_ref", err)
	}

	// Bounded: after more nodes than it holds, the oldest is released.
	first := tab.HeldObjects()[0]
	for i := 1; i <= 17; i++ {
		click(i)
	}
	held = tab.HeldObjects()
	if len(held) != 16 {
		t.Fatalf("the tab holds %d objects, want its bound 16", len(held))
	}
	for _, h := range held {
		if h == first {
			t.Fatalf("the oldest object %s is still held", first)
		}
	}
	var res runtime.CallFunctionOnResult
	err := tab.RawCall(ctx, runtime.CommandCallFunctionOn, &runtime.CallFunctionOnParams{FunctionDeclaration: "function() { return 1 }", ObjectID: runtime.RemoteObjectID(first)}, &res)
	if err == nil || !strings.Contains(err.Error(), "Could not find object") {
		t.Fatalf("the browser still has the released object %s: %v", first, err)
	}
	for i := 1; i <= 17; i++ {
		if got := hits(fmt.Sprintf("b%d", i)); got != `"1"` {
			t.Fatalf("button %d was clicked %s times, want 1", i, got)
		}
	}
}
