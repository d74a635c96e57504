package daemon

import (
	"bytes"
	"context"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// On a display with no window manager and no compositing (a kind.Stacker),
// windows overlap and what is on screen is what the topmost one drew: a
// pointer event lands in the window on top at that point, and a window
// grab returns the pixels on screen, whoever drew them. So a point
// injection, keys and a screenshot raise their window first (a
// kind.Raiser), check that it is really on top, and act while no other
// verb of ours can raise another window of that display (its stacking
// slot). A target on no such display (a tab) is acted on as it is.

// stacker is the stack of e's display, or nil when it has none to mind.
func stacker(e *entry) kind.Stacker {
	if e.disp == nil {
		return nil
	}
	s, _ := e.disp.d.(kind.Stacker)
	return s
}

// stacking takes the stacking slot of e's display (none for a target on no
// display): between raising a window and acting on what is on screen, no
// verb of ours raises another one.
func (d *Daemon) stacking(ctx context.Context, e *entry) (func(), error) {
	if e.disp == nil {
		return func() {}, nil
	}
	select {
	case e.disp.stack <- struct{}{}:
		return func() { <-e.disp.stack }, nil
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another window was being raised").Wrap(ctx.Err())
	}
}

// ownPixels reports whether a grab of e reads its own pixels, covered or
// not.
func ownPixels(e *entry) bool {
	if e.disp == nil {
		return false
	}
	o, ok := e.disp.d.(kind.OwnPixels)
	return ok && o.KeepsOwnPixels()
}

// raise puts e on top of its display (a no-op for a target that needs no
// raising).
func raise(ctx context.Context, e *entry) error {
	if r, ok := e.t.(kind.Raiser); ok {
		return r.Raise(ctx)
	}
	return nil
}

// raiseTopAt raises e and checks that it is then the topmost viewable
// window at the root point (x, y) of its display. Windows of the same
// process (its own menus and dialogs) count as its own. The caller holds
// the stacking slot.
func (d *Daemon) raiseTopAt(ctx context.Context, e *entry, info kind.Info, x, y int) error {
	if err := raise(ctx, e); err != nil {
		return err
	}
	s := stacker(e)
	if s == nil {
		return nil
	}
	stack, err := s.Stack(ctx)
	if err != nil {
		return err
	}
	for i := len(stack) - 1; i >= 0; i-- {
		w := stack[i]
		if !w.Viewable || !contains(w.Bounds, x, y) {
			continue
		}
		if w.Key == info.Key || (w.PID != 0 && w.PID == info.PID) {
			return nil
		}
		return covered(e, w)
	}
	return target.Refuse(target.CodeWindowNotVisible, "%s is not on screen at %d,%d", e.id, x-info.Bounds.X, y-info.Bounds.Y).
		With("target", string(e.id))
}

// uncovered checks that no viewable window of another process lies over any
// part of e's window.
func (d *Daemon) uncovered(ctx context.Context, e *entry, s kind.Stacker, info kind.Info) error {
	stack, err := s.Stack(ctx)
	if err != nil {
		return err
	}
	above := false
	for _, w := range stack {
		if w.Key == info.Key {
			above = true
			continue
		}
		if !above || !w.Viewable || (w.PID != 0 && w.PID == info.PID) {
			continue
		}
		if overlaps(w.Bounds, info.Bounds) {
			return covered(e, w)
		}
	}
	if !above {
		return notVisible(e)
	}
	return nil
}

func covered(e *entry, by kind.Info) error {
	return target.Refuse(target.CodeWindowNotVisible, "%s is covered by another window (%q, %s) that stays on top even after raising it", e.id, by.Title, by.Key).
		With("target", string(e.id)).With("covered_by", by.Title)
}

func contains(r target.Rect, x, y int) bool {
	return x >= r.X && y >= r.Y && x < r.X+r.W && y < r.Y+r.H
}

func overlaps(a, b target.Rect) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// grab reads c's target's pixels, under its lock. A display that keeps
// each window's own pixels (Composite) is grabbed as it is, raising
// nothing. On another display that stacks windows it takes the stacking
// slot: a window nothing covers is grabbed
// as it is; a covered one is raised, checked uncovered (else
// window_not_visible), and grabbed once it has repainted.
func (d *Daemon) grab(ctx context.Context, c *call) ([]byte, error) {
	e := c.e
	s := stacker(e)
	if s == nil || ownPixels(e) {
		return e.t.Screenshot(ctx)
	}
	unstack, err := d.stacking(ctx, e)
	if err != nil {
		return nil, err
	}
	defer unstack()
	info := d.seen(e)
	if d.uncovered(ctx, e, s, info) == nil {
		return e.t.Screenshot(ctx) // nothing lies over it
	}
	// What is on screen now holds another window's pixels where it covers
	// this one: raise, then wait for the application to repaint.
	before, err := e.t.Screenshot(ctx)
	if err != nil {
		return nil, err
	}
	if err := raise(ctx, e); err != nil {
		return nil, d.cut(ctx, e, c.Req.Session, err)
	}
	if err := d.uncovered(ctx, e, s, info); err != nil {
		return nil, err
	}
	return settled(ctx, e.t, before)
}

// Repainting after a raise: the X server only tells the application which
// part of its window to redraw; until it has, the screen (and a grab) still
// shows what covered it.
const (
	settleStep = 30 * time.Millisecond
	settleMax  = 2 * time.Second
)

// settled grabs t until its application has repainted after a raise: the
// grab differs from before (the pixels of the window that covered it) and
// two grabs in a row agree. A window that looks exactly like what covered
// it never differs: after settleMax the last grab is the answer (it is
// right then too).
func settled(ctx context.Context, t kind.Reader, before []byte) ([]byte, error) {
	deadline := time.Now().Add(settleMax)
	prev := before
	for {
		select {
		case <-ctx.Done():
			return nil, target.Refuse(target.CodeTimeout, "the window did not repaint after it was raised").Wrap(ctx.Err())
		case <-time.After(settleStep):
		}
		cur, err := t.Screenshot(ctx)
		if err != nil {
			return nil, err
		}
		if (bytes.Equal(cur, prev) && !bytes.Equal(cur, before)) || time.Now().After(deadline) {
			return cur, nil
		}
		prev = cur
	}
}
