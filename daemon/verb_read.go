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
	e, g, err := d.use(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	disp := d.currentDisplay()
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
	e, g, err := d.use(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	disp := d.currentDisplay()
	c := target.Decide(target.VerbScreenshot, disp.Probe(ctx, e.t.PID), nil)
	if !c.OK() || disp.Capture() == nil {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	win := d.window(e)
	if !win.Viewable {
		return d.finish(req, e, g, c.Road, Response{}, notVisible(e))
	}
	png, err := disp.Capture().PNG(ctx, win)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	b := win.Bounds
	resp := Response{PNG: png, Bounds: &b, Did: fmt.Sprintf("%dx%d pixels; --at x,y takes a pixel of this image", b.W, b.H)}
	return d.finish(req, e, g, c.Road, resp, nil)
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
