package native

import (
	"testing"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/target"
)

// TestWindowGeometry: a window stream's frame (its crop, its size) and the
// window's accessible extents give the scale and the stream point of a
// screenshot's pixel, with the sizes measured on GNOME Shell 43 (see
// TestYourGnomeShellDesktop and TestYourScaledGnomeShellDesktop, which
// prove the points by the fixtures' logs).
func TestWindowGeometry(t *testing.T) {
	content := target.Rect{W: 400, H: 300}
	for _, tc := range []struct {
		name         string
		crop         capture.Crop
		w, h         int
		b            target.Rect
		scale        int
		px, py       float64
		wantX, wantY float64
	}{
		{"GTK 4 at 1: its shadow round it", capture.Crop{Cropped: true}, 428, 329, content, 1, 200, 200, 200, 200},
		{"Qt 5 at 1: its title bar above it", capture.Crop{Cropped: true}, 406, 333, content, 1, 203, 52, 203, 52},
		{"GTK 3 at 1: its frame is its surface", capture.Crop{Cropped: true}, 952, 789, target.Rect{W: 952, H: 789}, 1, 75, 89, 75, 89},
		{"GTK 4 at 2 (and at 1.25, drawn at 2)", capture.Crop{Cropped: true}, 856, 658, content, 2, 428, 156, 214, 78},
		{"Qt 5 at 2", capture.Crop{Cropped: true}, 812, 666, content, 2, 406, 104, 203, 52},
		{"a crop off the buffer's top left", capture.Crop{X: 10, Y: 20, Cropped: true}, 856, 658, content, 2, 0, 0, 5, 10},
		{"no extents: scale 1", capture.Crop{}, 1280, 720, target.Rect{}, 1, 7, 9, 7, 9},
		{"a window smaller than its decoration: never below 1", capture.Crop{}, 40, 40, target.Rect{W: 100, H: 100}, 1, 7, 9, 7, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := geometryOf(tc.crop, tc.w, tc.h, tc.b)
			if g.scale != tc.scale || g.w != tc.w || g.h != tc.h {
				t.Fatalf("geometry %+v, want scale %d, %dx%d", g, tc.scale, tc.w, tc.h)
			}
			if x, y := g.point(tc.px, tc.py); x != tc.wantX || y != tc.wantY {
				t.Fatalf("pixel %g,%g → %g,%g, want %g,%g", tc.px, tc.py, x, y, tc.wantX, tc.wantY)
			}
		})
	}
}

// TestWindowGeometryResized: a window resized since its last frame keeps
// its decoration and scale: its screenshot's size follows the extents'
// change at that scale, and its points do not move.
func TestWindowGeometryResized(t *testing.T) {
	g := geometryOf(capture.Crop{Cropped: true}, 856, 658, target.Rect{W: 400, H: 300}) // GTK 4 at 2
	for _, tc := range []struct {
		name string
		b    target.Rect
		w, h int
	}{
		{"the same size", target.Rect{X: 50, Y: 60, W: 400, H: 300}, 856, 658},
		{"larger", target.Rect{W: 500, H: 320}, 1056, 698},
		{"smaller", target.Rect{W: 300, H: 200}, 656, 458},
		{"extents unknown: as last seen", target.Rect{}, 856, 658},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.resized(tc.b)
			if r.w != tc.w || r.h != tc.h || r.scale != 2 {
				t.Fatalf("resized to %+v: %dx%d at %d, want %dx%d at 2", tc.b, r.w, r.h, r.scale, tc.w, tc.h)
			}
			if x, y := r.point(428, 156); x != 214 || y != 78 {
				t.Fatalf("a point moved with the size: %g,%g", x, y)
			}
		})
	}
	if u := geometryOf(capture.Crop{}, 1280, 720, target.Rect{}).resized(target.Rect{W: 10, H: 10}); u.w != 1280 || u.h != 720 {
		t.Fatalf("a geometry of no extents resized: %dx%d", u.w, u.h)
	}
}
