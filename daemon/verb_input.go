package daemon

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/target"
)

// typeChunk is how many characters are injected between two re-checks of
// the lease, so a takeover cuts a long type within one chunk.
const typeChunk = 8

// checkType is type's check beyond its arguments' own rules (package
// daemon/args): the daemon's bound of text typed at once.
func checkType(d *Daemon, c *call) error {
	return args.TextWithin(args.Text(c.Args), d.cfg.MaxText, "typed at once")
}

// checkTypeKeys is checkType where every type is keys (a tab's).
func checkTypeKeys(d *Daemon, c *call) error {
	return args.TextWithin(args.Text(c.Args), d.cfg.MaxKeysText, "typed as keys")
}

// checkFill is fill's check, as checkType's.
func checkFill(d *Daemon, c *call) error {
	return args.TextWithin(args.Text(c.Args), d.cfg.MaxText, "filled at once")
}

// click acts on a node (@ref) or on a pixel of the target's screenshot
// (--at, through injection). On the tree road a node without Action is
// refused no_action: never a silent coordinate click. Where the probe says
// the target's nodes are reached by input (a tab), the backend checks the
// node visible, enabled and uncovered and clicks its centre.
func (d *Daemon) click(ctx context.Context, c *call) Response {
	e, a := c.e, c.Args.(args.Click)
	probe := d.probe(ctx, e)
	if a.At != "" {
		return d.point(ctx, c, probe, target.VerbClickAt)
	}
	if !probe.NodeInput && !probe.Tree {
		return d.fail(c, target.Decide(target.VerbSnapshot, probe, nil).Err())
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	n, err := e.node(a.Ref)
	if err != nil {
		if !probe.NodeInput {
			c.Road = target.RoadTree
		}
		return d.fail(c, err)
	}
	// On the tree the node is read once: the road is decided on it, the
	// look before acting takes it, and the backend acts on it.
	var read *kind.NodeRead
	if !probe.NodeInput {
		c.Road = target.RoadTree
		r, err := kind.ReadForAct(ctx, e.t, n)
		if err != nil {
			return d.fail(c, err)
		}
		read = &r
	}
	cap, err := decideOn(c, target.VerbClickRef, probe, read)
	if err != nil {
		return d.fail(c, err)
	}
	if err := d.still(e, c.Req.Session); err != nil {
		return d.fail(c, err)
	}
	w := c.watchEffect(ctx, d, stage.Acting{Node: &n, Read: factsOf(read)})
	d.nameActed(ctx, c, n, traitsOf(read), w)
	acted, err := actOn(ctx, e, n, read, cap.Means)
	if err != nil {
		return d.fail(c, d.cut(ctx, e, c.Req.Session, err))
	}
	did := "clicked " + actedRef(c)
	if read != nil {
		did = fmt.Sprintf("clicked %s %s through %s", a.Ref, describe(read.Traits), acted.Means.Words())
	}
	resp := Response{Did: did}
	w.After(ctx, &resp)
	return d.finish(c, resp, nil)
}

// decideOn is d.decide on the node as read (nil: none), answering the
// capability: its means are what the backend is handed.
func decideOn(c *call, verb target.Verb, p target.Probe, read *kind.NodeRead) (target.Capability, error) {
	cap := target.Decide(verb, p, traitsOf(read))
	if !cap.OK() {
		c.Road = ""
		return cap, cap.Err()
	}
	c.Road = cap.Road
	return cap, nil
}

// actOn clicks node n of e through means, on the node as read (nil: not
// read, the input road), and says what was done: a kind.OnceActor says it
// itself; another target's Act went the road the law decided.
func actOn(ctx context.Context, e *entry, n kind.Node, read *kind.NodeRead, means target.Means) (kind.Acted, error) {
	if oa, ok := e.t.(kind.OnceActor); ok && read != nil {
		return oa.ActOn(ctx, n, kind.ActOptions{Read: *read, Means: means})
	}
	return kind.Acted{Means: means}, e.t.Act(ctx, n)
}

func traitsOf(r *kind.NodeRead) *target.NodeTraits {
	if r == nil {
		return nil
	}
	return &r.Traits
}

func factsOf(r *kind.NodeRead) *target.Node {
	if r == nil {
		return nil
	}
	return r.Facts
}

// point runs click --at and scroll: injected pointer input at a pixel of the
// target's own screenshot (scroll: its centre by default).
func (d *Daemon) point(ctx context.Context, c *call, probe target.Probe, verb target.Verb) Response {
	e := c.e
	if err := d.decide(c, verb, probe, nil); err != nil {
		return d.fail(c, err)
	}
	info := d.seen(e)
	if !info.Viewable {
		return d.fail(c, notVisible(e))
	}
	b := info.Bounds
	at := args.Point(c.Args)
	if at != nil && b.W > 0 && b.H > 0 && (at.X < 0 || at.Y < 0 || at.X >= b.W || at.Y >= b.H) {
		return d.fail(c, target.Refuse(target.CodeOutsideWindow,
			"%d,%d is outside %s, whose screenshot is %dx%d pixels", at.X, at.Y, e.id, b.W, b.H).
			With("x", at.X).With("y", at.Y).With("width", b.W).With("height", b.H))
	}
	sc, _ := c.Args.(args.Scroll) // click --at has no direction
	dir, steps := sc.Direction, sc.By
	if dir == "" {
		dir = "down"
	}
	if steps == 0 {
		steps = 3
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	// The event goes to whichever window is on top there: raise it first,
	// and look at it raised before acting, holding neither the display's
	// input nor its stacking while it looks.
	p := kind.Point{X: b.W / 2, Y: b.H / 2}
	if at != nil {
		p = *at
	}
	if !args.NoVerify(c.Args) {
		if err := d.raisedAt(ctx, c, info, b.X+p.X, b.Y+p.Y); err != nil {
			return d.fail(c, err)
		}
	}
	w := c.watchEffect(ctx, d, stage.Acting{At: &p})
	release, err := e.disp.Injecting(ctx, e.id)
	if err != nil {
		return d.fail(c, err)
	}
	release = once(release)
	defer release()
	unstack, err := e.disp.Stacking(ctx)
	if err != nil {
		return d.fail(c, err)
	}
	unstack = once(unstack)
	defer unstack()
	if err := d.still(e, c.Req.Session); err != nil {
		return d.fail(c, err)
	}
	// Raised again: another window may have come over it while it looked.
	if err := e.disp.RaiseTopAt(ctx, e.t, e.id, info, b.X+p.X, b.Y+p.Y); err != nil {
		return d.fail(c, d.cut(ctx, e, c.Req.Session, err))
	}
	noun := e.words().Noun
	var did string
	if verb == target.VerbScroll {
		err = e.t.Scroll(ctx, at, dir, steps)
		did = fmt.Sprintf("scrolled %s by %d", dir, steps)
		if at != nil || b.W > 0 {
			did += fmt.Sprintf(" at %d,%d of the %s", p.X, p.Y, noun)
		}
	} else {
		err = e.t.ClickAt(ctx, p)
		did = fmt.Sprintf("clicked at %d,%d of the %s", p.X, p.Y, noun)
	}
	if err != nil {
		return d.fail(c, d.cut(ctx, e, c.Req.Session, err))
	}
	resp := Response{Did: did}
	// The display's input and stacking are free while the verb watches:
	// only the target's own lock is held, so a takeover cuts the wait.
	release()
	unstack()
	w.After(ctx, &resp)
	return d.finish(c, resp, nil)
}

// raisedAt raises c's target on top at the root point (x, y) with the
// display's stacking slot held only for that, so the look before a point
// verb acts sees it as the verb will act on it.
func (d *Daemon) raisedAt(ctx context.Context, c *call, info kind.Info, x, y int) error {
	unstack, err := c.e.disp.Stacking(ctx)
	if err != nil {
		return err
	}
	defer unstack()
	if err := d.still(c.e, c.Req.Session); err != nil {
		return err
	}
	return d.cut(ctx, c.e, c.Req.Session, c.e.disp.RaiseTopAt(ctx, c.e.t, c.e.id, info, x, y))
}

// nameActed notes the node a verb acts on (its role and name) for its
// answer and its trace, once: from the traits the verb read already, what
// its watch (nil: none) saw of the node before it acted, the session's
// last snapshot that shows it (the ref as the agent read it), or else read
// from the node (bounded; a node that does not answer is left unnamed).
func (d *Daemon) nameActed(ctx context.Context, c *call, n kind.Node, traits *target.NodeTraits, w stage.Watch) {
	e := c.e
	if traits == nil && w != nil && w.Node() != nil {
		traits = &target.NodeTraits{Role: w.Node().Role, Name: w.Node().Name}
	}
	if traits == nil {
		d.mu.Lock()
		traits = e.last.Named(c.Req.Session, n.Key)
		d.mu.Unlock()
	}
	if traits != nil {
		c.Acted = &target.NodeTraits{Role: traits.Role, Name: traits.Name}
		return
	}
	_ = d.reg.Budgeted(ctx, e.disp, e.id, displays.ReadBudget, func(ctx context.Context) error {
		tr, err := kind.ReadName(ctx, e.t, n)
		if err == nil && (tr.Role != "" || tr.Name != "") {
			c.Acted = &tr
		}
		return err
	})
}

// actedRef is the ref a verb acted on, with the node's role and name when
// nameActed knew them.
func actedRef(c *call) string {
	if c.Acted != nil {
		if s := describe(*c.Acted); s != "" {
			return args.Ref(c.Args) + " " + s
		}
	}
	return args.Ref(c.Args)
}

// scroll turns the wheel at a pixel of the target (its centre by default).
func (d *Daemon) scroll(ctx context.Context, c *call) Response {
	return d.point(ctx, c, d.probe(ctx, c.e), target.VerbScroll)
}

// key presses one chord in the target's focused node (a window is raised
// and focused first).
func (d *Daemon) key(ctx context.Context, c *call) Response {
	chord, err := target.ParseChord(c.Args.(args.Key).Chord)
	if err != nil {
		return d.fail(c, err)
	}
	if err := d.decide(c, target.VerbKey, d.probe(ctx, c.e), nil); err != nil {
		return d.fail(c, err)
	}
	var w stage.Watch
	err = d.inject(ctx, c, func(ctx context.Context) error {
		w = c.watchEffect(ctx, d, stage.Acting{})
		return nil
	}, func(ctx context.Context) error {
		return c.e.t.Key(ctx, chord)
	})
	if err != nil {
		return d.fail(c, err)
	}
	resp := Response{Did: "pressed " + chord.String() + keysRead(ctx, c.e)}
	d.verifyAfter(ctx, c, w, &resp)
	return d.finish(c, resp, nil)
}

// verifyAfter runs w.After after the verb let go of its target (inject
// did), with the target's lock taken again so a takeover cancels the wait.
func (d *Daemon) verifyAfter(ctx context.Context, c *call, w stage.Watch, resp *Response) {
	if w == nil {
		return
	}
	vctx, end, err := d.begin(ctx, c.e)
	if err != nil {
		w.Unverified(resp, "the target was busy")
		return
	}
	defer end()
	w.After(vctx, resp)
}

// once makes f safe to call more than once: it runs the first time.
func once(f func()) func() {
	done := false
	return func() {
		if !done {
			done = true
			f()
		}
	}
}

// keysRead waits (bounded) until the application with the keyboard focus has
// read the keys just sent, where it reads them later than they are sent (a
// kind.Settler), so a snapshot taken after the verb answers sees their
// effect, and says which it was.
func keysRead(ctx context.Context, e *entry) string {
	s, ok := e.t.(kind.Settler)
	if !ok {
		return ""
	}
	read, err := s.Settle(ctx)
	switch {
	case err != nil:
		return " (not yet confirmed read by the application: " + err.Error() + ")"
	case !read:
		return " (the application cannot confirm it has read them yet)"
	default:
		return ""
	}
}

// inject runs f with c's target's lock and its display's injection slot
// held, the target raised and focused, and the lease re-checked just
// before. look (nil: none) runs first, with the target raised and the
// lock held but neither the display's input nor its stacking: the look
// before acting, which may take up to VerifyWait, blocks no other target
// of the display.
func (d *Daemon) inject(ctx context.Context, c *call, look, f func(context.Context) error) error {
	e := c.e
	if !d.seen(e).Viewable {
		return notVisible(e)
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return err
	}
	defer end()
	if err := d.raised(ctx, c, look != nil); err != nil {
		return err
	}
	if look != nil {
		if err := look(ctx); err != nil {
			return d.cut(ctx, e, c.Req.Session, err)
		}
	}
	release, err := e.disp.Injecting(ctx, e.id)
	if err != nil {
		return err
	}
	defer release()
	if err := d.raised(ctx, c, true); err != nil {
		return err
	}
	return d.cut(ctx, e, c.Req.Session, f(ctx))
}

// raised re-checks the lease and, when up, raises and focuses c's target
// with its display's stacking slot held for that only.
func (d *Daemon) raised(ctx context.Context, c *call, up bool) error {
	if err := d.still(c.e, c.Req.Session); err != nil {
		return err
	}
	if !up {
		return nil
	}
	unstack, err := c.e.disp.Stacking(ctx)
	if err != nil {
		return err
	}
	err = displays.Raise(ctx, c.e.t)
	unstack()
	return d.cut(ctx, c.e, c.Req.Session, err)
}

// typeText types text into a node (@ref: EditableText on the tree road, or
// focus and keys where the node takes focus) or into the focused node
// (keys). Keys go in chunks with the lease re-checked between them, so a
// takeover cuts a long type and the answer says how far it got. The text
// is never audited.
func (d *Daemon) typeText(ctx context.Context, c *call) Response {
	e, a := c.e, c.Args.(args.Type)
	n := utf8.RuneCountInString(a.Text)
	probe := d.probe(ctx, e)
	var (
		verb = target.VerbTypeFocus
		node kind.Node
		read *kind.NodeRead // the node as read once (the tree's road)
	)
	if a.Ref != "" {
		var err error
		if node, err = e.node(a.Ref); err != nil {
			return d.fail(c, err)
		}
		if !probe.NodeInput {
			if !probe.Tree {
				return d.fail(c, target.Decide(target.VerbSnapshot, probe, nil).Err())
			}
			r, err := kind.ReadForAct(ctx, e.t, node)
			if err != nil {
				c.Road = target.RoadTree
				return d.fail(c, err)
			}
			read = &r
		}
		verb = target.VerbTypeRef
	}
	if _, err := decideOn(c, verb, probe, read); err != nil {
		return d.fail(c, err)
	}
	traits := traitsOf(read)
	if c.Road == target.RoadKeys && n > d.cfg.MaxKeysText {
		return d.fail(c, args.TooLong(n, d.cfg.MaxKeysText, "typed as keys"))
	}
	// where names the node typed into, known before the typing (a field
	// may be named by what it holds).
	where := func(w stage.Watch) string {
		if a.Ref == "" {
			return "the focused node"
		}
		d.nameActed(ctx, c, node, traits, w)
		return actedRef(c)
	}
	if c.Road == target.RoadTree {
		return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
			if err := d.still(e, c.Req.Session); err != nil {
				return Response{}, err
			}
			w := c.watchEffect(ctx, d, stage.Acting{Node: &node, Read: factsOf(read)})
			into := where(w)
			if err := kind.InsertOn(ctx, e.t, node, read, a.Text); err != nil {
				return Response{}, err
			}
			resp := Response{Did: fmt.Sprintf("inserted %d characters into %s through EditableText", n, into)}
			w.After(ctx, &resp)
			return resp, nil
		})
	}
	typed := 0
	var (
		w    stage.Watch
		into string
	)
	err := d.inject(ctx, c, func(ctx context.Context) error {
		// Focused first: the keys go where it is, and its focus is no
		// effect of the typing.
		var acted *kind.Node
		if a.Ref != "" {
			if err := e.t.Focus(ctx, node); err != nil {
				return err
			}
			acted = &node
		}
		w = c.watchEffect(ctx, d, stage.Acting{Node: acted})
		into = where(w)
		return nil
	}, func(ctx context.Context) error {
		rest := a.Text
		for rest != "" {
			chunk := rest
			if i := byteIndexOfRune(rest, typeChunk); i > 0 {
				chunk = rest[:i]
			}
			if err := d.still(e, c.Req.Session); err != nil {
				return err
			}
			// Keys sent to a window that went go to whatever has the
			// focus then: the target must still be there for each chunk.
			if typed > 0 {
				if _, err := d.refresh(ctx, e); err != nil {
					return err
				}
			}
			if err := e.t.Type(ctx, chunk); err != nil {
				if lerr := d.still(e, c.Req.Session); lerr != nil {
					return lerr
				}
				return err
			}
			typed += utf8.RuneCountInString(chunk)
			rest = rest[len(chunk):]
		}
		return nil
	})
	if err != nil {
		if r, ok := target.AsRefusal(err); ok && typed < n {
			r.With("typed", typed).With("of", n).With("partial", true)
		}
		return d.fail(c, err)
	}
	resp := Response{Did: fmt.Sprintf("typed %d characters as keys into %s", n, into) + keysRead(ctx, e)}
	d.verifyAfter(ctx, c, w, &resp)
	return d.finish(c, resp, nil)
}

// byteIndexOfRune is the byte offset of the n-th rune of s, or -1.
func byteIndexOfRune(s string, n int) int {
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return -1
}

// fill replaces a field's whole text (@ref): a tab's as a paste would; a
// window's through the node's EditableText, on the node read once as type
// @ref reads it (the law decides on it, the look before acting takes it),
// and read back. The text is never audited.
func (d *Daemon) fill(ctx context.Context, c *call) Response {
	e, a := c.e, c.Args.(args.Fill)
	probe := d.probe(ctx, e)
	node, err := e.node(a.Ref)
	if err != nil {
		return d.fail(c, err)
	}
	var read *kind.NodeRead
	if !probe.NodeInput {
		r, err := kind.ReadForAct(ctx, e.t, node)
		if err != nil {
			return d.fail(c, err)
		}
		read = &r
	}
	if err := kind.Fillable(read); err != nil {
		return d.fail(c, err)
	}
	if _, err := decideOn(c, target.VerbTypeRef, probe, read); err != nil {
		return d.fail(c, err)
	}
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
		if err := d.still(e, c.Req.Session); err != nil {
			return Response{}, err
		}
		w := c.watchEffect(ctx, d, stage.Acting{Node: &node, Read: factsOf(read)})
		d.nameActed(ctx, c, node, traitsOf(read), w)
		how, err := kind.Fill(ctx, e.t, node, a.Text, read)
		if err != nil {
			return Response{}, err
		}
		resp := Response{Did: fmt.Sprintf("filled %s with %d characters%s", actedRef(c), utf8.RuneCountInString(a.Text), how)}
		w.After(ctx, &resp)
		return resp, nil
	})
}
