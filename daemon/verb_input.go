package daemon

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// typeChunk is how many characters are injected between two re-checks of
// the lease, so a takeover cuts a long type within one chunk.
const typeChunk = 8

// click acts on a node (@ref, through its Action only) or on a pixel of the
// window's screenshot (--at, through injection). A node without Action is
// refused no_action: never a silent coordinate click.
func (d *Daemon) click(ctx context.Context, req Request) Response {
	if (req.Ref == "") == (req.At == nil) {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "click needs exactly one of @ref or --at x,y"))
	}
	e, g, disp, err := d.useDisplay(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	probe := disp.Probe(ctx, e.t.PID)
	if req.At != nil {
		return d.point(ctx, req, e, g, disp, probe, target.VerbClickAt)
	}
	key, err := e.refs.Key(req.Ref)
	if err != nil {
		return d.finish(req, e, g, target.RoadTree, Response{}, err)
	}
	tree := disp.Tree()
	if tree == nil {
		return d.finish(req, e, g, "", Response{}, target.Decide(target.VerbSnapshot, probe, nil).Err())
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.finish(req, e, g, target.RoadTree, Response{}, err)
	}
	defer end()
	win := d.window(e)
	traits, err := tree.Node(ctx, win, key)
	if err != nil {
		return d.finish(req, e, g, target.RoadTree, Response{}, err)
	}
	c := target.Decide(target.VerbClickRef, probe, &traits)
	if !c.OK() {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	if err := d.leases.Check(e.t.ID, req.Session); err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	if err := tree.DoAction(ctx, win, key); err != nil {
		return d.finish(req, e, g, c.Road, Response{}, d.cut(ctx, e, req.Session, err))
	}
	return d.finish(req, e, g, c.Road, Response{Did: fmt.Sprintf("clicked %s %s through its Action", req.Ref, describe(traits))}, nil)
}

// point runs click --at and scroll: injected pointer input at a pixel of the
// window's own screenshot.
func (d *Daemon) point(ctx context.Context, req Request, e *entry, g lease.Grant, disp Display, probe target.Probe, verb target.Verb) Response {
	c := target.Decide(verb, probe, nil)
	inj := disp.Input()
	if !c.OK() || inj == nil {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	win := d.window(e)
	if !win.Viewable {
		return d.finish(req, e, g, c.Road, Response{}, notVisible(e))
	}
	p := Point{X: win.Bounds.W / 2, Y: win.Bounds.H / 2}
	if req.At != nil {
		p = *req.At
	}
	if p.X < 0 || p.Y < 0 || p.X >= win.Bounds.W || p.Y >= win.Bounds.H {
		return d.finish(req, e, g, c.Road, Response{}, target.Refuse(target.CodeOutsideWindow,
			"%d,%d is outside %s, whose screenshot is %dx%d pixels", p.X, p.Y, e.t.ID, win.Bounds.W, win.Bounds.H).
			With("x", p.X).With("y", p.Y).With("width", win.Bounds.W).With("height", win.Bounds.H))
	}
	steps := req.By
	if verb == target.VerbScroll {
		switch req.Dir {
		case "up", "down", "left", "right":
		default:
			return d.finish(req, e, g, c.Road, Response{}, target.Refuse(target.CodeBadRequest, "scroll direction %q: use up, down, left or right", req.Dir))
		}
		if steps == 0 {
			steps = 3
		}
		if steps < 1 || steps > 100 {
			return d.finish(req, e, g, c.Road, Response{}, target.Refuse(target.CodeBadRequest, "--by %d: use 1 to 100 steps", req.By))
		}
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	defer end()
	release, err := d.injecting(ctx, e)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	defer release()
	unstack, err := d.stacking(ctx)
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	defer unstack()
	if err := d.leases.Check(e.t.ID, req.Session); err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	x, y := win.Bounds.X+p.X, win.Bounds.Y+p.Y
	// Raise it first: the event goes to whichever window is on top there.
	if err := disp.Raise(ctx, win); err != nil {
		return d.finish(req, e, g, c.Road, Response{}, d.cut(ctx, e, req.Session, err))
	}
	if err := d.topAt(ctx, disp, e, win, x, y); err != nil {
		return d.finish(req, e, g, c.Road, Response{}, d.cut(ctx, e, req.Session, err))
	}
	var did string
	if verb == target.VerbScroll {
		err = inj.Scroll(ctx, x, y, req.Dir, steps)
		did = fmt.Sprintf("scrolled %s by %d at %d,%d of the window", req.Dir, steps, p.X, p.Y)
	} else {
		err = inj.Click(ctx, x, y, 1, 1)
		did = fmt.Sprintf("clicked at %d,%d of the window", p.X, p.Y)
	}
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, d.cut(ctx, e, req.Session, err))
	}
	return d.finish(req, e, g, c.Road, Response{Did: did}, nil)
}

// scroll scrolls at a pixel of the window (its centre by default).
func (d *Daemon) scroll(ctx context.Context, req Request) Response {
	e, g, disp, err := d.useDisplay(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	return d.point(ctx, req, e, g, disp, disp.Probe(ctx, e.t.PID), target.VerbScroll)
}

// key sends one chord to the window (focused first).
func (d *Daemon) key(ctx context.Context, req Request) Response {
	chord, err := target.ParseChord(req.Chord)
	if err != nil {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, err)
	}
	e, g, disp, err := d.useDisplay(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	c := target.Decide(target.VerbKey, disp.Probe(ctx, e.t.PID), nil)
	inj := disp.Input()
	if !c.OK() || inj == nil {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	err = d.inject(ctx, req, e, disp, func(ctx context.Context, win Window) error {
		return inj.Key(ctx, chord)
	})
	if err != nil {
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	return d.finish(req, e, g, c.Road, Response{Did: "pressed " + chord.String() + keysRead(ctx, inj)}, nil)
}

// keysRead waits (bounded) until the application with the keyboard focus has
// read the keys just sent, so a snapshot taken after the verb answers sees
// their effect, and says which it was. Keys reach an application
// asynchronously: without this an agent could read the tree a moment
// before its own keys were handled.
func keysRead(ctx context.Context, inj Injector) string {
	ok, err := inj.Settle(ctx)
	switch {
	case err != nil:
		return " (not yet confirmed read by the application: " + err.Error() + ")"
	case !ok:
		return " (the application cannot confirm it has read them yet)"
	default:
		return ""
	}
}

// inject runs f with e's lock and the injection slot held, e's window
// focused, and the lease re-checked just before.
func (d *Daemon) inject(ctx context.Context, req Request, e *entry, disp Display, f func(context.Context, Window) error) error {
	win := d.window(e)
	if !win.Viewable {
		return notVisible(e)
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return err
	}
	defer end()
	release, err := d.injecting(ctx, e)
	if err != nil {
		return err
	}
	defer release()
	if err := d.leases.Check(e.t.ID, req.Session); err != nil {
		return err
	}
	unstack, err := d.stacking(ctx)
	if err != nil {
		return err
	}
	err = disp.Raise(ctx, win)
	unstack()
	if err != nil {
		return d.cut(ctx, e, req.Session, err)
	}
	return d.cut(ctx, e, req.Session, f(ctx, win))
}

// typeText types text into a node (@ref: EditableText, or focus + keys where
// the node takes focus) or into the focused node of the window (keys).
func (d *Daemon) typeText(ctx context.Context, req Request) Response {
	n := utf8.RuneCountInString(req.Text)
	if n > d.cfg.MaxText {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, tooLong(n, d.cfg.MaxText, "typed at once"))
	}
	if !utf8.ValidString(req.Text) {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "the text is not valid UTF-8"))
	}
	e, g, disp, err := d.useDisplay(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	probe := disp.Probe(ctx, e.t.PID)
	var (
		c      target.Capability
		key    string
		traits target.NodeTraits
	)
	if req.Ref != "" {
		if key, err = e.refs.Key(req.Ref); err != nil {
			return d.finish(req, e, g, "", Response{}, err)
		}
		tree := disp.Tree()
		if tree == nil {
			return d.finish(req, e, g, "", Response{}, target.Decide(target.VerbSnapshot, probe, nil).Err())
		}
		if traits, err = tree.Node(ctx, d.window(e), key); err != nil {
			return d.finish(req, e, g, target.RoadTree, Response{}, err)
		}
		c = target.Decide(target.VerbTypeRef, probe, &traits)
	} else {
		c = target.Decide(target.VerbTypeFocus, probe, nil)
	}
	if !c.OK() {
		return d.finish(req, e, g, "", Response{}, c.Err())
	}
	if c.Road == target.RoadKeys && n > d.cfg.MaxKeysText {
		return d.finish(req, e, g, c.Road, Response{}, tooLong(n, d.cfg.MaxKeysText, "typed as keys"))
	}
	where := "the focused node"
	if req.Ref != "" {
		where = req.Ref + " " + describe(traits)
	}
	if c.Road == target.RoadTree {
		ctx, end, err := d.begin(ctx, e)
		if err != nil {
			return d.finish(req, e, g, c.Road, Response{}, err)
		}
		defer end()
		if err := d.leases.Check(e.t.ID, req.Session); err != nil {
			return d.finish(req, e, g, c.Road, Response{}, err)
		}
		if err := disp.Tree().InsertText(ctx, d.window(e), key, req.Text); err != nil {
			return d.finish(req, e, g, c.Road, Response{}, d.cut(ctx, e, req.Session, err))
		}
		return d.finish(req, e, g, c.Road, Response{Did: fmt.Sprintf("inserted %d characters into %s through EditableText", n, where)}, nil)
	}
	inj := disp.Input()
	typed := 0
	err = d.inject(ctx, req, e, disp, func(ctx context.Context, win Window) error {
		if req.Ref != "" {
			if err := disp.Tree().GrabFocus(ctx, win, key); err != nil {
				return err
			}
		}
		rest := req.Text
		for rest != "" {
			chunk := rest
			if i := byteIndexOfRune(rest, typeChunk); i > 0 {
				chunk = rest[:i]
			}
			if err := d.leases.Check(e.t.ID, req.Session); err != nil {
				return err
			}
			if err := inj.Type(ctx, chunk); err != nil {
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
		return d.finish(req, e, g, c.Road, Response{}, err)
	}
	return d.finish(req, e, g, c.Road, Response{Did: fmt.Sprintf("typed %d characters as keys into %s", n, where) + keysRead(ctx, inj)}, nil)
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

func tooLong(n, limit int, how string) error {
	return target.Refuse(target.CodeTextTooLong, "the text is %d characters; at most %d can be %s (split it)", n, limit, how).
		With("limit", limit).With("length", n)
}

func describe(n target.NodeTraits) string {
	switch {
	case n.Role != "" && n.Name != "":
		return fmt.Sprintf("(%s %q)", n.Role, n.Name)
	case n.Role != "":
		return "(" + n.Role + ")"
	}
	return ""
}
