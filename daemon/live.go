package daemon

import (
	"context"
	"slices"
	"strings"
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
// the daemon's Live* methods below.
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
	Agent   *wire.AgentMark // where an agent last acted (daemon/marks)
	Display string          // the display a window lives on
	Desktop bool            // a window of the user's own desktop: its pane says "your desktop"

	// The strip (the viewer's row of a session's targets).
	Session string // the session whose strip shows it: its lease's holder, else who opened it
	// Context is what it lives in: "own" (a tab of the session's own
	// context), "profile" (a tab of a named profile), "helper" (a tab of a
	// child handle a helper drives), "app" (a profile's desktop-app
	// window) or "window" (any other window).
	Context string
	// Name names the context: the profile's label, the helper's task (else
	// "Helper <n>"), a window's program; "" for the own context.
	Name    string
	Profile string    // the profile's id, for "profile" and "app"
	Opened  time.Time // when it was opened (the strip's order)
}

// LiveSession is one session's strip header: the browsers it uses, the
// ceiling on all of them, and which of its browsers are idle.
type LiveSession struct {
	Name    string
	Yours   int // running browsers this session used
	Running int // running browsers of every session (what the ceiling counts)
	Max     int // the ceiling; 0 when there is no browser backend
	// Idle are this session's profile browsers with no tab open and no verb
	// using them: the ones a person may stop (LiveStop) to make room.
	Idle []LiveBrowser
}

// LiveBrowser is one running browser as a strip lists it.
type LiveBrowser struct {
	Profile string
	Label   string
}

// LiveTargets lists every target of this host for the live view, freshly
// read; targets that are gone are dropped.
func (d *Daemon) LiveTargets(ctx context.Context) []LiveTarget {
	var out []LiveTarget
	names := d.contextNamer()
	marks := markBook(d.stages)
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
		d.mu.Unlock()
		if marks != nil {
			lt.Agent = marks.Mark(e.id)
		}
		lt.Lease = d.leases.Get(e.id)
		lt.Session = lt.Lease.Holder
		if lt.Session == "" {
			lt.Session = e.rec.Origin
		}
		lt.Opened = e.rec.Opened
		lt.Context, lt.Name, lt.Profile = names(e)
		out = append(out, lt)
	}
	return out
}

// contextNamer answers, for the strip, what a target lives in and its
// name (LiveTarget.Context, Name, Profile). It reads the profile registry
// once per listing.
func (d *Daemon) contextNamer() func(*entry) (ctxKind, name, profileID string) {
	reg, _ := d.browsing.Registry() // nil: profiles and helpers go unnamed
	label := func(id string) string {
		if reg != nil {
			if p, err := reg.Find(id); err == nil {
				return p.Label
			}
		}
		return id
	}
	atts := map[string][]profile.Attachment{}
	return func(e *entry) (string, string, string) {
		if e.tab == nil {
			if e.rec.Profile != "" {
				return "app", label(e.rec.Profile), e.rec.Profile
			}
			return "window", e.rec.App, ""
		}
		k := e.tab.key
		if k.Profile != "" {
			l := k.Label
			if l == "" {
				l = label(k.Profile)
			}
			return "profile", l, k.Profile
		}
		handle, ok := strings.CutPrefix(k.Owner, k.Session+"/")
		if !ok || handle == profile.OwnHandle {
			return "own", "", ""
		}
		if reg != nil {
			if _, seen := atts[k.Session]; !seen {
				atts[k.Session] = reg.Attachments(k.Session)
			}
			for _, a := range atts[k.Session] {
				if a.Handle == handle && a.Task != "" {
					return "helper", a.Task, ""
				}
			}
		}
		return "helper", helperName(handle), ""
	}
}

// helperName is a child handle's name without a task: "Helper <n>" for
// "bk-<key>.<n>".
func helperName(handle string) string {
	if i := strings.LastIndexByte(handle, '.'); i >= 0 && i+1 < len(handle) {
		return "Helper " + handle[i+1:]
	}
	return "Helper"
}

// LiveSessions is the strip header of every session that has a target or
// has used a running browser, sorted by name.
func (d *Daemon) LiveSessions(targets []LiveTarget) []LiveSession {
	by := map[string]*LiveSession{}
	sess := func(name string) *LiveSession {
		if s := by[name]; s != nil {
			return s
		}
		s := &LiveSession{Name: name, Idle: []LiveBrowser{}}
		by[name] = s
		return s
	}
	for _, t := range targets {
		if t.Session != "" {
			sess(t.Session)
		}
	}
	if bu, ok := d.cfg.Browser.(kind.BrowserUsage); ok {
		u := bu.Usage()
		open := d.profilesWithTabs()
		for _, b := range u.Browsers {
			for _, user := range b.Users {
				s := sess(user)
				s.Yours++
				if b.Profile != "" && !b.Busy && !open[b.Profile] {
					s.Idle = append(s.Idle, LiveBrowser{Profile: b.Profile, Label: b.Label})
				}
			}
		}
		for _, s := range by {
			s.Running, s.Max = len(u.Browsers), u.Max
		}
	}
	out := make([]LiveSession, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b LiveSession) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// profilesWithTabs is the set of profiles some tab of which is open.
func (d *Daemon) profilesWithTabs() map[string]bool {
	open := map[string]bool{}
	for _, e := range d.entries(func(e *entry) bool { return e.tab != nil && e.tab.key.Profile != "" }) {
		open[e.tab.key.Profile] = true
	}
	return open
}

// LiveStop is the strip's Stop: a person stops an idle browser of
// session's (one LiveSessions lists in its Idle), to make room under the
// ceiling. A browser with a tab open, or a verb using it, is refused
// browser_in_use; one that is not this session's, or not running, is
// bad_request. The audit records it, as the live view's, for session.
func (d *Daemon) LiveStop(ctx context.Context, session, profileID, user string) error {
	err := d.liveStop(ctx, session, profileID)
	ent := lease.Entry{Session: liveViewSession, For: session, Verb: "stop", User: user,
		Setting: "the browser of profile " + profileID, OK: err == nil}
	if err != nil {
		ent.Code = refusal(err).Code
	}
	d.record(ent)
	return err
}

func (d *Daemon) liveStop(ctx context.Context, session, profileID string) error {
	bu, ok := d.cfg.Browser.(kind.BrowserUsage)
	if !ok {
		return noBrowser()
	}
	if d.profilesWithTabs()[profileID] {
		return target.Refuse(target.CodeBrowserInUse, "the browser of profile %s has a tab open: close its tabs first", profileID).With("profile", profileID)
	}
	mine := false
	for _, b := range bu.Usage().Browsers {
		if b.Profile == profileID && slices.Contains(b.Users, session) {
			mine = true
		}
	}
	if !mine {
		return target.Refuse(target.CodeBadRequest, "no running browser of profile %s is session %s's", profileID, session).
			With("profile", profileID).With("session", session)
	}
	return bu.Stop(ctx, profileID)
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

// LiveTakeover is the live view's Take over: the takeover verb, as user,
// from the page — the operator, who sees every target. The page refuses a
// takeover while another person drives (a viewer still watching, or a user
// of the command line); what reaches here over another user's takeover is a
// viewer's that left, so it is replaced, forced, and that user is told.
func (d *Daemon) LiveTakeover(ctx context.Context, id target.ID, user string) Response {
	l := d.leases.Get(id)
	force := l.Input == lease.InputUser && l.User != user
	return d.guarded(asOperator(ctx), facts("takeover"), Request{Verb: "takeover", Session: liveViewSession, Target: string(id), User: user, Force: force})
}

// LiveHandback is the live view's Hand back: the handback verb, as user;
// then whatever the person's input still holds (a drag's button) is
// released before the agents act again.
func (d *Daemon) LiveHandback(ctx context.Context, id target.ID, user string) Response {
	resp := d.guarded(asOperator(ctx), facts("handback"), Request{Verb: "handback", Session: liveViewSession, Target: string(id), User: user})
	if resp.OK {
		if e, err := d.find(string(id)); err == nil {
			d.releaseFor(ctx, e)
		}
	}
	return resp
}
