package atspi_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// fixtureTree starts a fixture and walks its window, refs assigned.
func fixtureTree(t *testing.T) (*atspi.Bus, *testenv.Fixture, *target.Snapshot, *target.RefTable) {
	t.Helper()
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	f := fixture(t, d)
	fr := frameOf(t, b, f.App)
	settled(t, b, fr.Object)
	g := f.Window.Geometry
	s, got, err := b.WindowSnapshot(t.Context(), atspi.WindowHint{PID: f.PID, Title: f.Window.Title, Bounds: target.Rect{X: g.X, Y: g.Y, W: g.Width, H: g.Height}}, atspi.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Object != fr.Object || s.Title != "vibespace fixture" {
		t.Fatalf("WindowSnapshot walked %v %q, want %v", got.Object, s.Title, fr.Object)
	}
	refs := target.NewRefTable()
	refs.Assign(s)
	return b, f, s, refs
}

// objectOf resolves a ref the way a verb does: ref → key → object.
func objectOf(t *testing.T, refs *target.RefTable, ref string) atspi.Object {
	t.Helper()
	key, err := refs.Key(ref)
	if err != nil {
		t.Fatal(err)
	}
	o, err := atspi.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func waitLog(t *testing.T, f *testenv.Fixture, from int, what string, match func(testenv.Event) bool) testenv.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	e, err := f.Log.WaitFrom(ctx, from, match)
	if err != nil {
		t.Fatalf("the fixture never logged %s: %v", what, err)
	}
	return e
}

func TestClickThroughRef(t *testing.T) {
	b, f, s, refs := fixtureTree(t)
	t.Logf("the fixture, interactive view:\n%s", s.InteractiveView().Text())
	alpha, _ := find(t, s, "push button", "Alpha")
	from := f.Log.Len()
	done, err := b.DoAction(t.Context(), objectOf(t, refs, alpha.Ref), "")
	if err != nil {
		t.Fatal(err)
	}
	if done != "click" {
		t.Errorf("did %q, want click", done)
	}
	waitLog(t, f, from, "the click on alpha", func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" })

	check, _ := find(t, s, "check box", "Check me")
	from = f.Log.Len()
	if _, err := b.DoAction(t.Context(), objectOf(t, refs, check.Ref), "click"); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f, from, "the check box toggled", func(e testenv.Event) bool { return e.Type == "toggled" && e.Widget == "check" && e.Active })

	beta, _ := find(t, s, "push button", "Beta")
	from = f.Log.Len()
	if err := b.GrabFocus(t.Context(), objectOf(t, refs, beta.Ref)); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f, from, "the focus on beta", func(e testenv.Event) bool { return e.Type == "focus" && e.Widget == "beta" })
}

func TestSetTextReadsBack(t *testing.T) {
	b, f, s, refs := fixtureTree(t)
	entry, _ := find(t, s, "text", "Name")
	o := objectOf(t, refs, entry.Ref)
	const want = "héllo, wörld — 42"
	from := f.Log.Len()
	if err := b.SetText(t.Context(), o, want); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f, from, "the text", func(e testenv.Event) bool { return e.Type == "text" && e.Widget == "entry" && e.Text == want })
	got, err := b.GetText(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("read back %q, want %q", got, want)
	}

	from = f.Log.Len()
	if err := b.InsertText(t.Context(), o, -1, "!"); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f, from, "the inserted text", func(e testenv.Event) bool { return e.Type == "text" && e.Widget == "entry" && e.Text == want+"!" })

	notes, _ := find(t, s, "text", "Notes")
	if err := b.SetText(t.Context(), objectOf(t, refs, notes.Ref), "line one\nline two"); err != nil {
		t.Fatal(err)
	}
	if got, err := b.GetText(t.Context(), objectOf(t, refs, notes.Ref)); err != nil || got != "line one\nline two" {
		t.Errorf("notes read back %q, %v", got, err)
	}
}

func TestRefusals(t *testing.T) {
	b, f, s, refs := fixtureTree(t)
	ctx := t.Context()
	from := f.Log.Len()

	area, _ := find(t, s, "panel", "Press area")
	_, err := b.DoAction(ctx, objectOf(t, refs, area.Ref), "")
	wantCode(t, err, target.CodeNoAction)
	if r, _ := target.AsRefusal(err); r.Facts["interfaces"] == nil {
		t.Errorf("no_action does not name the interfaces: %v", err)
	}
	t.Logf("press area: %v", err)
	// One code for one fact: no Text is no_text, no focus is no_focus.
	_, err = b.GetText(ctx, objectOf(t, refs, area.Ref))
	wantCode(t, err, target.CodeNoText)
	wantCode(t, b.GrabFocus(ctx, objectOf(t, refs, area.Ref)), target.CodeNoFocus)

	disabled, _ := find(t, s, "text", "Disabled")
	wantCode(t, b.SetText(ctx, objectOf(t, refs, disabled.Ref), "x"), target.CodeNotSensitive)
	wantCode(t, b.InsertText(ctx, objectOf(t, refs, disabled.Ref), 0, "x"), target.CodeNotSensitive)

	alpha, _ := find(t, s, "push button", "Alpha")
	wantCode(t, b.SetText(ctx, objectOf(t, refs, alpha.Ref), "x"), target.CodeNoEditableText)
	_, err = b.DoAction(ctx, objectOf(t, refs, alpha.Ref), "fly")
	wantCode(t, err, target.CodeNoAction)

	_, err = refs.Key("@e99999") // never minted
	wantCode(t, err, target.CodeBadRef)
	_, err = refs.Key("e1x")
	wantCode(t, err, target.CodeBadRef)

	// Nothing of the above reached the application.
	evs, err := f.Log.Events()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs[from:] {
		if e.Widget == "noaction" || e.Widget == "disabled-entry" || e.Widget == "alpha" {
			t.Errorf("a refused verb reached the app: %v", e)
		}
	}
}

// A ref to a dialog that was closed is stale_ref, not a guess.
func TestClosedDialogIsStale(t *testing.T) {
	b, f, s, refs := fixtureTree(t)
	ctx := t.Context()
	open, _ := find(t, s, "push button", "Open dialog")
	from := f.Log.Len()
	if _, err := b.DoAction(ctx, objectOf(t, refs, open.Ref), ""); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f, from, "the dialog opening", func(e testenv.Event) bool { return e.Type == "dialog" && e.Text == "opened" })

	app, err := b.AppByPID(ctx, f.PID)
	if err != nil {
		t.Fatal(err)
	}
	var dialog *target.Snapshot
	frames, err := b.Frames(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range frames {
		if fr.Name == "Fixture dialog" {
			dialog = walk(t, b, fr.Object, atspi.WalkOptions{})
		}
	}
	if dialog == nil {
		t.Fatalf("no dialog among %+v", frames)
	}
	// Two windows showing, and a hint that fits neither: no_frame (the
	// application is there; the window has no accessible frame).
	_, err = b.FindFrame(ctx, atspi.WindowHint{PID: f.PID, Title: "no such window", Bounds: target.Rect{X: -9000, Y: -9000, W: 10, H: 10}})
	wantCode(t, err, target.CodeNoFrame)
	refs.Assign(dialog)
	closeBtn, _ := find(t, dialog, "push button", "Close")
	from = f.Log.Len()
	if _, err := b.DoAction(ctx, objectOf(t, refs, closeBtn.Ref), ""); err != nil {
		t.Fatal(err)
	}
	waitLog(t, f, from, "the dialog closing", func(e testenv.Event) bool { return e.Type == "dialog" && e.Text == "closed" })

	_, err = b.DoAction(ctx, objectOf(t, refs, closeBtn.Ref), "")
	wantCode(t, err, target.CodeStaleRef)
	_, err = b.GetText(ctx, objectOf(t, refs, dialog.Root.Ref))
	wantCode(t, err, target.CodeStaleRef)
	t.Logf("closed dialog: %v", err)
}
