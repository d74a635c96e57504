package daemon

import (
	"bytes"
	"context"
	"time"

	"github.com/vibespace/vibespace/target"
)

// With no window manager and no compositing, windows overlap and what is
// on screen is what the topmost one drew: a pointer event lands in the
// window on top at that point, and a window grab returns the pixels on
// screen, whoever drew them. So a point injection and a screenshot raise
// their window first, check that it is really on top, and act while no
// other verb of ours can raise another window (the stacking slot).

// stacking takes the display's stacking slot: between raising a window and
// acting on what is on screen, no verb of ours raises another one.
func (d *Daemon) stacking(ctx context.Context) (func(), error) {
	select {
	case d.stackGate <- struct{}{}:
		return func() { <-d.stackGate }, nil
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another window was being raised").Wrap(ctx.Err())
	}
}

// topAt checks that after raising, e's window is the topmost viewable
// window at the root point (x, y). Windows of the same process (its own
// menus and dialogs) count as its own.
func (d *Daemon) topAt(ctx context.Context, disp Display, e *entry, win Window, x, y int) error {
	stack, err := disp.Stack(ctx)
	if err != nil {
		return err
	}
	for i := len(stack) - 1; i >= 0; i-- {
		w := stack[i]
		if !w.Viewable || !contains(w.Bounds, x, y) {
			continue
		}
		if w.XID == win.XID || (w.PID != 0 && w.PID == win.PID) {
			return nil
		}
		return covered(e, w)
	}
	return target.Refuse(target.CodeWindowNotVisible, "%s is not on screen at %d,%d", e.t.ID, x-win.Bounds.X, y-win.Bounds.Y).
		With("target", string(e.t.ID))
}

// uncovered checks that after raising, no viewable window of another
// process lies over any part of e's window.
func (d *Daemon) uncovered(ctx context.Context, disp Display, e *entry, win Window) error {
	stack, err := disp.Stack(ctx)
	if err != nil {
		return err
	}
	above := false
	for _, w := range stack {
		if w.XID == win.XID {
			above = true
			continue
		}
		if !above || !w.Viewable || (w.PID != 0 && w.PID == win.PID) {
			continue
		}
		if overlaps(w.Bounds, win.Bounds) {
			return covered(e, w)
		}
	}
	if !above {
		return notVisible(e)
	}
	return nil
}

func covered(e *entry, by Window) error {
	return target.Refuse(target.CodeWindowNotVisible, "%s is covered by another window (%q, 0x%x) that stays on top even after raising it", e.t.ID, by.Title, by.XID).
		With("target", string(e.t.ID)).With("covered_by", by.Title)
}

func contains(r target.Rect, x, y int) bool {
	return x >= r.X && y >= r.Y && x < r.X+r.W && y < r.Y+r.H
}

func overlaps(a, b target.Rect) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// Repainting after a raise: the X server only tells the application which
// part of its window to redraw; until it has, the screen (and a grab) still
// shows what covered it.
const (
	settleStep = 30 * time.Millisecond
	settleMax  = 2 * time.Second
)

// settled grabs win until the application has repainted it after a raise:
// the grab differs from before (the pixels of the window that covered it)
// and two grabs in a row agree. A window that looks exactly like what
// covered it never differs: after settleMax the last grab is the answer
// (it is right then too).
func settled(ctx context.Context, c Capturer, win Window, before []byte) ([]byte, error) {
	deadline := time.Now().Add(settleMax)
	prev := before
	for {
		select {
		case <-ctx.Done():
			return nil, target.Refuse(target.CodeTimeout, "the window did not repaint after it was raised").Wrap(ctx.Err())
		case <-time.After(settleStep):
		}
		cur, err := c.PNG(ctx, win)
		if err != nil {
			return nil, err
		}
		if (bytes.Equal(cur, prev) && !bytes.Equal(cur, before)) || time.Now().After(deadline) {
			return cur, nil
		}
		prev = cur
	}
}
