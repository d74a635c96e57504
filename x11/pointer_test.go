package x11_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func TestClickButtonCentre(t *testing.T) {
	fx := newFixture(t)
	x, y := centre(fx.extents(t, "Alpha")["Alpha"])
	from := fx.f.Log.Len()
	if err := fx.x.Click(t.Context(), x, y, x11.ButtonLeft, 1); err != nil {
		t.Fatalf("Click: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatalf("no click on alpha: %v", err)
	}
}

// TestClickInWindowCoordinates right-clicks the press area through a
// window-relative point and checks the button and where it landed.
func TestClickInWindowCoordinates(t *testing.T) {
	fx := newFixture(t)
	area := fx.extents(t, "Press area")["Press area"]
	win := fx.f.Window.Geometry
	x, y := centre(area)
	from := fx.f.Log.Len()
	if err := fx.x.ClickIn(t.Context(), fx.f.Window.ID, x-win.X, y-win.Y, x11.ButtonRight, 1); err != nil {
		t.Fatalf("ClickIn: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	e, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "button" && e.Widget == "noaction" })
	if err != nil {
		t.Fatalf("no press on the press area: %v", err)
	}
	if e.Button != 3 || int(e.X) != x-area.Min.X || int(e.Y) != y-area.Min.Y {
		t.Errorf("press = button %d at (%v, %v), want button 3 at (%d, %d)", e.Button, e.X, e.Y, x-area.Min.X, y-area.Min.Y)
	}
	err = fx.x.ClickIn(t.Context(), fx.f.Window.ID, win.Width+5, 1, x11.ButtonLeft, 1)
	if target.CodeOf(err) != target.CodeOutsideWindow {
		t.Errorf("ClickIn outside the window = %v, want outside_window", err)
	}
}

func TestScrollIsLogged(t *testing.T) {
	fx := newFixture(t)
	x, y := centre(fx.extents(t, "Row 2")["Row 2"]) // inside the scrolled window: the list itself is taller
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, tt := range []struct {
		dx, dy int
		dir    string
	}{{0, 3, "down"}, {0, -1, "up"}} {
		from := fx.f.Log.Len()
		if err := fx.x.Scroll(ctx, x, y, tt.dx, tt.dy); err != nil {
			t.Fatalf("Scroll(%d, %d): %v", tt.dx, tt.dy, err)
		}
		if _, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool {
			return e.Type == "scroll" && e.Widget == "list" && e.Direction == tt.dir
		}); err != nil {
			t.Fatalf("no %s scroll on the list: %v", tt.dir, err)
		}
	}
}

func TestPointerRefusesBadInput(t *testing.T) {
	fx := newFixture(t)
	ctx := t.Context()
	w, h := fx.x.ScreenSize()
	if err := fx.x.Click(ctx, w, h/2, x11.ButtonLeft, 1); target.CodeOf(err) != target.CodeOutsideWindow {
		t.Errorf("Click off the screen = %v, want outside_window", err)
	}
	if err := fx.x.Click(ctx, 1, 1, x11.ButtonLeft, 0); target.CodeOf(err) != target.CodeBadRequest {
		t.Errorf("Click count 0 = %v, want bad_request", err)
	}
	if err := fx.x.Scroll(ctx, 1, 1, 0, x11.MaxScrollSteps+1); target.CodeOf(err) != target.CodeBadRequest {
		t.Errorf("Scroll too far = %v, want bad_request", err)
	}
}
