package daemon

import (
	"bytes"
	"context"
	"fmt"
	"image/png"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/lastsnaps"
	"github.com/vibespace/vibespace/target"
)

// snapshot answers the target's accessibility tree with refs minted for it.
// A subtree the application did not answer in time is marked unreadable by
// the backend; the verb still answers. The answer's target line names the
// handle and title, so the text's header carries the counts alone.
//
// Less of it: a ref (args.Observe.Ref) scopes the answer to that node's subtree (refs
// unchanged; a ref never minted is bad_ref, one whose node is gone
// stale_ref); Depth keeps that many levels below the root or the scope and
// says what it cut; Diff answers what changed since this session's last
// snapshot that showed at least as much (lastsnaps.Baseline: of the scope,
// of the -i view when -i is given), or the whole snapshot when there was
// none; an -i diff also shows what appeared where nothing acts
// (target.DiffInteractive). Every snapshot read keeps the whole tree as
// the session's last one of its view (scope, -i, depth): the backend reads
// it whole anyway, and a narrower view never moves a wider one's baseline.
//
// More of it: After reads on past a snapshot its budget cut (its header
// names the ref): what follows that node in the page, as one more page
// with its own budget, seen as any snapshot is (-i, --depth, --json) but
// not kept for --diff (afterPage). Only a target that pages (a tab, a
// pager) takes it.
func (d *Daemon) snapshot(ctx context.Context, c *call) Response {
	e, a := c.e, c.Args.(args.Snapshot)
	if err := d.decide(c, target.VerbSnapshot, d.probe(ctx, e), nil); err != nil {
		return d.fail(c, err)
	}
	var scopeKey string
	var err error
	if a.Ref != "" {
		if scopeKey, err = e.refs.Key(a.Ref); err != nil {
			return d.fail(c, err)
		}
	}
	afterKey, err := d.afterKey(c)
	if err != nil {
		return d.fail(c, err)
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	snap, err := d.readTree(ctx, c, afterKey)
	if err != nil {
		return d.fail(c, err)
	}
	if afterKey != "" {
		return d.finish(c, afterPage(a.Observe, c.Req.JSON, snap, e.refs.Ref(afterKey)), nil)
	}
	size := lastsnaps.Size(snap) // counted before the lock is taken
	d.mu.Lock()
	prev := e.last.KeepView(c.Req.Session, lastsnaps.View{Scope: scopeKey, Interactive: a.Interactive, Depth: a.Depth}, snap, size) // what --diff is against
	d.mu.Unlock()
	view, scope := snap, ""
	if scopeKey != "" {
		scope = e.refs.Ref(scopeKey)
		sub, ok := snap.Scope(scopeKey)
		if !ok {
			return d.fail(c, goneRef(e, scope))
		}
		view = sub
	}
	resp := Response{}
	if a.Diff && prev != nil {
		old := prev
		if scopeKey != "" {
			old, _ = prev.Scope(scopeKey) // nil when the node is new: all of it is added
		}
		diff := target.DiffSnapshots(old, view)
		if a.Interactive {
			diff = target.DiffInteractive(old, view) // what appeared is shown even where nothing acts
		}
		if c.Req.JSON {
			// The text's lines say as much: its counts are for programs.
			resp.Diff = diff
			resp.Did = fmt.Sprintf("since your last snapshot: %d changed, %d added, %d removed", diff.Changed, diff.Added, diff.Removed)
		} else {
			resp.Text = diff.Text()
		}
		return d.finish(c, resp, nil)
	}
	if a.Diff {
		resp.Did = "no earlier snapshot of this target in this session: the whole snapshot; the next --diff answers what changed"
	}
	return d.finish(c, shown(a.Observe, c.Req.JSON, view, scope, resp), nil)
}

// shown fills resp with the snapshot as req asks to see it: its
// interactive view with -i, cut at --depth, as JSON or as text.
func shown(o args.Observe, asJSON bool, view *target.Snapshot, scope string, resp Response) Response {
	if o.Interactive {
		view = view.InteractiveView()
	}
	view, cut := view.CutDepth(o.Depth)
	if asJSON {
		resp.Snapshot = view
		if cut.Nodes > 0 {
			resp.Cut = &cut
		}
		if resp.Did == "" {
			resp.Did = fmt.Sprintf("%d nodes, %d actionable, %d unreadable", view.Census.Nodes, view.Census.Action, view.Census.Unreadable)
		}
	} else {
		resp.Text = view.AnswerText(target.Framing{Scope: scope, Cut: cut})
	}
	return resp
}

// pager is a target whose snapshot is read in pages: a tab, whose
// snapshot stops at a budget and names the last node it holds
// (target.Snapshot.After). SnapshotAfter reads what follows the node key
// names in document order (its descendants, then every later node), as
// one more page with its own budget, its refs minted in refs.
type pager interface {
	SnapshotAfter(ctx context.Context, refs *target.RefTable, key string) (*target.Snapshot, error)
}

// afterKey is the key of the node a snapshot --after reads on from ("":
// the request reads the whole tree). A target that does not page is
// refused before the ref is looked at: no ref of it would do.
func (d *Daemon) afterKey(c *call) (string, error) {
	if c.Args.(args.Snapshot).After == "" {
		return "", nil
	}
	if _, ok := c.e.t.(pager); !ok {
		return "", target.Refuse(target.CodeBadRequest, "--after pages a browser tab's snapshot; the snapshot of %s does not page (snapshot @ref reads one part of its tree)", c.e.id).With("target", string(c.e.id))
	}
	return c.e.refs.Key(c.Args.(args.Snapshot).After)
}

// afterPage answers snap, the page of the tree that follows the node ref
// names, as req asks to see it. The page is not kept as the session's last
// snapshot: it is a part of the tree, and the next --diff against it would
// answer the rest of the page as added and this part as removed; --diff
// stays against the last whole read.
func afterPage(o args.Observe, asJSON bool, snap *target.Snapshot, ref string) Response {
	resp := Response{Did: "after " + ref + ": what follows it in the page"}
	if asJSON {
		resp.Did = fmt.Sprintf("after %s: %d nodes, %d actionable, %d unreadable", ref, snap.Census.Nodes, snap.Census.Action, snap.Census.Unreadable)
	}
	return shown(o, asJSON, snap, "", resp)
}

// readTree reads c's target's tree, with refs minted for it, and notes
// what it told of the target: whole, or with after (a key afterKey
// answered) the page that follows the node it names.
func (d *Daemon) readTree(ctx context.Context, c *call, after string) (*target.Snapshot, error) {
	e := c.e
	var snap *target.Snapshot
	var err error
	if after != "" {
		snap, err = e.t.(pager).SnapshotAfter(ctx, e.refs, after)
	} else {
		snap, err = e.t.Snapshot(ctx, e.refs)
	}
	if err != nil {
		return nil, d.cut(ctx, e, c.Req.Session, err)
	}
	e.refs.Assign(snap)
	if snap.Title == "" {
		snap.Title = d.seen(e).Title
	}
	snap.Target = string(e.id)
	d.noteSnapshot(e, snap)
	return snap, nil
}

// goneRef is the refusal of a ref that was minted for e and whose node is
// no longer in its tree.
func goneRef(e *entry, ref string) error {
	return target.Refuse(target.CodeStaleRef, "the node of %s is gone from %s; take a new snapshot", ref, e.id).With("ref", ref).With("target", string(e.id))
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
	if err := d.decide(c, target.VerbScreenshot, d.probe(ctx, e), nil); err != nil {
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
		return d.fail(c, d.cut(ctx, e, c.Req.Session, err))
	}
	bounds := info.Bounds
	if cfg, err := png.DecodeConfig(bytes.NewReader(b)); err == nil && (bounds.W == 0 || bounds.H == 0) {
		bounds.W, bounds.H = cfg.Width, cfg.Height
	}
	resp := Response{PNG: b, Bounds: &bounds,
		Did: fmt.Sprintf("%dx%d pixels of the %s; --at x,y takes a pixel of this image", bounds.W, bounds.H, e.words().Noun)}
	return d.finish(c, resp, nil)
}

// grab reads c's target's pixels, under its lock. A display that keeps
// each window's own pixels (Composite) is grabbed as it is, raising
// nothing. On another display that stacks windows it takes the stacking
// slot: a window nothing covers is grabbed
// as it is; a covered one is raised, checked uncovered (else
// window_not_visible), and grabbed once it has repainted (package
// daemon/displays says how windows stack).
func (d *Daemon) grab(ctx context.Context, c *call) ([]byte, error) {
	e := c.e
	s := e.disp.Stacker()
	if s == nil || e.disp.OwnPixels() {
		return e.t.Screenshot(ctx)
	}
	unstack, err := e.disp.Stacking(ctx)
	if err != nil {
		return nil, err
	}
	defer unstack()
	info := d.seen(e)
	if displays.Uncovered(ctx, s, e.id, info) == nil {
		return e.t.Screenshot(ctx) // nothing lies over it
	}
	// What is on screen now holds another window's pixels where it covers
	// this one: raise, then wait for the application to repaint.
	before, err := e.t.Screenshot(ctx)
	if err != nil {
		return nil, err
	}
	if err := displays.Raise(ctx, e.t); err != nil {
		return nil, d.cut(ctx, e, c.Req.Session, err)
	}
	if err := displays.Uncovered(ctx, s, e.id, info); err != nil {
		return nil, err
	}
	return displays.Settled(ctx, e.t, before)
}
