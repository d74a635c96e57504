package displays

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
// slot). A target on no such display (a tab: disp nil) is acted on as it
// is.

// Stacker is the stack of disp, or nil when it has none to mind.
func (disp *Display) Stacker() kind.Stacker {
	if disp == nil {
		return nil
	}
	s, _ := disp.d.(kind.Stacker)
	return s
}

// Stacking takes the stacking slot of disp (none for a target on no
// display): between raising a window and acting on what is on screen, no
// verb of ours raises another one.
func (disp *Display) Stacking(ctx context.Context) (func(), error) {
	if disp == nil {
		return func() {}, nil
	}
	select {
	case disp.stack <- struct{}{}:
		return func() { <-disp.stack }, nil
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another window was being raised").Wrap(ctx.Err())
	}
}

// TryStacking takes the stacking slot of disp if it is free now, and
// reports whether it did; release gives it back.
func (disp *Display) TryStacking() (release func(), ok bool) {
	select {
	case disp.stack <- struct{}{}:
		return func() { <-disp.stack }, true
	default:
		return nil, false
	}
}

// OwnPixels reports whether a grab of a window of disp reads its own
// pixels, covered or not.
func (disp *Display) OwnPixels() bool {
	if disp == nil {
		return false
	}
	o, ok := disp.d.(kind.OwnPixels)
	return ok && o.KeepsOwnPixels()
}

// Raise puts t on top of its display (a no-op for a target that needs no
// raising).
func Raise(ctx context.Context, t kind.Target) error {
	if r, ok := t.(kind.Raiser); ok {
		return r.Raise(ctx)
	}
	return nil
}

// RaiseTopAt raises t (the window id of disp) and checks that it is then
// the topmost viewable window at the root point (x, y) of its display.
// Windows of the same process (its own menus and dialogs) count as its
// own. The caller holds the stacking slot.
func (disp *Display) RaiseTopAt(ctx context.Context, t kind.Target, id target.ID, info kind.Info, x, y int) error {
	if err := Raise(ctx, t); err != nil {
		return err
	}
	s := disp.Stacker()
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
		return covered(id, w)
	}
	return target.Refuse(target.CodeWindowNotVisible, "%s is not on screen at %d,%d", id, x-info.Bounds.X, y-info.Bounds.Y).
		With("target", string(id))
}

// Uncovered checks that no viewable window of another process lies over any
// part of the window id (info) of s.
func Uncovered(ctx context.Context, s kind.Stacker, id target.ID, info kind.Info) error {
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
			return covered(id, w)
		}
	}
	if !above {
		return NotVisible(id)
	}
	return nil
}

// NotVisible refuses a verb on a window that is unmapped or iconified.
func NotVisible(id target.ID) error {
	return target.Refuse(target.CodeWindowNotVisible, "%s is not visible (unmapped or iconified)", id).With("target", string(id))
}

func covered(id target.ID, by kind.Info) error {
	return target.Refuse(target.CodeWindowNotVisible, "%s is covered by another window (%q, %s) that stays on top even after raising it", id, by.Title, by.Key).
		With("target", string(id)).With("covered_by", by.Title)
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

// Settled grabs t until its application has repainted after a raise: the
// grab differs from before (the pixels of the window that covered it) and
// two grabs in a row agree. A window that looks exactly like what covered
// it never differs: after settleMax the last grab is the answer (it is
// right then too).
func Settled(ctx context.Context, t kind.Reader, before []byte) ([]byte, error) {
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
