package native

import (
	"bytes"
	"context"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// injector is XTEST input on our display.
type injector struct{ x *x11.Display }

func (i injector) Click(ctx context.Context, x, y, button, count int) error {
	return i.x.Click(ctx, x, y, x11.Button(button), count)
}

func (i injector) Scroll(ctx context.Context, x, y int, dir string, steps int) error {
	dx, dy := 0, 0
	switch dir {
	case "up":
		dy = -steps
	case "down":
		dy = steps
	case "left":
		dx = -steps
	case "right":
		dx = steps
	}
	return i.x.Scroll(ctx, x, y, dx, dy)
}

// Move, ButtonDown and ButtonUp are the live view's pointer: a person
// driving from the viewer drags and hovers, not only clicks.
func (i injector) Move(ctx context.Context, x, y int) error { return i.x.Move(ctx, x, y) }
func (i injector) ButtonDown(ctx context.Context, x, y, button int) error {
	return i.x.ButtonDown(ctx, x, y, x11.Button(button))
}
func (i injector) ButtonUp(ctx context.Context, x, y, button int) error {
	return i.x.ButtonUp(ctx, x, y, x11.Button(button))
}

func (i injector) Key(ctx context.Context, c target.Chord) error { return i.x.Key(ctx, c) }
func (i injector) Type(ctx context.Context, text string) error   { return i.x.Type(ctx, text) }
func (i injector) ReleaseAll(ctx context.Context) error          { return i.x.ReleaseAll(ctx) }
func (i injector) Settle(ctx context.Context) (bool, error)      { return i.x.Settle(ctx) }

// capturer grabs a window's pixels as PNG.
type capturer struct{ x *x11.Display }

func (c capturer) PNG(ctx context.Context, w daemon.Window) ([]byte, error) {
	cp, err := c.x.Capture(ctx, x11.WindowID(w.XID))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := x11.EncodePNG(&buf, cp.Image); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
