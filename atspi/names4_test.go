package atspi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestNamesGTK4 walks the names fixture (names4.py), whose widgets GTK
// 4.8 names badly, and checks the names an agent reads: a calculator's
// keys named once ("1", not "1 1") and a button really named "1 1" kept
// so; no node named by its class (GtkButton, GtkImage, GtkTextView…); an
// icon button named by its tooltip, and saying so; an empty text view
// unnamed, its text empty. A read of one key alone (what an act answers
// with) names it as the walk did, and acting on the nodes named so lands:
// the fixture's own log says which widget was clicked.
func TestNamesGTK4(t *testing.T) {
	d := testenv.SharedDesktop(t)
	testenv.NeedIntegration(t, systemPython)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	f, err := testenv.LaunchNamesFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Stop() })
	b := connect(t, d, atspi.Options{})
	fr := frameOf(t, b, f.App)
	s := settled(t, b, fr.Object)

	s.Root.Walk(func(n *target.Node, _ int) bool {
		if strings.HasPrefix(n.Name, "Gtk") || strings.HasPrefix(n.Name, "__main__") {
			t.Errorf("%s named by its class %q", n.Role, n.Name)
		}
		return true
	})
	buttons := map[string]int{}
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Role == "push button" {
			buttons[n.Name]++
		}
		return true
	})
	for _, key := range []string{"1", "2", "="} {
		if buttons[key] != 1 {
			t.Errorf("%d push buttons named %q: %v\n%s", buttons[key], key, buttons, s.Text())
		}
	}
	if buttons["1 1"] != 1 || buttons["2 2"] != 0 || buttons["= ="] != 0 {
		t.Errorf("the doubled names, or the one real \"1 1\": %v\n%s", buttons, s.Text())
	}
	if buttons[""] == 0 {
		t.Errorf("the icon menu button, which has no name, has one: %v\n%s", buttons, s.Text())
	}
	undo, undoObj := find(t, s, "push button", "Undo last step")
	if undo.NameFrom != target.NameFromTooltip || !strings.Contains(s.Text(), `push button "Undo last step" (tooltip)`) {
		t.Errorf("the icon button's name does not say it is its tooltip: %+v\n%s", undo, s.Text())
	}
	view := s.Root.Find(func(n *target.Node) bool { return n.Role == "text" && n.Implements("EditableText") })
	if view == nil || view.Name != "" || view.Text != "" {
		t.Fatalf("the empty text view: %+v\n%s", view, s.Text())
	}
	viewObj, _ := atspi.ParseKey(view.Key)
	if n, err := b.Node(ctx, viewObj); err != nil || n.Name != "" {
		t.Errorf("the text view read alone: %+v, %v", n, err)
	}
	if text, err := b.GetText(ctx, viewObj); err != nil || text != "" {
		t.Errorf("the empty text view's text: %q, %v", text, err)
	}
	if got, _ := target.NodeText(view); got != "" {
		t.Errorf("get text of the empty view answers %q", got)
	}

	// The key read alone is named as the walk named it, and clicking it
	// is the key: the fixture logs it, and its display shows it.
	_, one := find(t, s, "push button", "1")
	n, err := b.Node(ctx, one)
	if err != nil || n.Name != "1" {
		t.Fatalf("key 1 read alone: %+v, %v", n, err)
	}
	from := f.Log.Len()
	if _, err := b.DoActionOn(ctx, one, n, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" && e.Widget == "display" && e.Text == "1" }); err != nil {
		t.Fatalf("the click on key 1: %v", err)
	}
	_, oneOne := find(t, s, "push button", "1 1")
	from = f.Log.Len()
	if _, err := b.DoAction(ctx, oneOne, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "one-one" }); err != nil {
		t.Fatalf("the click on \"1 1\": %v", err)
	}
	from = f.Log.Len()
	if _, err := b.DoAction(ctx, undoObj, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "undo" }); err != nil {
		t.Fatalf("the click on the undo button: %v", err)
	}
}
