package native

import (
	"context"
	"errors"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/target"
)

// tree is the AT-SPI road on our display.
type tree struct{ d *display }

// frame finds (once) the AT-SPI frame of an X window.
func (t tree) frame(ctx context.Context, w daemon.Window) (atspi.Object, error) {
	t.d.mu.Lock()
	o, ok := t.d.frames[w.XID]
	t.d.mu.Unlock()
	if ok {
		return o, nil
	}
	f, err := t.d.bus.FindFrame(ctx, atspi.WindowHint{PID: w.PID, Title: w.Title, Bounds: w.Bounds})
	if err != nil {
		return atspi.Object{}, err
	}
	t.d.mu.Lock()
	t.d.frames[w.XID] = f.Object
	t.d.onBus[w.PID] = true
	t.d.mu.Unlock()
	return f.Object, nil
}

// Snapshot walks the window's tree. An application that does not answer
// gives a snapshot whose root is marked unreadable, not an error.
func (t tree) Snapshot(ctx context.Context, w daemon.Window) (*target.Snapshot, error) {
	wctx := ctx
	if t.d.walkTimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, t.d.walkTimeout)
		defer cancel()
	}
	root, err := t.frame(wctx, w)
	if err != nil {
		code := target.CodeOf(err)
		if code == target.CodeTimeout || errors.Is(err, context.DeadlineExceeded) || code == target.CodeAppNotFound || code == target.CodeNoFrame {
			if ctx.Err() != nil {
				return nil, err
			}
			why := "the application did not answer in time"
			switch code {
			case target.CodeAppNotFound:
				why = "the application is not on the accessibility bus (yet)"
			case target.CodeNoFrame:
				why = "the window has no accessible frame (yet)"
			}
			n := &target.Node{Role: "frame", Name: w.Title, Unreadable: why}
			return &target.Snapshot{Root: n, Census: n.Count()}, nil
		}
		return nil, err
	}
	// The walk uses Cache.GetItems where the bridge has it: it is tested to
	// give the same tree as asking every object, also right after launch
	// (atspi TestFirstWalkAfterLaunch, and TestFirstSnapshotIsWhole here).
	snap, err := t.d.bus.Walk(wctx, root, atspi.WalkOptions{Timeout: t.d.walkTimeout})
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		n := &target.Node{Role: "frame", Name: w.Title, Unreadable: "the application did not answer in time"}
		return &target.Snapshot{Root: n, Census: n.Count()}, nil
	}
	return snap, err
}

// Node reads one node's traits, fresh from the application.
func (t tree) Node(ctx context.Context, w daemon.Window, key string) (target.NodeTraits, error) {
	o, err := atspi.ParseKey(key)
	if err != nil {
		return target.NodeTraits{}, err
	}
	n, err := t.d.bus.Node(ctx, o)
	if err != nil {
		return target.NodeTraits{}, err
	}
	return target.TraitsOf(n), nil
}

// DoAction does the node's click-like action (never a coordinate click).
func (t tree) DoAction(ctx context.Context, w daemon.Window, key string) error {
	o, err := atspi.ParseKey(key)
	if err != nil {
		return err
	}
	_, err = t.d.bus.DoAction(ctx, o, "")
	return err
}

// InsertText appends text at the end of the node's text (EditableText).
func (t tree) InsertText(ctx context.Context, w daemon.Window, key, text string) error {
	o, err := atspi.ParseKey(key)
	if err != nil {
		return err
	}
	return t.d.bus.InsertText(ctx, o, -1, text)
}

// GrabFocus focuses the node (Component.GrabFocus).
func (t tree) GrabFocus(ctx context.Context, w daemon.Window, key string) error {
	o, err := atspi.ParseKey(key)
	if err != nil {
		return err
	}
	return t.d.bus.GrabFocus(ctx, o)
}
