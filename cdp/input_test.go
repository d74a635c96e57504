package cdp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// evalInt reads a number the page itself keeps.
func evalInt(t *testing.T, tab *cdp.Tab, expr string) int {
	t.Helper()
	var n int
	if err := tab.EvalInto(ctxT(t), expr, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func evalString(t *testing.T, tab *cdp.Tab, expr string) string {
	t.Helper()
	var s string
	if err := tab.EvalInto(ctxT(t), expr, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// A click on a button runs the page's own handler: its counter goes up by
// one per click.
func TestClickButton(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	ref := find(t, snapshot(t, tab, true), "push button", "Increment").Ref
	for range 2 {
		if err := tab.Click(ctx, nr(tab, ref)); err != nil {
			t.Fatal(err)
		}
	}
	if n := evalInt(t, tab, "window.count || 0"); n != 2 {
		t.Fatalf("count = %d after two clicks", n)
	}
	// A checkbox toggles.
	if err := tab.Click(ctx, nr(tab, find(t, snapshot(t, tab, true), "check box", "I agree").Ref)); err != nil {
		t.Fatal(err)
	}
	var checked bool
	if err := tab.EvalInto(ctx, "document.getElementById('agree').checked", &checked); err != nil || !checked {
		t.Fatalf("checkbox checked = %v (%v)", checked, err)
	}
	if n := find(t, snapshot(t, tab, false), "check box", "I agree"); !n.Has("checked") {
		t.Fatalf("snapshot states after the click: %v", n.States)
	}
}

// A node below the fold is scrolled into view and clicked.
func TestClickScrollsIntoView(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	if err := tab.Click(ctxT(t), nr(tab, find(t, snapshot(t, tab, true), "push button", "Far below").Ref)); err != nil {
		t.Fatal(err)
	}
	if n := evalInt(t, tab, "window.farClicks || 0"); n != 1 {
		t.Fatalf("far = %d", n)
	}
}

// A button under another element, a disabled one and an invisible one are
// refused by code, and nothing is clicked.
func TestClickRefusals(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	s := snapshot(t, tab, true)
	err := tab.Click(ctx, nr(tab, find(t, s, "push button", "Under the overlay").Ref))
	wantCode(t, err, target.CodeCovered)
	if r, _ := target.AsRefusal(err); r.Facts["by"] != "div#overlay" {
		t.Errorf("covered by %v, want div#overlay", r.Facts["by"])
	}
	if n := evalInt(t, tab, "window.underClicks || 0"); n != 0 {
		t.Fatal("the covered button was clicked")
	}
	wantCode(t, tab.Click(ctx, nr(tab, find(t, s, "push button", "Disabled button").Ref)), target.CodeNotSensitive)
	wantCode(t, tab.Click(ctx, nr(tab, find(t, s, "push button", "Ghost").Ref)), target.CodeNotVisible)
	wantCode(t, tab.Fill(ctx, nr(tab, find(t, s, "push button", "Increment").Ref), "x"), target.CodeNotEditable)
}

// Fill replaces a field's content; the page's DOM reads it back.
func TestFill(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	s := snapshot(t, tab, true)
	name := find(t, s, "entry", "Name").Ref
	for _, v := range []string{"first", "Grüße, wörld ✓", ""} {
		if err := tab.Fill(ctx, nr(tab, name), v); err != nil {
			t.Fatal(err)
		}
		if got := evalString(t, tab, "document.getElementById('name').value"); got != v {
			t.Fatalf("after fill %q the field holds %q", v, got)
		}
	}
	notes := find(t, s, "entry", "Notes").Ref
	if err := tab.Fill(ctx, nr(tab, notes), "line 1\nline 2"); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.querySelector('textarea').value"); got != "line 1\nline 2" {
		t.Fatalf("textarea holds %q", got)
	}
	if err := tab.Fill(ctx, nr(tab, name), "shown"); err != nil {
		t.Fatal(err)
	}
	if n := find(t, snapshot(t, tab, false), "entry", "Name"); n.Text != "shown" {
		t.Fatalf("snapshot text of Name = %q", n.Text)
	}
}

// Type presses keys: the page sees a keydown per character. Then ctrl+a and
// BackSpace empty the field, verified through the DOM.
func TestTypeAndChord(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	if _, err := tab.Eval(ctx, `window.downs = 0; document.getElementById('keys').addEventListener('keydown', () => window.downs++)`); err != nil {
		t.Fatal(err)
	}
	keys := find(t, snapshot(t, tab, true), "entry", "Keys").Ref
	if err := typeInto(ctx, tab, keys, "Hello, W!"); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.getElementById('keys').value"); got != "Hello, W!" {
		t.Fatalf("typed field holds %q", got)
	}
	if n := evalInt(t, tab, "window.downs"); n != len("Hello, W!") {
		t.Fatalf("%d keydowns for %d characters", n, len("Hello, W!"))
	}
	if err := typeInto(ctx, tab, keys, " more"); err != nil { // appends at the end
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.getElementById('keys').value"); got != "Hello, W! more" {
		t.Fatalf("field holds %q", got)
	}
	for _, k := range []string{"ctrl+a", "BackSpace"} {
		c, err := target.ParseChord(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Key(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if got := evalString(t, tab, "document.getElementById('keys').value"); got != "" {
		t.Fatalf("after ctrl+a, BackSpace the field holds %q", got)
	}
	// shift+Tab moves focus back to the Notes field.
	c, _ := target.ParseChord("shift+Tab")
	if err := tab.Key(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.activeElement.tagName"); got != "TEXTAREA" {
		t.Fatalf("focus after shift+Tab: %s", got)
	}
}

// A cancelled Type stops between keys and reports the cancellation.
func TestTypeCancelled(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx, cancel := context.WithCancel(ctxT(t))
	keys := find(t, snapshot(t, tab, true), "entry", "Keys").Ref
	cancel()
	err := typeInto(ctx, tab, keys, "never typed")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := evalString(t, tab, "document.getElementById('keys').value"); got != "" {
		t.Fatalf("a cancelled Type typed %q", got)
	}
}

// A takeover cancels a long Type in flight: it stops between keys, reports
// the cancellation, and types nothing more afterwards.
func TestTypeCancelledMidway(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	keys := find(t, snapshot(t, tab, true), "entry", "Keys").Ref
	long := strings.Repeat("abcdefghij", 100)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- typeInto(tctx, tab, keys, long) }()
	// Wait (in the page, bounded by ctx) until some keys have arrived.
	if _, err := tab.Eval(ctx, `new Promise(r => { const f = () => document.getElementById('keys').value.length >= 5 ? r() : setTimeout(f, 5); f(); })`); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Type returned %v, want context.Canceled", err)
	}
	n1 := len(evalString(t, tab, "document.getElementById('keys').value"))
	if n1 == 0 || n1 >= len(long) {
		t.Fatalf("%d of %d characters typed before the cancel", n1, len(long))
	}
	// One more round trip through the page's event loop: nothing more came.
	if _, err := tab.Eval(ctx, `new Promise(r => setTimeout(r, 0))`); err != nil {
		t.Fatal(err)
	}
	if n2 := len(evalString(t, tab, "document.getElementById('keys').value")); n2 != n1 {
		t.Fatalf("typing went on after the cancel: %d then %d characters", n1, n2)
	}
}

// FillValue fills a text field in one call (cdp's fillJS) as a paste
// does: the page sees input events of inputType insertText and no key,
// the field holds the text (a textarea its lines), and an empty text
// empties it; the DOM is the oracle.
func TestFillValueAsAPaste(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	s := snapshot(t, tab, true)
	name, notes := find(t, s, "entry", "Name").Ref, find(t, s, "entry", "Notes").Ref
	var none string
	if err := tab.EvalInto(ctx, `window.seen = []; const n = document.getElementById('name');
		for (const k of ['keydown', 'input']) n.addEventListener(k, (e) => window.seen.push(k + ':' + (e.inputType || e.key) + ':' + e.isTrusted)); ''`, &none); err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"first", "Grüße, wörld ✓", ""} {
		if err := tab.FillValue(ctx, nr(tab, name), v); err != nil {
			t.Fatalf("fill %q: %v", v, err)
		}
		if got := evalString(t, tab, "document.getElementById('name').value"); got != v {
			t.Fatalf("after fill %q the field holds %q", v, got)
		}
		if i == 1 { // two pastes: one trusted input event each, no key
			if got := evalString(t, tab, "window.seen.join(' ')"); got != "input:insertText:true input:insertText:true" {
				t.Fatalf("the page saw %q", got)
			}
		}
	}
	if err := tab.FillValue(ctx, nr(tab, notes), "line 1\nline 2"); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.querySelector('textarea').value"); got != "line 1\nline 2" {
		t.Fatalf("textarea holds %q", got)
	}
}
