package atspi_test

import (
	"slices"
	"testing"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

func box(name string, x, y, w, h int) *target.Node {
	return &target.Node{Name: name, Bounds: &target.Rect{X: x, Y: y, W: w, H: h}}
}

func names(ns []*target.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}

func TestReadingOrderRules(t *testing.T) {
	for _, c := range []struct {
		name string
		kids []*target.Node
		want []string
	}{
		{"a column bottom to top", []*target.Node{box("c", 0, 60, 50, 20), box("b", 0, 30, 50, 20), box("a", 0, 0, 50, 20)}, []string{"a", "b", "c"}},
		{"a grid: rows, each left to right", []*target.Node{
			box("r2", 100, 30, 50, 20), box("r1", 100, 0, 50, 20), box("l2", 0, 30, 50, 20), box("l1", 0, 0, 50, 20),
		}, []string{"l1", "r1", "l2", "r2"}},
		{"a row with uneven tops stays", []*target.Node{box("a", 0, 4, 50, 30), box("b", 60, 0, 50, 38), box("c", 120, 6, 50, 20)}, []string{"a", "b", "c"}},
		{"a right-to-left row", []*target.Node{box("c", 120, 0, 50, 20), box("a", 0, 0, 50, 20), box("b", 60, 0, 50, 20)}, []string{"a", "b", "c"}},
		{"undrawn nodes keep their places", []*target.Node{
			box("b", 0, 30, 50, 20), {Name: "hidden"}, box("a", 0, 0, 50, 20), box("off", -2147483648, -2147483648, 1, 1),
		}, []string{"a", "hidden", "b", "off"}},
		{"in order: untouched", []*target.Node{box("a", 0, 0, 50, 20), box("b", 0, 30, 50, 20)}, []string{"a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := &target.Node{Children: c.kids}
			atspi.ReadingOrder(root)
			if got := names(root.Children); !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// GTK 3 lists a grid's children last attached first, in GetChildren order
// and by index in parent alike: the fixture's grid of One, Two, Three
// (attached top to bottom) and gtk3-widget-factory's check boxes come
// bottom to top. In reading order they come top to bottom, as they are
// drawn.
func TestReadingOrderOfGrids(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	f := controlsFixture(t, d)
	s := settled(t, b, frameOf(t, b, f.App).Object)
	checks := func(s *target.Snapshot, name string) (out []*target.Node) {
		s.Root.Walk(func(n *target.Node, _ int) bool {
			if n.Role == "check box" && (name == "" || n.Name == name) && n.Bounds != nil {
				out = append(out, n)
			}
			return true
		})
		return out
	}
	grid := func(s *target.Snapshot) []string {
		var out []string
		for _, n := range checks(s, "") {
			if n.Name == "One" || n.Name == "Two" || n.Name == "Three" {
				out = append(out, n.Name)
			}
		}
		return out
	}
	if got := grid(s); !slices.Equal(got, []string{"Three", "Two", "One"}) {
		t.Logf("GTK's own order of the grid is now %q", got)
	}
	atspi.ReadingOrder(s.Root)
	if got := grid(s); !slices.Equal(got, []string{"One", "Two", "Three"}) {
		t.Errorf("the fixture's grid reads %q, want One, Two, Three", got)
	}

	app := launch(t, d, "gtk3-widget-factory")
	w := settled(t, b, frameOf(t, b, app).Object)
	ys := func() (out []int) {
		for _, n := range checks(w, "checkbutton") {
			out = append(out, n.Bounds.Y)
		}
		return out
	}
	before := ys()
	atspi.ReadingOrder(w.Root)
	after := ys()
	if len(after) < 6 || !slices.IsSorted(after) {
		t.Errorf("widget-factory's check boxes at y %v (GTK's order: %v), want top to bottom", after, before)
	}
}
