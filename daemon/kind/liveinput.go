package kind

import (
	"context"
	"sync"

	"github.com/vibespace/vibespace/target"
)

// Presses turns a person's presses and releases of a button from the live
// view into clicks, for a target whose input road clicks in one go (a
// tab's): a press of the left button and its release are one click at
// the release. Safe for concurrent use.
type Presses struct {
	mu      sync.Mutex
	pressed int // the button pressed, waiting for its release (0: none)
}

// Clicks reports whether ev (a down, an up or a click) is a click now: a
// down is kept for its up; an up of the left button pressed is one; a
// click of another button than the left is refused.
func (p *Presses) Clicks(ev Input) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Type {
	case InputDown:
		p.pressed = ev.Button
		return false, nil
	case InputUp:
		pressed := p.pressed
		p.pressed = 0
		return pressed == ev.Button && ev.Button == 1, nil
	case InputClick:
		if ev.Button != 1 {
			return false, target.Refuse(target.CodeBadRequest, "only the left button clicks in a tab from the live view")
		}
		return true, nil
	}
	return false, target.Refuse(target.CodeBadRequest, "unknown input event %q", ev.Type)
}

// Forget forgets a press waiting for its release.
func (p *Presses) Forget() {
	p.mu.Lock()
	p.pressed = 0
	p.mu.Unlock()
}

// InViewport maps ev's point of the picture a person saw to the
// viewport's CSS pixels (the picture is the viewport scaled), reading the
// viewport's size only when the picture's is known: a point outside the
// picture is outside_window.
func InViewport(ctx context.Context, ev Input, viewport func(ctx context.Context) (w, h float64, err error)) (x, y float64, err error) {
	if ev.PictureW <= 0 || ev.PictureH <= 0 {
		return ev.X, ev.Y, nil
	}
	if ev.X < 0 || ev.Y < 0 || ev.X >= float64(ev.PictureW) || ev.Y >= float64(ev.PictureH) {
		return ev.X, ev.Y, target.Refuse(target.CodeOutsideWindow, "%g,%g is outside the picture of the tab (%dx%d)", ev.X, ev.Y, ev.PictureW, ev.PictureH)
	}
	w, h, err := viewport(ctx)
	if err != nil {
		return ev.X, ev.Y, err
	}
	if w <= 0 || h <= 0 {
		return ev.X, ev.Y, nil
	}
	return (ev.X + 0.5) * w / float64(ev.PictureW), (ev.Y + 0.5) * h / float64(ev.PictureH), nil
}
