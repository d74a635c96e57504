package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// LiveView is the live view the daemon serves (package daemon/live): a
// viewer page on 127.0.0.1 behind a token, a WebRTC pane per target, and
// the person's Take over and Hand back. It reaches targets only through
// the daemon's Live* methods below.
type LiveView interface {
	// Address starts serving on first use and answers the viewer page's
	// address with its token ("http://127.0.0.1:<port>/#token=…"), or
	// live_view_unavailable.
	Address() (string, error)
	// State says in words what it is doing, for status and doctor; never
	// its token.
	State() (string, bool)
	// Close stops it: its server, every viewer and pipeline.
	Close() error
}

// AgentMark is where an agent's verb last acted on a target, in the pixels
// of the target's own picture. It carries no text the agent typed.
type AgentMark struct {
	Verb    string       `json:"verb"`
	Session string       `json:"session"`
	Point   *Point       `json:"point,omitempty"`
	Box     *target.Rect `json:"box,omitempty"`
	Ref     string       `json:"ref,omitempty"`
	At      time.Time    `json:"at"`
	Seq     uint64       `json:"seq"`
}

// markAgent records where an agent's verb acted, for the live view's agent
// cursor: the point of click --at and scroll (the centre of a window when
// no point was given), or the box of the node of @ref as the target's last
// snapshot placed it. It keeps no text.
func (d *Daemon) markAgent(c *call) {
	verb := strings.TrimPrefix(c.req.Verb, "browser.")
	switch verb {
	case "click", "scroll", "type", "key", "fill":
	default:
		return
	}
	e, req := c.e, c.req
	m := &AgentMark{Verb: req.Verb, Session: req.Session, Ref: req.Ref, At: d.cfg.Now().UTC()}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := e.info.Bounds
	switch {
	case req.At != nil:
		p := *req.At
		m.Point = &p
	case verb == "scroll" && b.W > 0:
		m.Point = &Point{X: b.W / 2, Y: b.H / 2}
	}
	if req.Ref != "" {
		if nb, ok := e.bounds[req.Ref]; ok {
			box := target.Rect{X: nb.X - b.X, Y: nb.Y - b.Y, W: nb.W, H: nb.H}
			m.Box = &box
			m.Point = &Point{X: box.X + box.W/2, Y: box.Y + box.H/2}
		}
	}
	d.markSeq++
	m.Seq = d.markSeq
	e.mark = m
}

// LiveTarget is one target as the live view shows it. It never carries text
// an agent typed or filled, nor a tab's address (which may hold secrets).
type LiveTarget struct {
	ID      target.ID
	Kind    target.Kind
	Title   string
	App     string // a window's program; "" for a tab
	Lease   lease.Lease
	Width   int // a window's size; 0 for a tab (its picture is its viewport)
	Height  int
	Agent   *AgentMark // where an agent last acted
	Display string     // the display a window lives on
	Desktop bool       // a window of the user's own desktop: its pane says "your desktop"
}

// LiveTargets lists every target of this host for the live view, freshly
// read; targets that are gone are dropped.
func (d *Daemon) LiveTargets(ctx context.Context) []LiveTarget {
	var out []LiveTarget
	for _, e := range d.entries(nil) {
		info, err := d.relist(ctx, e)
		if target.CodeOf(err) == e.words().Gone {
			continue
		}
		d.mu.Lock()
		lt := LiveTarget{ID: e.id, Kind: e.id.Kind(), Title: e.rec.Title, Display: e.rec.Display, Desktop: e.rec.Desktop}
		if e.tab == nil {
			lt.App = e.rec.App
		}
		if err != nil {
			info = e.info
		}
		lt.Width, lt.Height = info.Bounds.W, info.Bounds.H
		if e.mark != nil {
			m := *e.mark
			lt.Agent = &m
		}
		d.mu.Unlock()
		lt.Lease = d.leases.Get(e.id)
		out = append(out, lt)
	}
	return out
}

// LiveCheck reads target id afresh: an id that names no target is
// unknown_target, a target that is gone its kind's gone code.
func (d *Daemon) LiveCheck(ctx context.Context, id target.ID) error {
	e, err := d.find(string(id))
	if err != nil {
		return err
	}
	_, err = d.refresh(ctx, e)
	return err
}

// LiveFrames opens a stream of target id's pictures, freshly read first (a
// target that is gone is refused by its kind's gone code).
func (d *Daemon) LiveFrames(ctx context.Context, id target.ID, o kind.FrameOptions) (target.FrameSource, error) {
	e, err := d.find(string(id))
	if err != nil {
		return nil, err
	}
	if _, err := d.refresh(ctx, e); err != nil {
		return nil, err
	}
	ctx = kind.WithCaller(ctx, kind.Caller{Session: liveViewSession, Verb: "watch", Target: string(id)})
	return e.t.Frames(ctx, o)
}

// LiveLease is target id's lease as it is now.
func (d *Daemon) LiveLease(id target.ID) lease.Lease { return d.leases.Get(id) }

// LiveInput delivers one event of a person from the live view. It passes
// the gate agent verbs pass: the person must be the one who took the target
// over (user mode, as user), the event waits for the target's lock and its
// display's one keyboard and pointer, and a window is raised first for
// anything but a move or a release, as click --at does. A takeover never
// waits for any of it.
func (d *Daemon) LiveInput(ctx context.Context, id target.ID, user string, ev kind.Input) error {
	ctx = kind.WithCaller(ctx, kind.Caller{Session: liveViewSession, Verb: "input (" + user + ")", Target: string(id)})
	e, err := d.find(string(id))
	if err != nil {
		return err
	}
	if l := d.leases.Get(id); l.Input != lease.InputUser || l.User != user {
		return target.Refuse(target.CodeHeld, "%s is not taken over by %s: take it over first", id, user).With("target", string(id))
	}
	d.leases.UserActivity(id)
	info := d.seen(e)
	if ev.Type != kind.InputMove {
		if info, err = d.refresh(ctx, e); err != nil {
			return err
		}
	}
	switch ev.Type {
	case kind.InputKey, kind.InputText:
	default:
		b := info.Bounds
		if b.W > 0 && b.H > 0 && (ev.X < 0 || ev.Y < 0 || int(ev.X) >= b.W || int(ev.Y) >= b.H) {
			return target.Refuse(target.CodeOutsideWindow, "%g,%g is outside %s", ev.X, ev.Y, id)
		}
	}
	select {
	case e.gate <- struct{}{}:
		defer func() { <-e.gate }()
	case <-ctx.Done():
		return target.Refuse(target.CodeTimeout, "%s was busy", id).Wrap(ctx.Err())
	}
	release, err := d.injecting(ctx, e)
	if err != nil {
		return err
	}
	defer release()
	// Still this person's after the wait: a handback meanwhile released
	// what was held, and a press let through now would stay held.
	if d.entryOf(id) != e {
		return target.Refuse(e.words().Gone, "%s went away while this input waited", id).With("target", string(id))
	}
	if l := d.leases.Get(id); l.Input != lease.InputUser || l.User != user {
		return target.Refuse(target.CodeHeld, "%s was handed back while this input waited", id).With("target", string(id))
	}
	if ev.Type != kind.InputMove && ev.Type != kind.InputUp {
		unstack, err := d.stacking(ctx, e)
		if err != nil {
			return err
		}
		err = raise(ctx, e)
		unstack()
		if err != nil {
			return err
		}
	}
	return e.t.Input(ctx, ev)
}

// LiveTakeover is the live view's Take over: the takeover verb, as user,
// from the page — the operator, who sees every target. The page refuses a
// takeover while another person drives (a viewer still watching, or a user
// of the command line); what reaches here over another user's takeover is a
// viewer's that left, so it is replaced, forced, and that user is told.
func (d *Daemon) LiveTakeover(ctx context.Context, id target.ID, user string) Response {
	l := d.leases.Get(id)
	force := l.Input == lease.InputUser && l.User != user
	return d.guarded(asOperator(ctx), verbs["takeover"], Request{Verb: "takeover", Session: liveViewSession, Target: string(id), User: user, Force: force})
}

// LiveHandback is the live view's Hand back: the handback verb, as user;
// then whatever the person's input still holds (a drag's button) is
// released before the agents act again.
func (d *Daemon) LiveHandback(ctx context.Context, id target.ID, user string) Response {
	resp := d.guarded(asOperator(ctx), verbs["handback"], Request{Verb: "handback", Session: liveViewSession, Target: string(id), User: user})
	if resp.OK {
		if e, err := d.find(string(id)); err == nil {
			d.releaseFor(ctx, e)
		}
	}
	return resp
}
