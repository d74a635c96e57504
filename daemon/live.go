package daemon

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
)

// LiveView is the live view the daemon serves (package daemon/live): a
// viewer page on 127.0.0.1 behind a token, a WebRTC pane per target, and
// the person's Take over and Hand back. It reaches targets only through
// the LiveHands it is made with (below).
type LiveView interface {
	// Address starts serving on first use and answers where: the viewer
	// page's address with its token ("http://127.0.0.1:<port>/#token=…")
	// and the port of its video's ICE-TCP road, or live_view_unavailable.
	Address() (LiveAddress, error)
	// State says in words what it is doing, for status and doctor; never
	// its token.
	State() (string, bool)
	// Close stops it: its server, every viewer and pipeline.
	Close() error
}

// LiveAddress is where the live view serves.
type LiveAddress struct {
	// URL is the viewer page's address, with its token.
	URL string
	// ICETCPPort is the port on 127.0.0.1 of the passive ICE-TCP
	// candidate every viewer is offered beside UDP (0: none): the road of
	// the video through a tunnel that carries TCP only (ssh -L). watch
	// says it as the fact ice_tcp_port.
	ICETCPPort int
}

// watchingHost is what the core lends the watch verb (watchingHands);
// package daemon/watching spells the same interface (watching.Host), where
// each method is said.
type watchingHost = interface {
	Reach(ctx context.Context, c *stage.Call) (*display, error)
	Live() bool
	LiveAddress() (url string, iceTCPPort int, err error)
}

// watchingHands is the core as the watch verb sees it (watchingHost).
type watchingHands struct{ d *Daemon }

func (h watchingHands) Reach(ctx context.Context, sc *stage.Call) (*display, error) {
	c := callOf(sc)
	defer c.reached(h.d)
	e, err := h.d.lookup(ctx, sc)
	if err != nil {
		return nil, err
	}
	c.e = e
	return e.disp, nil
}

func (h watchingHands) Live() bool { return h.d.live != nil }

func (h watchingHands) LiveAddress() (string, int, error) {
	addr, err := h.d.live.Address()
	return addr.URL, addr.ICETCPPort, err
}

// markReader is the registered stage that keeps the agent's marks
// (daemon/marks): the last place an agent's verb acted on a target, for
// the live view's agent cursor.
type markReader interface {
	Mark(id target.ID) *wire.AgentMark
}

// markBook answers the stage of ch that keeps the agent's marks, or nil
// when none is registered.
func markBook(ch *stage.Chain) markReader {
	for _, s := range ch.Stages() {
		if m, ok := s.(markReader); ok {
			return m
		}
	}
	return nil
}

// LiveHands is the core as the live view sees it (package daemon/live's
// Core), what Config.Live is handed: a snapshot of the targets with their
// leases, a target's pictures, and the gate a person's input, takeover and
// handback pass — the gate agent verbs pass (issue 10's seam). What the
// view makes of them (a session's strip, a context's name, the Stop of an
// idle browser) is the view's own.
type LiveHands struct{ d *Daemon }

// LiveHandsOf is d as the live view sees it, for tests that act as the
// page without serving it.
func LiveHandsOf(d *Daemon) LiveHands { return LiveHands{d} }

// LiveTarget is one target as the core lists it for the live view. It
// never carries text an agent typed or filled, nor a tab's address (which
// may hold secrets).
type LiveTarget struct {
	ID      target.ID
	Kind    target.Kind
	Title   string
	App     string // a window's program; "" for a tab
	Lease   lease.Lease
	Width   int // a window's size; 0 for a tab (its picture is its viewport)
	Height  int
	Agent   *wire.AgentMark // where an agent last acted (daemon/marks)
	Display string          // the display a window lives on
	Desktop bool            // a window of the user's own desktop: its pane says "your desktop"
	Origin  string          // the session that opened it
	Opened  time.Time       // when it was opened
	// AppProfile is the profile of a desktop app's window; "" otherwise.
	AppProfile string
	// Tab is the browser context a tab lives in; nil for a window.
	Tab *LiveTab
}

// LiveTab is the browser context of a tab, as its key names it.
type LiveTab struct {
	Session string // who asked for it
	// Owner names an ephemeral context: the session, or session/handle for
	// a child or own attachment. "" for a profile.
	Owner   string
	Profile string // a persistent profile's id
	Label   string // its label, when the key carries one
}

// Targets lists every target of this host for the live view, freshly
// read; targets that are gone are dropped.
func (h LiveHands) Targets(ctx context.Context) []LiveTarget {
	d := h.d
	var out []LiveTarget
	marks := markBook(d.stages)
	for _, e := range d.entries(nil) {
		info, err := d.relist(ctx, e)
		if target.CodeOf(err) == e.words().Gone {
			continue
		}
		d.mu.Lock()
		lt := LiveTarget{ID: e.id, Kind: e.id.Kind(), Title: e.rec.Title, Display: e.rec.Display, Desktop: e.rec.Desktop,
			Origin: e.rec.Origin, Opened: e.rec.Opened}
		if e.tab == nil {
			lt.App, lt.AppProfile = e.rec.App, e.rec.Profile
		} else {
			k := e.tab.key
			lt.Tab = &LiveTab{Session: k.Session, Owner: k.Owner, Profile: k.Profile, Label: k.Label}
		}
		if err != nil {
			info = e.info
		}
		lt.Width, lt.Height = info.Bounds.W, info.Bounds.H
		d.mu.Unlock()
		if marks != nil {
			lt.Agent = marks.Mark(e.id)
		}
		lt.Lease = d.leases.Get(e.id)
		out = append(out, lt)
	}
	return out
}

// Profiles is the profile registry (the registered profile words'), for
// naming a profile's and a helper's context.
func (h LiveHands) Profiles() (*profile.Registry, error) { return h.d.browsing.Registry() }

// Browsers is the browser backend's count of running browsers and its
// Stop; false when there is no browser backend or it counts none.
func (h LiveHands) Browsers() (kind.BrowserUsage, bool) {
	bu, ok := h.d.cfg.Browser.(kind.BrowserUsage)
	return bu, ok
}

// ProfilesWithTabs is the set of profiles some tab of which is open, read
// now (gone or not).
func (h LiveHands) ProfilesWithTabs() map[string]bool {
	open := map[string]bool{}
	for _, e := range h.d.entries(func(e *entry) bool { return e.tab != nil && e.tab.key.Profile != "" }) {
		open[e.tab.key.Profile] = true
	}
	return open
}

// Audit records e in the audit log as the live view's (its Session is the
// live view's page).
func (h LiveHands) Audit(e lease.Entry) {
	e.Session = liveViewSession
	h.d.record(e)
}

// Check reads target id afresh: an id that names no target is
// unknown_target, a target that is gone its kind's gone code.
func (h LiveHands) Check(ctx context.Context, id target.ID) error {
	d := h.d
	e, err := d.find(string(id))
	if err != nil {
		return err
	}
	_, err = d.refresh(ctx, e)
	return err
}

// Frames opens a stream of target id's pictures, freshly read first (a
// target that is gone is refused by its kind's gone code).
func (h LiveHands) Frames(ctx context.Context, id target.ID, o kind.FrameOptions) (target.FrameSource, error) {
	d := h.d
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

// Lease is target id's lease as it is now.
func (h LiveHands) Lease(id target.ID) lease.Lease { return h.d.leases.Get(id) }

// Input delivers one event of a person from the live view. It passes
// the gate agent verbs pass: the person must be the one who took the target
// over (user mode, as user), the event waits for the target's lock and its
// display's one keyboard and pointer, and a window is raised first for
// anything but a move or a release, as click --at does. A takeover never
// waits for any of it.
func (h LiveHands) Input(ctx context.Context, id target.ID, user string, ev kind.Input) error {
	d := h.d
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
	release, err := e.disp.Injecting(ctx, e.id)
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
		unstack, err := e.disp.Stacking(ctx)
		if err != nil {
			return err
		}
		err = displays.Raise(ctx, e.t)
		unstack()
		if err != nil {
			return err
		}
	}
	return e.t.Input(ctx, ev)
}

// Takeover is the live view's Take over: the takeover verb, as user,
// from the page — the operator, who sees every target. The page refuses a
// takeover while another person drives (a viewer still watching, or a user
// of the command line); what reaches here over another user's takeover is a
// viewer's that left, so it is replaced, forced, and that user is told.
func (h LiveHands) Takeover(ctx context.Context, id target.ID, user string) Response {
	d := h.d
	l := d.leases.Get(id)
	force := l.Input == lease.InputUser && l.User != user
	return d.guarded(asOperator(ctx), facts("takeover"), Request{Verb: "takeover", Session: liveViewSession, Target: string(id)}, args.Operator{User: user, Force: force})
}

// Handback is the live view's Hand back: the handback verb, as user;
// then whatever the person's input still holds (a drag's button) is
// released before the agents act again.
func (h LiveHands) Handback(ctx context.Context, id target.ID, user string) Response {
	d := h.d
	resp := d.guarded(asOperator(ctx), facts("handback"), Request{Verb: "handback", Session: liveViewSession, Target: string(id)}, args.Operator{User: user})
	if resp.OK {
		if e, err := d.find(string(id)); err == nil {
			d.releaseFor(ctx, e)
		}
	}
	return resp
}
