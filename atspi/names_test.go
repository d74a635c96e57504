package atspi_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// controlsFixture is the fixture with its controls column (a labelled
// entry and slider, a progress bar, a combo box, a notebook, a grid).
func controlsFixture(t *testing.T, d *testenv.Desktop) *testenv.Fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchFixture(ctx, d, "--controls")
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	t.Cleanup(func() { f.Stop() })
	return f
}

// An entry and a slider that have no name of their own but a label that
// labels them (GTK's mnemonic widget: AT-SPI's LABELLED_BY) are named by
// their labels; the slider and the progress bar carry their values.
func TestNamesFromLabelsAndValues(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	f := controlsFixture(t, d)
	s := settled(t, b, frameOf(t, b, f.App).Object)
	entry, _ := find(t, s, "text", "Email")
	if !entry.Implements("EditableText") {
		t.Errorf("the Email entry: %+v", entry)
	}
	slider, _ := find(t, s, "slider", "Volume")
	if v := slider.Value; v == nil || v.Current != 42 || v.Min != 0 || v.Max != 100 {
		t.Errorf("the Volume slider's value %+v, want 42 of 0–100", slider.Value)
	}
	progress, _ := find(t, s, "progress bar", "Progress")
	if v := progress.Value; v == nil || v.Current < 0.29 || v.Current > 0.31 || v.Max != 1 {
		t.Errorf("the progress bar's value %+v, want 0.3 of 0–1", progress.Value)
	}
	iv := s.InteractiveView().Text()
	if !regexp.MustCompile(`(?m)^  slider "Volume" \S+ =42 \(0–100\)$`).MatchString(iv) ||
		!regexp.MustCompile(`(?m)^  text "Email" `).MatchString(iv) {
		t.Errorf("the interactive view lacks the named slider with its value or the named entry:\n%s", iv)
	}
	// The same through a walk of the entry alone (the label outside it:
	// its name is asked after the walk).
	_, eo := find(t, s, "text", "Email")
	one, err := b.Node(t.Context(), eo)
	if err != nil {
		t.Fatal(err)
	}
	if one.Name != "Email" {
		t.Errorf("the entry read alone is named %q, want Email", one.Name)
	}
}

// GTK 3's boolean tree-view cells give their actions' descriptions as
// their names ("Expands or contracts the row in the tree view containing
// this cell", on every row): the walk names them as the cells beside them
// do.
func TestActionSentencesNamed(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	app := launch(t, d, "gtk3-widget-factory")
	s := settled(t, b, frameOf(t, b, app).Object)
	cells := 0
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Role != "table cell" {
			return true
		}
		cells++
		for _, a := range n.Actions {
			if strings.Count(a, " ") >= 3 {
				t.Errorf("a cell's action is a sentence: %q (all: %q)", a, n.Actions)
			}
		}
		if len(n.Actions) == 4 && (n.Actions[0] != "Toggle" || n.Actions[1] != "Expand or contract" || n.Actions[2] != "Edit" || n.Actions[3] != "Activate") {
			t.Errorf("the toggle cell's actions %q", n.Actions)
		}
		return true
	})
	if cells == 0 {
		t.Fatalf("no table cells in\n%s", s.Text())
	}
}
