package x11

import (
	"context"

	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// Button is a pointer button number as X numbers them.
type Button uint8

// The buttons. X reports wheel steps as presses of buttons 4–7.
const (
	ButtonLeft       Button = 1
	ButtonMiddle     Button = 2
	ButtonRight      Button = 3
	ButtonWheelUp    Button = 4
	ButtonWheelDown  Button = 5
	ButtonWheelLeft  Button = 6
	ButtonWheelRight Button = 7
)

// MaxClickCount bounds Click's count and MaxScrollSteps each axis of Scroll,
// so that a typo cannot queue a million events.
const (
	MaxClickCount  = 10
	MaxScrollSteps = 1000
)

// Move puts the pointer at (x, y) in root coordinates.
func (d *Display) Move(ctx context.Context, x, y int) error {
	if err := d.onScreen(x, y); err != nil {
		return err
	}
	return d.inject(ctx, "pointer move", func(in *injection) error { return in.motion(x, y) })
}

// Click moves the pointer to (x, y) in root coordinates and clicks button
// count times (2 is a double click: the events go out back to back, well
// inside any toolkit's double-click time).
func (d *Display) Click(ctx context.Context, x, y int, b Button, count int) error {
	if err := d.onScreen(x, y); err != nil {
		return err
	}
	if count < 1 || count > MaxClickCount {
		return target.Refuse(target.CodeBadRequest, "click count %d is outside 1..%d", count, MaxClickCount)
	}
	if b == 0 {
		return target.Refuse(target.CodeBadRequest, "button 0 does not exist")
	}
	return d.inject(ctx, "click", func(in *injection) error {
		if err := in.motion(x, y); err != nil {
			return err
		}
		for range count {
			if err := in.button(b, true); err != nil {
				return err
			}
			if err := in.button(b, false); err != nil {
				return err
			}
		}
		return nil
	})
}

// ButtonDown moves the pointer to (x, y) and presses b, leaving it held
// (for a drag); ButtonUp or ReleaseAll releases it.
func (d *Display) ButtonDown(ctx context.Context, x, y int, b Button) error {
	return d.pressAt(ctx, x, y, b, true)
}

// ButtonUp moves the pointer to (x, y) and releases b.
func (d *Display) ButtonUp(ctx context.Context, x, y int, b Button) error {
	return d.pressAt(ctx, x, y, b, false)
}

func (d *Display) pressAt(ctx context.Context, x, y int, b Button, down bool) error {
	if err := d.onScreen(x, y); err != nil {
		return err
	}
	if b == 0 {
		return target.Refuse(target.CodeBadRequest, "button 0 does not exist")
	}
	return d.inject(ctx, "button", func(in *injection) error {
		if err := in.motion(x, y); err != nil {
			return err
		}
		if err := in.button(b, down); err != nil {
			return err
		}
		if down {
			delete(in.buttons, byte(b)) // a deliberate hold: kept if a later step fails
		}
		return nil
	})
}

// Scroll moves the pointer to (x, y) and scrolls: dy > 0 scrolls down dy
// wheel steps (button 5), dy < 0 up (button 4), dx > 0 right (button 7),
// dx < 0 left (button 6).
func (d *Display) Scroll(ctx context.Context, x, y, dx, dy int) error {
	if err := d.onScreen(x, y); err != nil {
		return err
	}
	if abs(dx) > MaxScrollSteps || abs(dy) > MaxScrollSteps {
		return target.Refuse(target.CodeBadRequest, "scroll by (%d, %d) is more than %d steps", dx, dy, MaxScrollSteps)
	}
	return d.inject(ctx, "scroll", func(in *injection) error {
		if err := in.motion(x, y); err != nil {
			return err
		}
		for _, s := range []struct {
			n    int
			b    Button
			back Button
		}{{dy, ButtonWheelDown, ButtonWheelUp}, {dx, ButtonWheelRight, ButtonWheelLeft}} {
			b := s.b
			if s.n < 0 {
				b = s.back
			}
			for range abs(s.n) {
				if err := in.button(b, true); err != nil {
					return err
				}
				if err := in.button(b, false); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// onScreen refuses a point outside the screen.
func (d *Display) onScreen(x, y int) error {
	if x < 0 || y < 0 || x >= d.width || y >= d.height {
		return target.Refuse(target.CodeOutsideWindow, "point (%d, %d) is outside the %dx%d screen", x, y, d.width, d.height).
			With("x", x).With("y", y)
	}
	return nil
}

// RootPoint converts (x, y) relative to window id's top-left corner to root
// coordinates. A point outside the window is an outside_window refusal; a
// window that is gone is window_gone.
func (d *Display) RootPoint(ctx context.Context, id WindowID, x, y int) (rx, ry int, err error) {
	type geo struct{ x, y, w, h int }
	g, err := call(ctx, d, "locate window "+id.String(), func() (geo, error) {
		gc := xproto.GetGeometry(d.conn, xproto.Drawable(id))
		tc := xproto.TranslateCoordinates(d.conn, xproto.Window(id), d.root, 0, 0)
		gr, err := gc.Reply()
		if err != nil {
			_, _ = tc.Reply()
			return geo{}, goneOr(err, id)
		}
		tr, err := tc.Reply()
		if err != nil {
			return geo{}, goneOr(err, id)
		}
		return geo{int(tr.DstX), int(tr.DstY), int(gr.Width), int(gr.Height)}, nil
	})
	if err != nil {
		return 0, 0, err
	}
	if x < 0 || y < 0 || x >= g.w || y >= g.h {
		return 0, 0, target.Refuse(target.CodeOutsideWindow, "point (%d, %d) is outside window %s (%dx%d)", x, y, id, g.w, g.h).
			With("window", id.String()).With("x", x).With("y", y)
	}
	return g.x + x, g.y + y, nil
}

// ClickIn clicks at (x, y) relative to window id.
func (d *Display) ClickIn(ctx context.Context, id WindowID, x, y int, b Button, count int) error {
	rx, ry, err := d.RootPoint(ctx, id, x, y)
	if err != nil {
		return err
	}
	return d.Click(ctx, rx, ry, b, count)
}

// MoveIn moves the pointer to (x, y) relative to window id.
func (d *Display) MoveIn(ctx context.Context, id WindowID, x, y int) error {
	rx, ry, err := d.RootPoint(ctx, id, x, y)
	if err != nil {
		return err
	}
	return d.Move(ctx, rx, ry)
}

// ScrollIn scrolls at (x, y) relative to window id.
func (d *Display) ScrollIn(ctx context.Context, id WindowID, x, y, dx, dy int) error {
	rx, ry, err := d.RootPoint(ctx, id, x, y)
	if err != nil {
		return err
	}
	return d.Scroll(ctx, rx, ry, dx, dy)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
