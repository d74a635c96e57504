package main_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestVerifyWindow: a click on a window's node says what it saw — the check
// box's state change (confirmed), a dialog that opened (changed_elsewhere,
// naming it), a scroll (confirmed: its scroll bar's value, told by an
// AT-SPI event), nothing (no_visible_change, for a button whose handler
// only logs) — and the same action that saw nothing three times in a row is
// refused no_progress the fourth, until another action. The fixture's log
// confirms every click arrived.
func TestVerifyWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	check := node(t, snap, "check box", "Check me").Ref
	alpha := node(t, snap, "push button", "Alpha").Ref
	beta := node(t, snap, "push button", "Beta").Ref
	open := node(t, snap, "push button", "Open dialog").Ref

	from := log.Len()
	out := e.OK("s1", "click", id, check)
	if !strings.Contains(out, `clicked `+check+` (check box "Check me") through its Action → confirmed: unchecked → checked`) {
		t.Fatalf("click the check box answered:\n%s", out)
	}
	wait(t, log, from, "the check box toggled on", func(ev testenv.Event) bool {
		return ev.Type == "toggled" && ev.Widget == "check" && ev.Active
	})

	// The point road sees the window's pixels around the point: a press
	// on an area that draws nothing new changed nothing; the list scrolled.
	from = log.Len()
	effectOf(t, e.Answer("s1", "click", id, "--at", e.Centre(t, "s1", id, snap.Root.Find(func(n *target.Node) bool { return n.Name == "Press area" && !n.Implements("Action") }))), target.EffectNoVisibleChange)
	wait(t, log, from, "the press on the area", func(ev testenv.Event) bool { return ev.Type == "button" && ev.Widget == "noaction" })
	from = log.Len()
	rows := *snap.Root.Find(func(n *target.Node) bool { return n.Name == "Rows" })
	b := *rows.Bounds
	// The list is taller than its scroller: its top rows are in view, their
	// labels at its left.
	b.W, b.H = 80, 60
	rows.Bounds = &b
	// The scroll bar the list scrolled by tells its value changed (an
	// AT-SPI event): a change of a node of the window is confirmed (before
	// the window's events were heard, the pixels that changed said it:
	// changed_elsewhere).
	eff := effectOf(t, e.Answer("s1", "scroll", id, "down", "--by", "5", "--at", e.Centre(t, "s1", id, &rows)), target.EffectConfirmed)
	if !slices.ContainsFunc(eff.Seen, func(s string) bool { return strings.HasSuffix(s, " scroll bar: value changed") }) {
		t.Fatalf("scroll saw %q", eff.Seen)
	}
	wait(t, log, from, "the list scrolled", func(ev testenv.Event) bool { return ev.Type == "scroll" && ev.Widget == "list" })

	for range 3 {
		from = log.Len()
		effectOf(t, e.Answer("s1", "click", id, alpha), target.EffectNoVisibleChange)
		wait(t, log, from, "click alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	}
	from = log.Len()
	r := e.Refused("no_progress", "s1", "click", id, alpha)
	if !strings.Contains(r.Errout, "another action") {
		t.Fatalf("no_progress says:\n%s", r.Errout)
	}
	// Another action starts the count over.
	effectOf(t, e.Answer("s1", "click", id, beta), target.EffectNoVisibleChange)
	effectOf(t, e.Answer("s1", "click", id, alpha), target.EffectNoVisibleChange)
	wait(t, log, from, "click beta, then alpha again", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })

	from = log.Len()
	resp := e.Answer("s1", "click", id, open)
	eff = effectOf(t, resp, target.EffectChangedElsewhere)
	if !slices.ContainsFunc(eff.Seen, func(s string) bool {
		return strings.HasPrefix(s, "new window win:") && strings.HasSuffix(s, `"Fixture dialog"`)
	}) {
		t.Fatalf("click Open dialog saw %q", eff.Seen)
	}
	wait(t, log, from, "the dialog opened", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "open-dialog" })

	// type through EditableText: the node's text grew.
	from = log.Len()
	entry := node(t, snap, "text", "Name").Ref
	eff = effectOf(t, e.Answer("s1", "type", id, entry, "hi"), target.EffectConfirmed)
	if !slices.Contains(eff.Seen, "text: 0 → 2 characters") {
		t.Fatalf("type saw %q", eff.Seen)
	}
	wait(t, log, from, "the entry took the text", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "entry" && ev.Text == "hi" })

	// --no-verify: nothing is watched.
	if eff := effectOf(t, e.Answer("s1", "click", id, check, "--no-verify"), target.EffectUnverifiable); eff.Why != "verification off" {
		t.Fatalf("--no-verify: why %q", eff.Why)
	}
}
