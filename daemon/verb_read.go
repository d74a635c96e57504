package daemon

import (
	"bytes"
	"context"
	"fmt"
	"image/png"

	"github.com/vibespace/vibespace/target"
)

// snapshot answers the target's accessibility tree with refs minted for it.
// A subtree the application did not answer in time is marked unreadable by
// the backend; the verb still answers. The text form carries its census in
// its header, so the answer says it once.
func (d *Daemon) snapshot(ctx context.Context, c *call) Response {
	e := c.e
	if err := d.decide(c, target.VerbSnapshot, e.t.Probe(ctx), nil); err != nil {
		return d.fail(c, err)
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	snap, err := e.t.Snapshot(ctx, e.refs)
	if err != nil {
		return d.fail(c, d.cut(ctx, e, c.req.Session, err))
	}
	e.refs.Assign(snap)
	if snap.Title == "" {
		snap.Title = d.seen(e).Title
	}
	snap.Target = string(e.id)
	d.noteSnapshot(e, snap)
	view := snap
	if c.req.Interactive {
		view = snap.InteractiveView()
	}
	resp := Response{}
	if c.req.JSON {
		resp.Snapshot = view
		resp.Did = fmt.Sprintf("%d nodes, %d actionable, %d unreadable", snap.Census.Nodes, snap.Census.Action, snap.Census.Unreadable)
	} else {
		resp.Text = view.Text()
	}
	return d.finish(c, resp, nil)
}

// noteSnapshot keeps what a snapshot told of e: its title, and where its
// refs are on screen (for the live view's agent marks).
func (d *Daemon) noteSnapshot(e *entry, snap *target.Snapshot) {
	bs := map[string]target.Rect{}
	if snap.Root != nil {
		snap.Root.Walk(func(n *target.Node, _ int) bool {
			if n.Ref != "" && n.Bounds != nil && !n.Bounds.Offscreen() {
				bs[n.Ref] = *n.Bounds
			}
			return true
		})
	}
	d.mu.Lock()
	e.bounds = bs
	if snap.Title != "" {
		e.rec.Title = snap.Title
	}
	d.mu.Unlock()
}

// screenshot answers the target's own pixels as PNG, with where it is.
// Pixels of this image are what --at takes.
func (d *Daemon) screenshot(ctx context.Context, c *call) Response {
	e := c.e
	if err := d.decide(c, target.VerbScreenshot, e.t.Probe(ctx), nil); err != nil {
		return d.fail(c, err)
	}
	info := d.seen(e)
	if !info.Viewable {
		return d.fail(c, notVisible(e))
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	b, err := d.grab(ctx, c)
	if err != nil {
		return d.fail(c, d.cut(ctx, e, c.req.Session, err))
	}
	bounds := info.Bounds
	if cfg, err := png.DecodeConfig(bytes.NewReader(b)); err == nil && (bounds.W == 0 || bounds.H == 0) {
		bounds.W, bounds.H = cfg.Width, cfg.Height
	}
	resp := Response{PNG: b, Bounds: &bounds,
		Did: fmt.Sprintf("%dx%d pixels of the %s; --at x,y takes a pixel of this image", bounds.W, bounds.H, e.words().Noun)}
	return d.finish(c, resp, nil)
}
