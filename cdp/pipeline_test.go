package cdp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"

	"github.com/vibespace/vibespace/target"
)

// A click's pipelined move, press and release reach the page in order, as
// one click on the node with the button held only between down and up; the
// page's own event log is the oracle. A later move finds no button held.
func TestClickEventOrder(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	if _, err := tab.Eval(ctx, `window.mlog = []; for (const k of ['mousemove','mousedown','mouseup','click']) document.addEventListener(k, e => mlog.push(k + ':' + e.target.id + ':' + e.buttons), true)`); err != nil {
		t.Fatal(err)
	}
	ref := find(t, snapshot(t, tab, true), "push button", "Increment").Ref
	readLog := func() []string {
		t.Helper()
		s := evalString(t, tab, `(() => { const s = mlog.join(' '); mlog.length = 0; return s; })()`)
		if s == "" {
			return nil
		}
		return strings.Fields(s)
	}
	if err := tab.Click(ctx, nr(tab, ref)); err != nil {
		t.Fatal(err)
	}
	want := []string{"mousemove:inc:0", "mousedown:inc:1", "mouseup:inc:0", "click:inc:0"}
	if got := readLog(); !slices.Equal(got, want) {
		t.Fatalf("the page saw %v, want %v", got, want)
	}
	// Again at the same point: the page may or may not see a move there.
	if err := tab.Click(ctx, nr(tab, ref)); err != nil {
		t.Fatal(err)
	}
	if got := readLog(); !slices.Equal(got, want) && !slices.Equal(got, want[1:]) {
		t.Fatalf("second click: the page saw %v, want %v", got, want)
	}
	if n := evalInt(t, tab, "window.count || 0"); n != 2 {
		t.Fatalf("count = %d after two clicks", n)
	}
	// A plain move afterwards: the browser holds no button.
	var r struct{ X, Y float64 }
	if err := tab.EvalInto(ctx, `(() => { const b = document.getElementById('name').getBoundingClientRect(); return {X: b.left + b.width/2, Y: b.top + b.height/2}; })()`, &r); err != nil {
		t.Fatal(err)
	}
	if err := tab.Session().Call(ctx, input.CommandDispatchMouseEvent, &input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: r.X, Y: r.Y}, nil); err != nil {
		t.Fatal(err)
	}
	if got := readLog(); !slices.Equal(got, []string{"mousemove:name:0"}) {
		t.Fatalf("a move after the clicks: the page saw %v", got)
	}
}

// Fill and Type focus their field in the same round trip as the checks,
// and only when the checks pass: a refused fill or type leaves the focus
// (and the focused field's content) where it was.
func TestRefusedFillTypeKeepFocus(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	s := snapshot(t, tab, true)
	if err := typeInto(ctx, tab, find(t, s, "entry", "Keys").Ref, "abc"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		role, name string
		code       target.Code
	}{
		{"push button", "Increment", target.CodeNotEditable},
		{"push button", "Disabled button", target.CodeNotSensitive},
		{"push button", "Ghost", target.CodeNotVisible},
	} {
		ref := find(t, s, c.role, c.name).Ref
		wantCode(t, tab.Fill(ctx, nr(tab, ref), "x"), c.code)
		wantCode(t, typeInto(ctx, tab, ref, "x"), c.code)
		if got := evalString(t, tab, "document.activeElement.id"); got != "keys" {
			t.Fatalf("after a refused fill/type of %q the focus is on %q", c.name, got)
		}
	}
	if got := evalString(t, tab, "document.getElementById('keys').value"); got != "abc" {
		t.Fatalf("the focused field holds %q", got)
	}
	// A fill that passes moves the focus and replaces the content.
	if err := tab.Fill(ctx, nr(tab, find(t, s, "entry", "Name").Ref), "new"); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.activeElement.id + '=' + document.activeElement.value"); got != "name=new" {
		t.Fatalf("after fill: %s", got)
	}
}
