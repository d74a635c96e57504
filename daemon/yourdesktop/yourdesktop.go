// Package yourdesktop is the user's own desktop as one of the daemon's
// displays: the operator's setting (on or off, by whom, since when; kept
// in the daemon's state under "desktop"), the windows desktop off forgot,
// the pixels grant, the person's quiet time and a watch of their input
// that stopped, and the refusals that follow from them. The core asks it
// at the few places it needs (its DesktopGate: admit a verb on a window of
// the desktop, refuse a handle desktop off forgot, the desktop verb,
// doctor's rows, the record it keeps) and lends it its hands through Host;
// it is built in one place (cmd/vibespace-daemon) around the road to the
// desktop (kind.DesktopProvider).
//
// While the desktop is on:
//
//   - every top-level window of the desktop is a target, nobody's
//     (Origin ""), exposed to every session (target.Target.Desktop), found
//     by the scan that finds dialogs; every answer, row and pane about one
//     says "your desktop";
//   - acting on a node is the normal road; the point verbs (click --at,
//     scroll --at) need the operator's pixels grant for that window
//     (desktop pixels <handle>) and are audited by:point;
//   - nothing is started there (open --display desktop is refused
//     your_desktop) and no window of theirs is closed by us;
//   - the person's own keyboard and pointer pause every agent holding a
//     window of the desktop at once (kind.PersonWatcher): user_active,
//     in-flight input cancelled, until an explicit handback.
//
// desktop off forgets every such target and closes every lease on one at
// once; a verb on one of those handles is then refused desktop_off.
//
// It imports the seam (daemon/kind), the shared model and the wire types,
// never the core (layout_test.go).
package yourdesktop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Host is what the core lends the desktop: its clock, log, audit and
// state, and its table of displays and targets, seen through the seam.
// The core declares the same set of methods (an interface type is one
// type wherever it is spelt); none is called while the desktop holds its
// own lock, and the callbacks Open and Close take are called under the
// core's.
type Host = interface {
	Now() time.Time
	Logger() *slog.Logger
	// Record appends one line to the audit log.
	Record(lease.Entry)
	// Persist saves the daemon's state now.
	Persist()
	// Display is the desktop's display while it is open to agents, else
	// nil.
	Display() kind.Display
	// Open makes kd the desktop's display, calling opened in the same
	// step; false (opened not called) when one already is.
	Open(kd kind.Display, opened func()) bool
	// Discover lists kd's windows now, each a target.
	Discover(ctx context.Context, kd kind.Display)
	// Count is how many targets kd has.
	Count(kd kind.Display) int
	// Close forgets kd and every target of it in one step, cutting the
	// verbs in flight on them and calling forgot with their handles in the
	// same step, then drops their leases, saves the state and closes our
	// connections to kd. held are the leases that had a holder. ok false:
	// kd was not open (closed meanwhile; forgot not called).
	Close(kd kind.Display, forgot func([]target.ID)) (held []lease.Lease, ok bool)
	// Grant sets (on) or takes back the pixels grant on the target of c's
	// handle, which c reaches (its answer and audit row name it), saving
	// the state when it changed it; mine is false (nothing changed) for a
	// target that is not a window of the desktop; err is the core's
	// refusal of a handle it has no target for.
	Grant(c *stage.Call, on bool) (id target.ID, mine, changed bool, err error)
	// Pause pauses every agent holding a window of kd: user of session
	// drives now, how says why; their in-flight verbs are cut and what
	// their input held released.
	Pause(kd kind.Display, user, session, how string)
}

// The operator's words on the desktop (args.Desktop's Action).
const (
	actStatus   = "status"
	actOn       = "on"
	actOff      = "off"
	actPixels   = "pixels"
	actNoPixels = "no-pixels"
)

// settingKey is where the daemon's state keeps who opened the desktop and
// when (the desktop display's own record is kept with the displays').
const settingKey = "desktop"

// setting is who opened the desktop to agents, and when.
type setting struct {
	Since time.Time `json:"since"`
	By    string    `json:"by"`
}

// User is how answers and the lease name the person at their own desktop
// when their input pauses an agent.
const User = "you"

// Session is the session a pause by the person's own input is recorded
// from.
const Session = "your desktop"

// personQuiet is how long after the person's own touch nothing is injected
// on their desktop, even into a window no agent held when they touched it.
const personQuiet = 2 * time.Second

// Desktop is the user's own desktop behind the gate the core asks.
type Desktop struct {
	p    kind.DesktopProvider
	host Host

	mu  sync.Mutex
	set setting // zero while off
	// gone is when each window of the desktop was forgotten by desktop
	// off.
	gone map[target.ID]time.Time
	// Of the display open now (kd): why is why the person's own input is
	// not observed there ("" while it is); lost is set when a watch that
	// ran stopped (nothing is injected there from then on); touched is the
	// person's last touch of their own input there.
	kd      kind.Display
	why     string
	lost    bool
	touched time.Time
}

// New is the user's desktop reached through p (nil: no road to it).
func New(p kind.DesktopProvider) *Desktop {
	return &Desktop{p: p, gone: map[target.ID]time.Time{}}
}

// Provider is the road to the desktop (nil: none).
func (y *Desktop) Provider() kind.DesktopProvider { return y.p }

// Bind lends the desktop the core's hands; the core calls it once, as it
// makes itself, before anything else. What an earlier daemon of this
// process told it is forgotten: the state file is what a daemon restores.
func (y *Desktop) Bind(h Host) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.host = h
	y.set, y.gone = setting{}, map[target.ID]time.Time{}
	y.kd, y.why, y.lost, y.touched = nil, "", false, time.Time{}
}

// Check refuses a malformed desktop verb before it reaches anything.
func (y *Desktop) Check(c *stage.Call) error {
	req, a := c.Req, c.Args.(args.Desktop)
	switch a.Action {
	case "", actStatus, actOn, actOff:
		if req.Target != "" {
			return target.Refuse(target.CodeBadRequest, "desktop %s takes no handle", a.Action)
		}
	case actPixels, actNoPixels:
		if req.Target == "" {
			return target.Refuse(target.CodeBadRequest, "desktop %s needs a window handle of your desktop (win:N)", a.Action)
		}
	default:
		return target.Refuse(target.CodeBadRequest, "desktop takes status, on, off, pixels <handle> or no-pixels <handle>, not %s", target.Echo(a.Action))
	}
	return nil
}

// Answer answers the operator's desktop verb.
func (y *Desktop) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	switch c.Args.(args.Desktop).Action {
	case actOn:
		return y.open(ctx, c)
	case actOff:
		return y.close(c)
	case actPixels, actNoPixels:
		return y.pixels(c)
	}
	return wire.Response{Did: y.words()}, nil
}

// words says whether the desktop is open to agents, since when, by whom,
// on which road, and what of the person is observable.
func (y *Desktop) words() string {
	if y.p == nil {
		return "this daemon has no road to your desktop"
	}
	kd := y.host.Display()
	if kd == nil {
		return "your desktop is not open to agents (off, the default): its windows are not listed and cannot be addressed; the operator opens it with: vibespace-window desktop on"
	}
	n := y.host.Count(kd)
	y.mu.Lock()
	set, why := y.set, y.why
	y.mu.Unlock()
	road, observes := "", ""
	if r, ok := kd.(kind.Roader); ok {
		road, observes = r.Road()
	}
	s := fmt.Sprintf("your desktop (%s %s) is open to agents since %s (by session %s): %d window(s) listed, each marked \"your desktop\"",
		road, kd.Name(), set.Since.UTC().Format(time.RFC3339), set.By, n)
	if why != "" {
		s += "; your own keyboard and pointer are NOT watched: " + why
	} else if observes != "" {
		s += "; " + observes
	}
	return s + "; click --at and scroll --at need a pixels grant per window (desktop pixels <handle>); desktop off closes every lease on it at once"
}

// open is desktop on: the operator opens their desktop to agents.
func (y *Desktop) open(ctx context.Context, c *stage.Call) (wire.Response, error) {
	c.Fact.Setting = "on"
	if y.p == nil {
		return wire.Response{}, target.Refuse(target.CodeNoDisplay, "this daemon has no road to your desktop (it was started without one; see doctor)")
	}
	if y.host.Display() != nil {
		return wire.Response{Did: "already open; nothing changed: " + y.words()}, nil
	}
	env := c.Args.(args.Desktop).Env
	if env == nil || (env.Display == "" && env.Wayland == "") {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "desktop on names your desktop by its session's environment, and this one has neither DISPLAY nor WAYLAND_DISPLAY: run it from a terminal of your desktop")
	}
	kd, err := y.p.Connect(ctx, *env)
	if err != nil {
		if _, ok := target.AsRefusal(err); ok {
			return wire.Response{}, err
		}
		return wire.Response{}, target.Refuse(target.CodeNoDisplay, "your desktop could not be reached: %v", err).Wrap(err)
	}
	opened := y.host.Open(kd, func() {
		y.mu.Lock()
		y.set = setting{Since: y.host.Now().UTC(), By: c.Req.Session}
		y.kd, y.why, y.lost, y.touched = kd, "", false, time.Time{}
		y.mu.Unlock()
	})
	if !opened { // opened meanwhile by another desktop on
		kd.Close()
		return wire.Response{Did: "already open; nothing changed: " + y.words()}, nil
	}
	y.watchPerson(kd)
	y.hearTokens(kd)
	y.host.Discover(ctx, kd)
	y.host.Persist()
	if r, ok := kd.(kind.Roader); ok {
		road, _ := r.Road()
		c.Fact.Setting = "on: " + road + " " + kd.Name()
	}
	y.host.Logger().Info("the user's desktop is open to agents", "display", kd.Name(), "by", c.Req.Session)
	return wire.Response{Did: y.words()}, nil
}

// close is desktop off: every target of the desktop is forgotten and
// every lease on one closed at once; verbs in flight on them are cut.
func (y *Desktop) close(c *stage.Call) (wire.Response, error) {
	c.Fact.Setting = "off"
	kd := y.host.Display()
	if kd == nil {
		return wire.Response{Did: "your desktop was not open to agents; nothing changed"}, nil
	}
	n := 0
	held, ok := y.host.Close(kd, func(ids []target.ID) {
		now := y.host.Now().UTC()
		y.mu.Lock()
		for _, id := range ids {
			y.gone[id] = now
		}
		y.set, y.kd = setting{}, nil
		y.mu.Unlock()
		n = len(ids)
	})
	if !ok { // closed meanwhile by another desktop off
		return wire.Response{Did: "your desktop was not open to agents; nothing changed"}, nil
	}
	did := fmt.Sprintf("your desktop is closed to agents: %d window(s) forgotten", n)
	if len(held) > 0 {
		var hs []string
		for _, l := range held {
			hs = append(hs, fmt.Sprintf("%s by %s", l.Target, l.Holder))
		}
		did += fmt.Sprintf(", %d lease(s) closed (%s)", len(held), strings.Join(hs, ", "))
	}
	return wire.Response{Did: did + "; nothing of your desktop is listed or addressable now"}, nil
}

// pixels grants (or takes back) the point verbs on one window of the
// desktop.
func (y *Desktop) pixels(c *stage.Call) (wire.Response, error) {
	on := c.Args.(args.Desktop).Action == actPixels
	c.Fact.Setting = "pixels " + map[bool]string{true: "on", false: "off"}[on]
	if y.p == nil || y.host.Display() == nil {
		return wire.Response{}, target.Refuse(target.CodeDesktopOff, "your desktop is not open to agents, so none of its windows has a handle (the operator opens it with: vibespace-window desktop on)")
	}
	id, mine, changed, err := y.host.Grant(c, on)
	if err != nil {
		if gone := y.forgotten(c.Req.Target); gone != nil {
			return wire.Response{}, gone
		}
		return wire.Response{}, err
	}
	if !mine {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s is not a window of your desktop: a window we started needs no pixels grant", id).With("target", string(id))
	}
	did := fmt.Sprintf("click --at and scroll --at on %s are allowed now (audited by:point); desktop no-pixels %s takes it back", id, id)
	if !on {
		did = fmt.Sprintf("click --at and scroll --at on %s are refused no_pixels_grant again; acting on its nodes (@ref) is unchanged", id)
	}
	if !changed {
		did = "already so; nothing changed: " + did
	}
	return wire.Response{Did: did}, nil
}

// Forgotten is, for the handle of a window of the desktop the operator
// has closed to agents, desktop_off saying so; else nil.
func (y *Desktop) Forgotten(handle string) error { return y.forgotten(handle) }

func (y *Desktop) forgotten(handle string) error {
	id, err := target.ParseID(handle)
	if err != nil {
		return nil
	}
	y.mu.Lock()
	at, ok := y.gone[id]
	y.mu.Unlock()
	if !ok {
		return nil
	}
	return target.Refuse(target.CodeDesktopOff, "%s was a window of your desktop, which the operator closed to agents at %s (vibespace-window desktop on opens it again; its windows get new handles)", id, at.Format(time.RFC3339)).With("target", string(id))
}

// Never is the refusal of what is never done on the user's desktop:
// starting an application there (open; rec is the zero target), closing a
// window of theirs, sharing one (every session sees it already); nil for
// a window that is not the desktop's. ours names the daemon's own
// displays, where open starts applications.
func (y *Desktop) Never(verb string, rec target.Target, ours []string) error {
	switch {
	case verb == "open" && (y.p == nil || y.host.Display() == nil):
		return target.Refuse(target.CodeDesktopOff, "your desktop is not open to agents (the operator opens it with: vibespace-window desktop on); and even then nothing is started there: open applications on our own display")
	case verb == "open":
		return target.Refuse(target.CodeYourDesktop, "nothing is started on your desktop by us: its windows are listed as they are (list); open applications on one of our own displays (%s)", strings.Join(ours, ", "))
	case !rec.Desktop:
		return nil
	case verb == "close":
		return target.Refuse(target.CodeYourDesktop, "%s is a window of your desktop: we never close a window of yours (detach releases its lease)", rec.ID).With("target", string(rec.ID))
	case verb == "share":
		return target.Refuse(target.CodeYourDesktop, "%s is a window of your desktop: every session may address it while your desktop is open to agents; there is nothing to share", rec.ID).With("target", string(rec.ID))
	}
	return nil
}

// injects reports whether c's verb may inject input (keys or a point)
// rather than act on a node alone.
func injects(c *stage.Call) bool {
	v, ok := c.Facts.LawVerb(args.Ref(c.Args) != "", args.Point(c.Args) != nil)
	return ok && v.Injects()
}

// Admit refuses, before req takes the lease of the window rec, what the
// person's desktop does not allow now: input while their own keyboard and
// pointer are not watched or were touched a moment ago, a point verb the
// operator has not granted for it. A window that is not the desktop's is
// admitted.
func (y *Desktop) Admit(rec target.Target, c *stage.Call) error {
	req := c.Req
	if !rec.Desktop {
		return nil
	}
	y.mu.Lock()
	touched := y.touched
	var lost, why string
	if y.lost {
		lost, why = "lost", y.why
	}
	y.mu.Unlock()
	if injects(c) {
		if lost != "" {
			return target.Refuse(target.CodeNoInjectionBackend, "nothing is injected on your desktop while your own keyboard and pointer are not watched (%s): desktop off, then desktop on, watches them again; acting on nodes (@ref) is unchanged", why).With("target", string(rec.ID))
		}
		if since := y.host.Now().Sub(touched); !touched.IsZero() && since < personQuiet {
			return target.Refuse(target.CodeUserActive, "the person used their own keyboard or pointer %v ago: nothing is injected on their desktop until they have been still for %v", since.Round(time.Millisecond), personQuiet).
				With("target", string(rec.ID)).With("since", touched.UTC().Format(time.RFC3339Nano))
		}
	}
	// A scroll without --at is a point too: at the window's centre.
	if point := req.Verb == "scroll" || req.Verb == "click" && args.Point(c.Args) != nil; point && !rec.Pixels {
		return target.Refuse(target.CodeNoPixelsGrant, "%s is a window of your desktop: %s acts on a point (--at, or a scroll's default: the window's centre), which needs the operator's pixels grant for this window (vibespace-window desktop pixels %s); acting on a node (@ref) needs none", rec.ID, req.Verb, rec.ID).
			With("target", string(rec.ID)).With("by", string(target.RoadPoint))
	}
	return nil
}

// Resumed ends, for a window of the desktop handed back, the quiet time
// after the person's last touch (personQuiet): their handback is the
// explicit act that resumes agents.
func (y *Desktop) Resumed(rec target.Target) {
	if !rec.Desktop {
		return
	}
	y.mu.Lock()
	y.touched = time.Time{}
	y.mu.Unlock()
}

// watchPerson starts noticing the person's own input on kd: each touch
// pauses every agent holding a window there.
func (y *Desktop) watchPerson(kd kind.Display) {
	w, ok := kd.(kind.PersonWatcher)
	if !ok {
		return // its road says what it cannot observe (kind.Roader)
	}
	lost := func(err error) {
		if !y.ofNow(kd, func() { y.why, y.lost = "the watch stopped: "+err.Error(), true }) {
			return
		}
		y.host.Logger().Warn("the watch of the person's own input stopped; agents on their desktop are paused", "err", err)
		y.host.Pause(kd, User, Session, "the watch of your own keyboard and pointer stopped ("+err.Error()+")")
	}
	if err := w.WatchPerson(func(t kind.Touch) { y.touch(kd, t) }, lost); err != nil {
		y.ofNow(kd, func() { y.why = err.Error() })
		y.host.Logger().Warn("the person's own input on their desktop cannot be observed", "err", err)
	}
}

// ofNow runs f under the desktop's lock if kd is the display open now,
// and says whether it did (a watch of a display closed since is heard no
// more).
func (y *Desktop) ofNow(kd kind.Display, f func()) bool {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.kd != kd {
		return false
	}
	f()
	return true
}

// hearTokens audits each use of a standing grant the desktop keeps (the
// portal's restore token): which session used it, when, for which verb on
// which window — never the token.
func (y *Desktop) hearTokens(kd kind.Display) {
	w, ok := kd.(kind.TokenWatcher)
	if !ok {
		return
	}
	w.OnToken(func(ctx context.Context, event string) {
		c, _ := kind.CallerOf(ctx)
		ent := lease.Entry{Session: c.Session, Verb: "desktop", OK: true, Desktop: true,
			Setting: fmt.Sprintf("portal restore token %s (for %s)", event, c.Verb)}
		if id, err := target.ParseID(c.Target); err == nil {
			ent.Target = id
		}
		y.host.Record(ent)
	})
}

// touch pauses every agent holding a window of kd: the person used their
// own keyboard or pointer. Their in-flight input is cut at once (before
// its next character) and what it held released; resuming is an explicit
// handback.
func (y *Desktop) touch(kd kind.Display, t kind.Touch) {
	how := t.What
	switch t.What {
	case "key":
		how = "a key"
	case "button":
		how = "a button"
	case "motion":
		how = "pointer motion"
	}
	if t.Device != "" {
		how += fmt.Sprintf(" on %q", t.Device)
	}
	now := y.host.Now()
	y.ofNow(kd, func() { y.touched = now })
	y.host.Pause(kd, User, Session, how)
}

// Restore reads back who opened the desktop, for a restarted daemon that
// reattached it (records are the state's, by key), and starts watching
// the person again.
func (y *Desktop) Restore(records map[string]json.RawMessage) {
	if y.p == nil {
		return
	}
	kd := y.host.Display()
	if kd == nil {
		return
	}
	var set setting
	if st := records[settingKey]; len(st) > 0 {
		json.Unmarshal(st, &set)
	}
	y.mu.Lock()
	y.set = set
	y.kd, y.why, y.lost, y.touched = kd, "", false, time.Time{}
	y.mu.Unlock()
	y.watchPerson(kd)
	y.hearTokens(kd)
	y.host.Record(lease.Entry{Session: "daemon (restart)", Verb: "desktop", OK: true, Setting: "on: restored from the setting", Desktop: true})
}

// Keep adds the setting's record to records (by key) while it is on.
func (y *Desktop) Keep(records map[string]json.RawMessage) {
	y.mu.Lock()
	set := y.set
	y.mu.Unlock()
	if set.Since.IsZero() {
		return
	}
	b, _ := json.Marshal(set)
	records[settingKey] = b
}

// Doctor is doctor's rows of the desktop: the road this machine offers to
// the caller's desktop session (env, from their environment) or to the
// one open now, whether it is open to agents, and what of the person is
// observable.
func (y *Desktop) Doctor(ctx context.Context, env *kind.DesktopEnv) []kind.Check {
	if y.p == nil {
		return []kind.Check{{Name: "your desktop", Detail: "no road to your desktop in this daemon"}}
	}
	out := []kind.Check{{Name: "your desktop", OK: true, Detail: y.words()}}
	if kd := y.host.Display(); kd != nil {
		out = append(out, kd.Doctor(ctx)...)
		return append(out, y.p.Doctor(ctx)...)
	}
	if env == nil {
		env = &kind.DesktopEnv{}
	}
	out = append(out, y.p.DoctorEnv(ctx, *env)...)
	return append(out, y.p.Doctor(ctx)...)
}
