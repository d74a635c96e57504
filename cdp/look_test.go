package cdp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// lookSame fails unless one look of tab (cdp.Tab.Look) at node (nil:
// none) answers what its parts' own calls answer, read right after it:
// the node's facts (NodeFacts, or its refusal's code), the content's
// digest (ContentDigest, the recorded frames' too), and a watcher armed
// in the page's main document (its mark, and the watcher then answering
// from it: WatchTold).
func lookSame(t *testing.T, ctx context.Context, tab *cdp.Tab, what string, node *cdp.NodeRef) cdp.Look {
	t.Helper()
	l := tab.Look(ctx, cdp.LookFor{Node: node, Digest: true, Arm: 3 * time.Second})
	if node != nil {
		facts, err := tab.NodeFacts(ctx, *node)
		if target.CodeOf(err) != target.CodeOf(l.FactsErr) || (err == nil) != (l.FactsErr == nil) || facts != l.Facts {
			t.Errorf("%s: the look read the node %+v (%v), NodeFacts %+v (%v)", what, l.Facts, l.FactsErr, facts, err)
		}
	}
	digest, err := tab.ContentDigest(ctx)
	if err != nil || l.DigestErr != nil || digest != l.Digest {
		t.Errorf("%s: the look digested %q (%v), ContentDigest %q (%v)", what, l.Digest, l.DigestErr, digest, err)
	}
	if l.ArmErr != nil || l.Mark == 0 {
		t.Fatalf("%s: the look armed no watcher: mark %d, %v", what, l.Mark, l.ArmErr)
	}
	told, err := tab.WatchTold(ctx, l.Mark, 0, true)
	if err != nil || told.Gone {
		t.Errorf("%s: the watcher the look armed answers %+v, %v", what, told, err)
	}
	return l
}

// TestLookSameAsItsParts: one look (one call in the page where the node is
// the main frame's) answers what the node's read, the digest and the
// watcher's arming answer each on their own — on a node of the main
// frame, of a same-origin frame and of a cross-site one (the digest and
// the watcher the main document's, the frames' digests after it), after
// the page changed, for a node removed from the page (stale_ref, the rest
// still read), after the tab navigated (the ref's document gone: the
// digest and the watcher the new document's), with no node, and where
// the page's script makes the digest throw (the node still read).
func TestLookSameAsItsParts(t *testing.T) {
	t.Parallel()
	site := newFrameSite(t)
	tab := openAt(t, newContext(t), site.URL+"/frames")
	ctx := ctxT(t)
	s := framesLoaded(t, tab)
	main := nr(tab, find(t, s, "push button", "Main button").Ref)
	l := lookSame(t, ctx, tab, "main frame", &main)
	if l.Facts.Role != "push button" || l.Facts.Name != "Main button" || l.Facts.Tag != "button" {
		t.Errorf("the look read the main frame's button as %+v", l.Facts)
	}
	for _, f := range []string{"same", "cross"} {
		button := nr(tab, find(t, s, "push button", "Press "+f).Ref)
		l := lookSame(t, ctx, tab, f+" frame", &button)
		if l.Facts.Name != "Press "+f {
			t.Errorf("%s frame: the look read %+v", f, l.Facts)
		}
		before := l.Digest
		if err := tab.Click(ctx, button); err != nil {
			t.Fatal(err)
		}
		// The frame's own text, read on a road other than the digest's.
		for !containsText(t, tab, "pressed "+f) {
			select {
			case <-ctx.Done():
				t.Fatalf("%s frame: the click never changed the frame's text", f)
			case <-time.After(20 * time.Millisecond):
			}
		}
		if l := lookSame(t, ctx, tab, f+" frame, pressed", &button); l.Digest == before {
			t.Errorf("%s frame: the look's digest %s did not change with the frame's text", f, before)
		}
	}
	lookSame(t, ctx, tab, "no node", nil)

	// A node removed from the page: stale_ref, and the rest read.
	if _, err := tab.Eval(ctx, "document.querySelector('button').remove()"); err != nil {
		t.Fatal(err)
	}
	if l := lookSame(t, ctx, tab, "removed node", &main); target.CodeOf(l.FactsErr) != target.CodeStaleRef {
		t.Errorf("a removed node's look: %v, want stale_ref", l.FactsErr)
	}

	// The page's script breaks the digest: the node is still read.
	other := nr(tab, find(t, s, "heading", "Frames").Ref)
	if _, err := tab.Eval(ctx, "document.querySelectorAll = () => { throw new Error('no') }"); err != nil {
		t.Fatal(err)
	}
	l = tab.Look(ctx, cdp.LookFor{Node: &other, Digest: true})
	if _, err := tab.ContentDigest(ctx); target.CodeOf(err) != target.CodeScriptError || target.CodeOf(l.DigestErr) != target.CodeScriptError {
		t.Errorf("a digest that throws: ContentDigest %v, the look %v; want script_error", err, l.DigestErr)
	}
	if l.FactsErr != nil || l.Facts.Name != "Frames" {
		t.Errorf("beside a digest that threw the look read the node %+v, %v", l.Facts, l.FactsErr)
	}

	// The tab navigated: the ref's document is gone.
	if err := tab.Navigate(ctx, site.URL+"/act?f=next"); err != nil {
		t.Fatal(err)
	}
	if l := lookSame(t, ctx, tab, "navigated", &other); target.CodeOf(l.FactsErr) != target.CodeStaleRef {
		t.Errorf("a look at a node of the document left: %v, want stale_ref", l.FactsErr)
	}
	if !containsText(t, tab, "idle next") {
		t.Fatal("the tab did not show the next page")
	}
}

// containsText reports whether the page's text (a snapshot's) holds s.
func containsText(t *testing.T, tab *cdp.Tab, s string) bool {
	t.Helper()
	return strings.Contains(snapshot(t, tab, false).Text(), s)
}

// TestWatchAnswersFromAnyMark: what the page's watcher answers from a
// mark is the same whether or not it was asked in between (the look after
// an act asks it, and the verifier takes the answer only where it would
// have asked): a text that changed twice is one change from the mark
// before both, its text then and now, and from the mark of an answer
// between them, its text then and now.
func TestWatchAnswersFromAnyMark(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Marks</title><p id="a">one</p><p id="b">idle</p>`)
	}))
	t.Cleanup(srv.Close)
	tab := openAt(t, newContext(t), srv.URL)
	ctx := ctxT(t)
	set := func(id, text string) {
		t.Helper()
		if _, err := tab.Eval(ctx, fmt.Sprintf("document.getElementById(%q).textContent = %q", id, text)); err != nil {
			t.Fatal(err)
		}
	}
	ask := func(mark uint64) cdp.Told {
		t.Helper()
		told, err := tab.WatchTold(ctx, mark, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		return told
	}
	words := func(told cdp.Told) string {
		var b strings.Builder
		for _, c := range told.Changes {
			fmt.Fprintf(&b, "%s %s %q→%q; ", c.Node, c.What, c.From, c.To)
		}
		return b.String()
	}
	var fromStart [2]string
	for i, between := range []bool{false, true} {
		set("a", "one")
		set("b", "idle")
		l := tab.Look(ctx, cdp.LookFor{Arm: 3 * time.Second})
		if l.ArmErr != nil {
			t.Fatal(l.ArmErr)
		}
		set("a", "two")
		var mid cdp.Told
		if between {
			mid = tab.Look(ctx, cdp.LookFor{Told: l.Mark}).Told
			if got, want := words(mid), `p#a text "one"→"two"; `; got != want {
				t.Errorf("asked between: %s, want %s", got, want)
			}
		}
		set("a", "three")
		set("b", "busy")
		fromStart[i] = words(ask(l.Mark))
		if between {
			if got, want := words(ask(mid.Mark)), `p#a text "two"→"three"; p#b text "idle"→"busy"; `; got != want {
				t.Errorf("from the answer between: %s, want %s", got, want)
			}
		}
		if _, err := tab.WatchTold(ctx, l.Mark, 0, true); err != nil {
			t.Fatal(err)
		}
	}
	if want := `p#a text "one"→"three"; p#b text "idle"→"busy"; `; fromStart[0] != want || fromStart[1] != fromStart[0] {
		t.Errorf("from the mark before the changes: %s without an answer between, %s with one; want %s", fromStart[0], fromStart[1], want)
	}
}
