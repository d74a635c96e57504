package daemon

import (
	"context"
	"fmt"

	"github.com/vibespace/vibespace/target"
)

// snapshot answers the window's accessibility tree with refs minted for this
// target. A subtree the application did not answer in time is marked
// unreadable by the backend; the verb still answers.
func (d *Daemon) snapshot(ctx context.Context, req Request) Response {
	e, g, disp, err := d.useDisplay(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	c := target.Decide(target.VerbSnapshot, disp.Probe(ctx, e.t.PID), nil)
	if !c.OK() || disp.Tree() == nil {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	defer end()
	win := d.window(e)
	snap, err := disp.Tree().Snapshot(ctx, win)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, d.cut(ctx, e, req.Session, err))
	}
	e.refs.Assign(snap)
	snap.Target, snap.Title = string(e.t.ID), win.Title
	view := snap
	if req.Interactive {
		view = snap.InteractiveView()
	}
	resp := Response{Did: fmt.Sprintf("%d nodes, %d actionable, %d unreadable", snap.Census.Nodes, snap.Census.Action, snap.Census.Unreadable)}
	if req.JSON {
		resp.Snapshot = view
	} else {
		resp.Text = view.Text()
	}
	return d.finish(req, e, g, c.Road, resp, nil)
}

// screenshot answers the window's own pixels as PNG, with where the window
// is. Pixels of this image are what --at takes.
func (d *Daemon) screenshot(ctx context.Context, req Request) Response {
	e, g, disp, err := d.useDisplay(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	c := target.Decide(target.VerbScreenshot, disp.Probe(ctx, e.t.PID), nil)
	if !c.OK() || disp.Capture() == nil {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	win := d.window(e)
	if !win.Viewable {
		return d.finish(req, e, g, c.Road, Response{}, notVisible(e))
	}
	png, err := d.capture(ctx, req, e, disp, win)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	b := win.Bounds
	resp := Response{PNG: png, Bounds: &b, Did: fmt.Sprintf("%dx%d pixels; --at x,y takes a pixel of this image", b.W, b.H)}
	return d.finish(req, e, g, c.Road, resp, nil)
}

// capture grabs win's pixels under e's lock and the stacking slot: raised
// first (the X server has no compositing: a grab returns what is on
// screen), and refused window_not_visible if another application's window
// still lies over it.
func (d *Daemon) capture(ctx context.Context, req Request, e *entry, disp Display, win Window) ([]byte, error) {
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return nil, err
	}
	defer end()
	unstack, err := d.stacking(ctx)
	if err != nil {
		return nil, err
	}
	defer unstack()
	if d.uncovered(ctx, disp, e, win) == nil {
		return disp.Capture().PNG(ctx, win) // nothing lies over it
	}
	// What is on screen now holds another window's pixels where it covers
	// this one: raise, then wait for the application to repaint.
	before, err := disp.Capture().PNG(ctx, win)
	if err != nil {
		return nil, err
	}
	if err := disp.Raise(ctx, win); err != nil {
		return nil, d.cut(ctx, e, req.Session, err)
	}
	if err := d.uncovered(ctx, disp, e, win); err != nil {
		return nil, err
	}
	return settled(ctx, disp.Capture(), win, before)
}

// displayFor is our display, or window_gone naming e when it went away
// under the verb (a reset after the X server died).
func (d *Daemon) displayFor(e *entry) (Display, error) {
	if disp := d.currentDisplay(); disp != nil {
		return disp, nil
	}
	return nil, target.Refuse(target.CodeWindowGone, "the display of %s is gone", e.t.ID).With("target", string(e.t.ID))
}

// window is e's window as last read.
func (d *Daemon) window(e *entry) Window {
	d.mu.Lock()
	defer d.mu.Unlock()
	return e.win
}

func notVisible(e *entry) error {
	return target.Refuse(target.CodeWindowNotVisible, "%s is not visible (unmapped or iconified)", e.t.ID).With("target", string(e.t.ID))
}
