package atspi_test

import (
	"slices"
	"testing"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// Select on gtk3-widget-factory: a combo box's item (the combo is named by
// it afterwards), and a row of its four-column tree view (GTK declines
// Selection.SelectChild there; Table.AddRowSelection takes it: the row's
// cells are selected in a fresh walk); an unknown option is no_option.
func TestSelectWidgetFactory(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	app := launch(t, d, "gtk3-widget-factory")
	f := frameOf(t, b, app)
	s := settled(t, b, f.Object)

	_, combo := find(t, s, "combo box", "Left")
	got, err := b.Select(t.Context(), combo, []string{"Right"})
	if err != nil || !slices.Equal(got, []string{"Right"}) {
		t.Fatalf("select Right: %q %v", got, err)
	}
	_, err = b.Select(t.Context(), combo, []string{"Up"})
	wantCode(t, err, target.CodeNoOption)

	table := s.Root.Find(func(n *target.Node) bool { return n.Role == "table" })
	if table == nil {
		t.Fatalf("no table in\n%s", s.Text())
	}
	if otto := s.Root.Find(func(n *target.Node) bool { return n.Role == "table cell" && n.Name == "Otto" }); otto == nil || otto.Has("selected") {
		t.Fatalf("Otto's row before the select: %+v", otto)
	}
	to, _ := atspi.ParseKey(table.Key)
	if got, err := b.Select(t.Context(), to, []string{"Otto"}); err != nil || !slices.Equal(got, []string{"Otto"}) {
		t.Fatalf("select Otto: %q %v", got, err)
	}

	after := walk(t, b, f.Object, atspi.WalkOptions{})
	if after.Root.Find(func(n *target.Node) bool { return n.Role == "combo box" && n.Name == "Right" }) == nil {
		t.Errorf("no combo box named Right after the select:\n%s", after.Text())
	}
	for _, name := range []string{"Otto", "chaotic"} {
		n := after.Root.Find(func(n *target.Node) bool { return n.Role == "table cell" && n.Name == name })
		if n == nil || !n.Has("selected") {
			t.Errorf("the cell %q of Otto's row is not selected: %+v", name, n)
		}
	}
	if n := after.Root.Find(func(n *target.Node) bool { return n.Role == "table cell" && n.Name == "Andrea" }); n == nil || n.Has("selected") {
		t.Errorf("Andrea's row: %+v", n)
	}
}
