package daemon

// Verifying an action: every acting verb (click, type, fill, select, key,
// scroll) looks, before it acts, at what is cheap and relevant to see of
// its target through the kind seam — the acted node's own facts
// (kind.NodeReader), the target's title and URL, the targets the session
// sees (a new window, dialog or tab), and the target's content
// (kind.ContentDigester) or else, on a road with no node to read (a
// point, keys to the focused node), its pixels (its screenshot, as a digest:
// no picture is kept) — then acts, then looks again every VerifyPoll until
// something changed or VerifyWait passed, and says what it saw as a word
// of target.Effect.

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/effect"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// watch observes one acting verb's target, before and after it acts.
type watch struct {
	d    *Daemon
	c    *call
	node *kind.Node  // the node acted on; nil for the focused node or a point
	at   *kind.Point // the pixel acted at: only the region around it is compared
	off  string      // why it does not look ("": it looks)
	// read is the node's facts as the verb read them once for its road
	// (kind.NodeRead.Facts): the look before takes them instead of
	// asking again. nil: the look reads the node itself.
	read *target.Node
	// before is what was seen before the verb acted.
	before effect.Observation
}

// watchBefore looks at c's target before the verb acts on node n (nil: the
// focused node, or a point): the first half of verifying. Call it after the
// verb's checks and before it acts; then act, then w.verify.
func (d *Daemon) watchBefore(ctx context.Context, c *call, n *kind.Node) *watch {
	return d.watchAt(ctx, c, n, nil, nil)
}

// watchAt is watchBefore for input at pixel at of the target's picture:
// of its pixels only the region around at is compared (a scroll bar fading
// or a list still scrolling elsewhere is not this action's effect); read
// (nil: none) is the node n as the verb read it already, which the look
// before takes as it is.
func (d *Daemon) watchAt(ctx context.Context, c *call, n *kind.Node, at *kind.Point, read *target.Node) *watch {
	w := &watch{d: d, c: c, node: n, at: at, read: read}
	if c.Req.NoVerify {
		w.off = "verification off"
		return w
	}
	octx, cancel := context.WithTimeout(ctx, d.cfg.VerifyWait)
	w.before = w.observe(octx)
	cancel()
	c.Before = w.before.Digest()
	switch {
	case w.before.Node == nil && w.before.Content == "" && !w.before.HasInfo:
		w.off = "no tree and no pixels of " + string(c.e.id) + " to look at"
	case n == nil && w.before.Content == "":
		w.off = "no node to read and no pixels of " + string(c.e.id) + " to look at"
	}
	return w
}

// verify watches, after the verb acted, until something changed or the
// wait ended, and puts what it saw on resp: its Effect, and the effect's
// words after resp.Did. The wait ends early at a change, at VerifyWait, at
// the verb's deadline, or at a takeover (ctx is cancelled).
func (w *watch) verify(ctx context.Context, resp *Response) {
	d, c := w.d, w.c
	start := d.cfg.Now()
	eff := &target.Effect{}
	defer func() {
		eff.WaitedMS = int(d.cfg.Now().Sub(start) / time.Millisecond)
		resp.Effect = eff
		resp.Did += effect.Words(eff)
	}()
	if w.off != "" {
		eff.Word, eff.Why = target.EffectUnverifiable, w.off
		return
	}
	// Injected input is read by the application later than it is sent
	// (an X client reads its events from the server's queue): the wait
	// for its effect starts once the application has read it, so a
	// starved application is not taken for one that did nothing.
	if s, ok := c.e.t.(kind.Settler); ok && (c.Road == target.RoadPoint || c.Road == target.RoadKeys) {
		sctx, cancel := context.WithTimeout(ctx, d.cfg.VerifyWait)
		_, _ = s.Settle(sctx) // a failure only means the wait starts now
		cancel()
	}
	deadline := d.cfg.Now().Add(d.cfg.VerifyWait)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	// Each look is bounded too: an application that stopped answering
	// leaves the node unread, not the verb waiting.
	octx, cancel := context.WithDeadline(ctx, deadline.Add(2*d.cfg.VerifyPoll))
	defer cancel()
	t := time.NewTimer(0)
	defer t.Stop()
	last := w.before
	for {
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		if ctx.Err() != nil {
			break
		}
		now := w.observe(octx)
		if now.Content != "" && now.Content == last.Content {
			now.ContentT = last.ContentT
		}
		last = now
		at, elsewhere := w.compare(now)
		if len(at) > 0 || effect.Lasting(w.before, now, elsewhere, d.cfg.Now()) {
			break
		}
		left := deadline.Sub(d.cfg.Now())
		if left <= 0 {
			break
		}
		t.Reset(min(d.cfg.VerifyPoll, left))
	}
	c.After = last.Digest()
	at, elsewhere := w.compare(last)
	var cut error
	if ctx.Err() != nil && d.cfg.Now().Before(deadline) {
		cut = ctx.Err()
	}
	unanswered := ""
	if w.before.Node != nil && last.NodeErr == effect.NodeUnanswered {
		unanswered = w.node.Ref
	}
	*eff = effect.Judge(at, elsewhere, cut, unanswered)
}

// observe reads what is cheap to see of the target now; what cannot be
// read is left empty and not compared.
func (w *watch) observe(ctx context.Context) effect.Observation {
	d, c, e := w.d, w.c, w.c.e
	o := effect.Observation{ContentT: d.cfg.Now()}
	if w.node != nil && w.read != nil {
		o.Node, w.read = w.read, nil // the verb's own read, once: the look before
	} else if w.node != nil {
		if r, ok := e.t.(kind.NodeReader); ok {
			n, err := r.ReadNode(ctx, *w.node)
			switch {
			case err == nil:
				o.Node = n
			case target.CodeOf(err) == target.CodeStaleRef:
				o.NodeErr = string(target.CodeStaleRef)
			default:
				o.NodeErr = effect.NodeUnanswered
			}
		}
	}
	// Read as relist reads, but a target that went is left in the table:
	// the next verb on it answers its gone code, as for any target.
	read := e.t.Info
	if r, ok := e.t.(kind.Refresher); ok {
		read = r.Refresh
	}
	var info kind.Info
	err := d.reg.Budgeted(ctx, e.disp, e.id, displays.ReadBudget, func(ctx context.Context) (err error) {
		info, err = read(ctx)
		return err
	})
	switch {
	case err == nil:
		o.HasInfo, o.Title = true, info.Title
		if _, ok := e.t.(kind.Navigator); ok {
			o.URL = info.App // a target that loads addresses: App is its address (else its program)
		}
	case target.CodeOf(err) == e.words().Gone:
		o.Gone = true
	}
	if e.disp != nil {
		d.reg.Rescan(ctx, e.disp)
	}
	o.Targets = map[target.ID]string{}
	for _, x := range d.entries(func(x *entry) bool { return x.rec.ExposedTo(c.Req.Session) }) {
		d.mu.Lock()
		o.Targets[x.id] = x.rec.Title
		d.mu.Unlock()
	}
	if cd, ok := e.t.(kind.ContentDigester); ok {
		if s, err := cd.ContentDigest(ctx); err == nil {
			o.Content = s
		}
	} else if (w.node == nil || c.Road == target.RoadPoint) && w.mayReadPixels() {
		// Pixels only where no node is read (a point, keys to the focused
		// node): a toolkit animates the node it acts on (a button's press,
		// a check's tick), which would read as a change elsewhere.
		if pic, err := e.t.Screenshot(ctx); err == nil && len(pic) > 0 {
			o.Content, o.Pixels = effect.PixelDigest(pic, w.at), true
		}
	}
	return o
}

// mayReadPixels reports whether the watch may read the target's pixels: a
// window of the person's own desktop only with the operator's pixels grant
// (a screenshot there may ask the person).
func (w *watch) mayReadPixels() bool {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	return !w.c.e.rec.Desktop || w.c.e.rec.Pixels
}

// compare says what changed between w.before and now: at the acted node
// (or the tab's address), and elsewhere.
func (w *watch) compare(now effect.Observation) (at, elsewhere []string) {
	s := effect.Subject{ID: w.c.e.id, Noun: w.c.e.words().Noun, Focuses: w.c.Facts.Focuses}
	if w.node != nil {
		s.Ref = w.node.Ref
	}
	return effect.Compare(w.before, now, s)
}
