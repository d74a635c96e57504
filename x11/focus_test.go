package x11_test

import (
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// TestFocusRaisesAndFocuses focuses a window under another one and checks,
// over the test's own connection, that it has the input focus and is on top.
func TestFocusRaisesAndFocuses(t *testing.T) {
	first := newFixture(t)
	second := newFixture(t) // mapped later: on top, and focused by newFixture
	if err := first.x.Focus(t.Context(), first.f.Window.ID); err != nil {
		t.Fatalf("Focus: %v", err)
	}
	c, err := xgb.NewConnDisplay(first.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, err := xproto.GetInputFocus(c).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if uint32(f.Focus) != uint32(first.f.Window.ID) {
		t.Errorf("input focus is on 0x%x, want the focused window %s", f.Focus, first.f.Window.ID)
	}
	tree, err := xproto.QueryTree(c, xproto.Setup(c).DefaultScreen(c).Root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	pos := map[uint32]int{}
	for i, w := range tree.Children { // bottom first
		pos[uint32(w)] = i
	}
	if pos[uint32(first.f.Window.ID)] < pos[uint32(second.f.Window.ID)] {
		t.Errorf("the focused window is below the other one")
	}
}
