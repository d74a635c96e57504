package livebench

import (
	"testing"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/rtc"
)

// The tab rows' clicks land where the viewer clicked: a picture pixel maps
// to the CSS point at its centre, scaled by viewport/picture, and a point
// outside the picture (or an unknown size) is not delivered.
func TestTabPoint(t *testing.T) {
	click := func(x, y float64) rtc.InputEvent { return rtc.InputEvent{Type: rtc.InputClick, X: x, Y: y, Button: 1} }
	for _, c := range []struct {
		name       string
		ev         rtc.InputEvent
		picW, picH int
		vpW, vpH   float64
		want       cdp.Point
		ok         bool
	}{
		{"same size", click(100, 40), 1280, 720, 1280, 720, cdp.Point{X: 100.5, Y: 40.5}, true},
		{"picture at half the viewport", click(10, 20), 640, 360, 1280, 720, cdp.Point{X: 21, Y: 41}, true},
		{"picture at twice the viewport (2 dppx)", click(11, 21), 2560, 1440, 1280, 720, cdp.Point{X: 5.75, Y: 10.75}, true},
		{"last pixel", click(1279, 719), 1280, 720, 1280, 720, cdp.Point{X: 1279.5, Y: 719.5}, true},
		{"right of the picture", click(1280, 10), 1280, 720, 1280, 720, cdp.Point{}, false},
		{"above the picture", click(10, -1), 1280, 720, 1280, 720, cdp.Point{}, false},
		{"no picture yet", click(10, 10), 0, 0, 1280, 720, cdp.Point{}, false},
		{"no viewport", click(10, 10), 1280, 720, 0, 0, cdp.Point{}, false},
	} {
		got, ok := tabPoint(c.ev, c.picW, c.picH, c.vpW, c.vpH)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: tabPoint(%g,%g in %dx%d, viewport %gx%g) = %v %v, want %v %v", c.name, c.ev.X, c.ev.Y, c.picW, c.picH, c.vpW, c.vpH, got, ok, c.want, c.ok)
		}
	}
}
