package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// The user's own desktop (Config.Desktop). It is off until the operator
// opts in (desktop on, from a terminal of their desktop: the request
// carries its DISPLAY, XAUTHORITY, session bus, WAYLAND_DISPLAY); the
// setting is the desktop display's record in the state file, so it
// survives a restart, and every change is an audit row. While it is on:
//
//   - every top-level window of the desktop is a target, nobody's
//     (Origin ""), exposed to every session (target.Target.Desktop), found
//     by the scan that finds dialogs (discover.go); every answer, row and
//     pane about one says "your desktop";
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

// The operator's words on the desktop (Request.Action of the desktop verb).
const (
	desktopStatus   = "status"
	desktopOn       = "on"
	desktopOff      = "off"
	desktopPixels   = "pixels"
	desktopNoPixels = "no-pixels"
)

// desktopSettingKey is where state.json keeps who opened the desktop and
// when (the desktop display's own record is kept with the displays').
const desktopSettingKey = "desktop"

// desktopSetting is who opened the desktop to agents, and when.
type desktopSetting struct {
	Since time.Time `json:"since"`
	By    string    `json:"by"`
}

// desktopUser is how answers and the lease name the person at their own
// desktop when their input pauses an agent.
const desktopUser = "you"

// desktopSession is the session a pause by the person's own input is
// recorded from.
const desktopSession = "your desktop"

func checkDesktop(_ *Daemon, req Request) error {
	switch req.Action {
	case "", desktopStatus, desktopOn, desktopOff:
		if req.Target != "" {
			return target.Refuse(target.CodeBadRequest, "desktop %s takes no handle", req.Action)
		}
	case desktopPixels, desktopNoPixels:
		if req.Target == "" {
			return target.Refuse(target.CodeBadRequest, "desktop %s needs a window handle of your desktop (win:N)", req.Action)
		}
	default:
		return target.Refuse(target.CodeBadRequest, "desktop takes status, on, off, pixels <handle> or no-pixels <handle>, not %s", target.Echo(req.Action))
	}
	return nil
}

// desktopDisplay is the user's desktop display while it is open, else nil.
func (d *Daemon) desktopDisplay() *display {
	if d.cfg.Desktop == nil {
		return nil
	}
	return d.runningDisplay(displayKey(d.cfg.Desktop, ""))
}

// desktop answers the operator's desktop verb.
func (d *Daemon) desktop(ctx context.Context, c *call) Response {
	switch c.Req.Action {
	case desktopOn:
		return d.desktopOpen(ctx, c)
	case desktopOff:
		return d.desktopClose(c)
	case desktopPixels, desktopNoPixels:
		return d.desktopPixels(c)
	}
	return d.finish(c, Response{Did: d.desktopWords()}, nil)
}

// desktopWords says whether the desktop is open to agents, since when, by
// whom, on which road, and what of the person is observable.
func (d *Daemon) desktopWords() string {
	if d.cfg.Desktop == nil {
		return "this daemon has no road to your desktop"
	}
	disp := d.desktopDisplay()
	if disp == nil {
		return "your desktop is not open to agents (off, the default): its windows are not listed and cannot be addressed; the operator opens it with: vibespace-window desktop on"
	}
	d.mu.Lock()
	set, why := d.desktopSet, disp.personWhy
	n := 0
	for _, e := range d.targets {
		if e.disp == disp {
			n++
		}
	}
	d.mu.Unlock()
	road, observes := "", ""
	if r, ok := disp.d.(kind.Roader); ok {
		road, observes = r.Road()
	}
	s := fmt.Sprintf("your desktop (%s %s) is open to agents since %s (by session %s): %d window(s) listed, each marked \"your desktop\"",
		road, disp.d.Name(), set.Since.UTC().Format(time.RFC3339), set.By, n)
	if why != "" {
		s += "; your own keyboard and pointer are NOT watched: " + why
	} else if observes != "" {
		s += "; " + observes
	}
	return s + "; click --at and scroll --at need a pixels grant per window (desktop pixels <handle>); desktop off closes every lease on it at once"
}

// desktopOpen is desktop on: the operator opens their desktop to agents.
func (d *Daemon) desktopOpen(ctx context.Context, c *call) Response {
	c.Fact.Setting = "on"
	p := d.cfg.Desktop
	if p == nil {
		return d.fail(c, target.Refuse(target.CodeNoDisplay, "this daemon has no road to your desktop (it was started without one; see doctor)"))
	}
	if d.desktopDisplay() != nil {
		return d.finish(c, Response{Did: "already open; nothing changed: " + d.desktopWords()}, nil)
	}
	env := c.Req.Desktop
	if env == nil || (env.Display == "" && env.Wayland == "") {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "desktop on names your desktop by its session's environment, and this one has neither DISPLAY nor WAYLAND_DISPLAY: run it from a terminal of your desktop"))
	}
	kd, err := p.Connect(ctx, *env)
	if err != nil {
		if _, ok := target.AsRefusal(err); ok {
			return d.fail(c, err)
		}
		return d.fail(c, target.Refuse(target.CodeNoDisplay, "your desktop could not be reached: %v", err).Wrap(err))
	}
	disp := newDisplay(p, kd, "")
	d.mu.Lock()
	if d.displays[disp.key()] != nil { // opened meanwhile by another desktop on
		d.mu.Unlock()
		kd.Close()
		return d.finish(c, Response{Did: "already open; nothing changed: " + d.desktopWords()}, nil)
	}
	d.displays[disp.key()] = disp
	d.desktopSet = desktopSetting{Since: d.cfg.Now().UTC(), By: c.Req.Session}
	d.mu.Unlock()
	d.watchPerson(disp)
	d.hearTokens(disp)
	d.discoverOn(ctx, disp)
	d.persist()
	if r, ok := kd.(kind.Roader); ok {
		road, _ := r.Road()
		c.Fact.Setting = "on: " + road + " " + kd.Name()
	}
	d.cfg.Logger.Info("the user's desktop is open to agents", "display", kd.Name(), "by", c.Req.Session)
	return d.finish(c, Response{Did: d.desktopWords()}, nil)
}

// desktopClose is desktop off: every target of the desktop is forgotten
// and every lease on one closed at once; verbs in flight on them are cut.
func (d *Daemon) desktopClose(c *call) Response {
	c.Fact.Setting = "off"
	disp := d.desktopDisplay()
	if disp == nil {
		return d.finish(c, Response{Did: "your desktop was not open to agents; nothing changed"}, nil)
	}
	var held []string
	es := d.entries(func(e *entry) bool { return e.disp == disp })
	for _, e := range es {
		if l := d.leases.Get(e.id); l.Holder != "" {
			held = append(held, fmt.Sprintf("%s by %s", e.id, l.Holder))
		}
	}
	// One step: the display and its targets go, and the verbs in flight on
	// them are cut, so none begins between the two.
	now := d.cfg.Now().UTC()
	d.mu.Lock()
	if d.displays[disp.key()] != disp { // closed meanwhile by another desktop off
		d.mu.Unlock()
		return d.finish(c, Response{Did: "your desktop was not open to agents; nothing changed"}, nil)
	}
	delete(d.displays, disp.key())
	es = es[:0]
	for id, e := range d.targets {
		if e.disp != disp {
			continue
		}
		es = append(es, e)
		delete(d.targets, id)
		d.desktopGone[id] = now
		for _, cancel := range e.flight {
			cancel()
		}
	}
	d.desktopSet = desktopSetting{}
	d.mu.Unlock()
	for _, e := range es {
		d.leases.Drop(e.id)
	}
	d.persist()
	if err := d.closeDisplay(disp); err != nil {
		d.cfg.Logger.Warn("closing our connections to the user's desktop", "err", err)
	}
	did := fmt.Sprintf("your desktop is closed to agents: %d window(s) forgotten", len(es))
	if len(held) > 0 {
		did += fmt.Sprintf(", %d lease(s) closed (%s)", len(held), strings.Join(held, ", "))
	}
	return d.finish(c, Response{Did: did + "; nothing of your desktop is listed or addressable now"}, nil)
}

// desktopPixels grants (or takes back) the point verbs on one window of the
// desktop.
func (d *Daemon) desktopPixels(c *call) Response {
	on := c.Req.Action == desktopPixels
	c.Fact.Setting = "pixels " + map[bool]string{true: "on", false: "off"}[on]
	if d.desktopDisplay() == nil {
		return d.fail(c, target.Refuse(target.CodeDesktopOff, "your desktop is not open to agents, so none of its windows has a handle (the operator opens it with: vibespace-window desktop on)"))
	}
	e, err := d.find(c.Req.Target)
	if err != nil {
		return d.fail(c, d.desktopGoneOr(c.Req.Target, err))
	}
	c.e = e
	d.mu.Lock()
	mine := e.rec.Desktop
	changed := mine && e.rec.Pixels != on
	if changed {
		e.rec.Pixels = on
	}
	d.mu.Unlock()
	if !mine {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "%s is not a window of your desktop: a window we started needs no pixels grant", e.id).With("target", string(e.id)))
	}
	if changed {
		d.persist()
	}
	did := fmt.Sprintf("click --at and scroll --at on %s are allowed now (audited by:point); desktop no-pixels %s takes it back", e.id, e.id)
	if !on {
		did = fmt.Sprintf("click --at and scroll --at on %s are refused no_pixels_grant again; acting on its nodes (@ref) is unchanged", e.id)
	}
	if !changed {
		did = "already so; nothing changed: " + did
	}
	return d.finish(c, Response{Did: did}, nil)
}

// desktopGoneOr is err, or for a handle of a window of the desktop the
// operator has closed to agents, desktop_off saying so.
func (d *Daemon) desktopGoneOr(handle string, err error) error {
	id, perr := target.ParseID(handle)
	if perr != nil {
		return err
	}
	d.mu.Lock()
	at, ok := d.desktopGone[id]
	d.mu.Unlock()
	if !ok {
		return err
	}
	return target.Refuse(target.CodeDesktopOff, "%s was a window of your desktop, which the operator closed to agents at %s (vibespace-window desktop on opens it again; its windows get new handles)", id, at.Format(time.RFC3339)).With("target", string(id))
}

// personQuiet is how long after the person's own touch nothing is injected
// on their desktop, even into a window no agent held when they touched it.
const personQuiet = 2 * time.Second

// injects reports whether req's verb may inject input (keys or a point)
// rather than act on a node alone.
func injects(req Request) bool {
	switch req.Verb {
	case "key", "scroll":
		return true
	case "click":
		return req.At != nil
	case "type":
		return true // without a ref, keys; with one, keys where the node takes focus
	}
	return false
}

// checkDesktopWindow refuses, before c takes the lease of a window of the
// user's desktop, a point verb the operator has not granted for it.
func (d *Daemon) checkDesktopWindow(c *call) error {
	d.mu.Lock()
	mine, granted := c.e.rec.Desktop, c.e.rec.Pixels
	var touched time.Time
	var lost, why string
	if mine && c.e.disp != nil {
		touched = c.e.disp.touchedAt
		if c.e.disp.personLost {
			lost, why = "lost", c.e.disp.personWhy
		}
	}
	d.mu.Unlock()
	if !mine {
		return nil
	}
	if injects(c.Req) {
		if lost != "" {
			return target.Refuse(target.CodeNoInjectionBackend, "nothing is injected on your desktop while your own keyboard and pointer are not watched (%s): desktop off, then desktop on, watches them again; acting on nodes (@ref) is unchanged", why).With("target", string(c.e.id))
		}
		if since := d.cfg.Now().Sub(touched); !touched.IsZero() && since < personQuiet {
			return target.Refuse(target.CodeUserActive, "the person used their own keyboard or pointer %v ago: nothing is injected on their desktop until they have been still for %v", since.Round(time.Millisecond), personQuiet).
				With("target", string(c.e.id)).With("since", touched.UTC().Format(time.RFC3339Nano))
		}
	}
	// A scroll without --at is a point too: at the window's centre.
	if v, at, ok := modeVerb(c.Req); ok && (at || v == target.VerbScroll) && !granted {
		return target.Refuse(target.CodeNoPixelsGrant, "%s is a window of your desktop: %s acts on a point (--at, or a scroll's default: the window's centre), which needs the operator's pixels grant for this window (vibespace-window desktop pixels %s); acting on a node (@ref) needs none", c.e.id, c.Req.Verb, c.e.id).
			With("target", string(c.e.id)).With("by", string(target.RoadPoint))
	}
	return nil
}

// adoptDesktop makes a window found on the user's desktop a target,
// nobody's, exposed to every session; it reports whether it did (the
// caller persists once for a scan).
func (d *Daemon) adoptDesktop(disp *display, f kind.Found) bool {
	d.mu.Lock()
	for _, e := range d.targets {
		if e.disp == disp && e.rec.Key == f.Info.Key {
			d.mu.Unlock()
			return false
		}
	}
	if d.displays[disp.key()] != disp { // closed meanwhile
		d.mu.Unlock()
		return false
	}
	d.next++
	rec := target.Target{
		ID: target.WindowID(d.next), Kind: target.KindWindow, Title: f.Info.Title, App: f.App,
		PID: f.Info.PID, Key: f.Info.Key, Display: disp.name, Desktop: true, Browser: f.Browser,
		Mode: target.ModeAuto, Opened: d.cfg.Now().UTC(),
	}
	e := newEntry(rec, f.Target, disp)
	e.info = f.Info
	d.targets[rec.ID] = e
	d.mu.Unlock()
	d.cfg.Logger.Info("a window of the user's desktop is listed", "target", rec.ID, "pid", rec.PID, "title", rec.Title)
	return true
}

// watchPerson starts noticing the person's own input on disp: each touch
// pauses every agent holding a window there.
func (d *Daemon) watchPerson(disp *display) {
	w, ok := disp.d.(kind.PersonWatcher)
	if !ok {
		return // its road says what it cannot observe (kind.Roader)
	}
	lost := func(err error) {
		d.mu.Lock()
		disp.personWhy, disp.personLost = "the watch stopped: "+err.Error(), true
		d.mu.Unlock()
		d.cfg.Logger.Warn("the watch of the person's own input stopped; agents on their desktop are paused", "err", err)
		d.pauseAll(disp, "the watch of your own keyboard and pointer stopped ("+err.Error()+")")
	}
	if err := w.WatchPerson(func(t kind.Touch) { d.touched(disp, t) }, lost); err != nil {
		d.mu.Lock()
		disp.personWhy = err.Error()
		d.mu.Unlock()
		d.cfg.Logger.Warn("the person's own input on their desktop cannot be observed", "err", err)
	}
}

// hearTokens audits each use of a standing grant the desktop keeps (the
// portal's restore token): which session used it, when, for which verb on
// which window — never the token.
func (d *Daemon) hearTokens(disp *display) {
	w, ok := disp.d.(kind.TokenWatcher)
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
		d.record(ent)
	})
}

// touched pauses every agent holding a window of disp: the person used
// their own keyboard or pointer. Their in-flight input is cut at once
// (before its next character) and what it held released; resuming is an
// explicit handback.
func (d *Daemon) touched(disp *display, t kind.Touch) {
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
	d.mu.Lock()
	disp.touchedAt = d.cfg.Now()
	d.mu.Unlock()
	d.pauseAll(disp, how)
}

// pauseAll pauses every agent holding a window of disp, the person
// driving (how says why): their in-flight verbs are cut at once, the
// state persisted once, each pause audited, what their input held
// released.
func (d *Daemon) pauseAll(disp *display, how string) {
	var paused []*entry
	for _, e := range d.entries(func(e *entry) bool { return e.disp == disp }) {
		l, changed := d.leases.Touched(e.id, desktopUser, desktopSession, how)
		if !changed {
			continue
		}
		n := d.cancelFlight(e)
		paused = append(paused, e)
		d.cfg.Logger.Info("the person's own input paused an agent", "target", e.id, "holder", l.Holder, "how", how, "cancelled", n)
	}
	if len(paused) == 0 {
		return
	}
	d.persist()
	for _, e := range paused {
		d.record(lease.Entry{Session: desktopSession, Target: e.id, Verb: "takeover", User: desktopUser, OK: true, Setting: "direct: " + how, Desktop: true})
		go d.releaseFor(context.Background(), e)
	}
}

// cancelFlight cancels the agent verbs in flight on e and says how many.
func (d *Daemon) cancelFlight(e *entry) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, cancel := range e.flight {
		cancel()
	}
	return len(e.flight)
}

// restoreDesktop reads back who opened the desktop, for a restarted daemon
// that reattached it, and starts watching the person again.
func (d *Daemon) restoreDesktop(st json.RawMessage) {
	disp := d.desktopDisplay()
	if disp == nil {
		return
	}
	var set desktopSetting
	if len(st) > 0 {
		json.Unmarshal(st, &set)
	}
	d.mu.Lock()
	d.desktopSet = set
	d.mu.Unlock()
	d.watchPerson(disp)
	d.hearTokens(disp)
	d.record(lease.Entry{Session: "daemon (restart)", Verb: "desktop", OK: true, Setting: "on: restored from the setting", Desktop: true})
}

// desktopSettingRecord is what persist keeps of the setting, or nil.
func (d *Daemon) desktopSettingRecord() json.RawMessage {
	d.mu.Lock()
	set := d.desktopSet
	d.mu.Unlock()
	if set.Since.IsZero() {
		return nil
	}
	b, _ := json.Marshal(set)
	return b
}

// desktopDoctor is doctor's rows of the user's desktop: the road this
// machine offers to the caller's desktop session (env, from their
// environment) or to the one open now, whether it is open to agents, and
// what of the person is observable.
func (d *Daemon) desktopDoctor(ctx context.Context, env *kind.DesktopEnv) []Check {
	p := d.cfg.Desktop
	if p == nil {
		return []Check{{Name: "your desktop", Detail: "no road to your desktop in this daemon"}}
	}
	out := []Check{{Name: "your desktop", OK: true, Detail: d.desktopWords()}}
	if disp := d.desktopDisplay(); disp != nil {
		out = append(out, disp.d.Doctor(ctx)...)
		return append(out, p.Doctor(ctx)...)
	}
	if env == nil {
		env = &kind.DesktopEnv{}
	}
	out = append(out, p.DoctorEnv(ctx, *env)...)
	return append(out, p.Doctor(ctx)...)
}

// resumed ends, for a window of the user's desktop handed back, the quiet
// time after the person's last touch (personQuiet): their handback is the
// explicit act that resumes agents.
func (d *Daemon) resumed(e *entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e.rec.Desktop && e.disp != nil {
		e.disp.touchedAt = time.Time{}
	}
}
