package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Displays. A provider's display is shared by every session, or — a
// provider that is kind.PerSession — each session has its own: open
// --display NAME from session S uses S's display of NAME, started on S's
// first open there. A per-session display is keyed by its provider's name
// and its session; a window on it is a target of that session (its opener,
// and the window a found one came from, are), so a target's record names
// its display by the provider's name (target.Target.Display) and its
// session by its origin (target.Target.Origin): both persist, and a
// restarted daemon finds each window on its session's display again.
// At most Config.MaxSessionDisplays per-session displays run at once
// (display_limit beyond); one that has had no window for
// Config.DisplayIdleStop is stopped. Shared displays are never stopped as
// idle.

// display is one running display and what the daemon keeps beside it: the
// gates its windows share.
type display struct {
	name string // its provider's name: how targets and records name it
	// session is the session whose display it is, for a per-session
	// display ("" for a shared one).
	session    string
	perSession bool
	d          kind.Display
	// inject is one slot: one injected input sequence at a time, since the
	// display has one keyboard and one pointer. injectOwner (guarded by
	// Daemon.mu) is the target whose input holds it.
	inject      chan struct{}
	injectOwner *entry
	// stack is one slot: between raising a window and acting on what is on
	// screen, no verb of ours raises another window of this display.
	stack chan struct{}
	// stalled (guarded by Daemon.mu) is when the display was found not
	// answering; zero while it answers (stall.go).
	stalled time.Time
	// Guarded by Daemon.mu, for a per-session display's idle stop: busy
	// counts the opens using it now (useDisplay until their window is a
	// target), idleSince is when it was first found with no window and no
	// open (zero while it has one).
	busy      int
	idleSince time.Time
	// watching (guarded by Daemon.mu) is set while a watcher waits for
	// the display's server to die; died once it did and its windows were
	// lost (lost.go).
	watching, died bool
}

// starting is a per-session display being started: its provider's name
// and its session, for the ceiling.
type starting struct{ name, session string }

// Bounds of the display calls that have no context of their own.
const (
	// displayCloseBudget bounds waiting for a display to stop: one that
	// takes longer is left to its provider and the daemon goes on.
	displayCloseBudget = 15 * time.Second
	// watchersBudget bounds asking a display who is attached to it
	// (kind.Watched, a cheap read).
	watchersBudget = 250 * time.Millisecond
)

func newDisplay(p kind.DisplayProvider, d kind.Display, session string) *display {
	ps := perSession(p)
	if !ps {
		session = ""
	}
	return &display{
		name: p.Name(), session: session, perSession: ps, d: d,
		inject: make(chan struct{}, 1), stack: make(chan struct{}, 1),
	}
}

// perSession reports whether p gives each session a display of its own.
func perSession(p kind.DisplayProvider) bool {
	ps, ok := p.(kind.PerSession)
	return ok && ps.PerSession()
}

// displayKey is how Daemon.displays knows p's display for session: its
// provider's name for a shared one (session does not matter), the name and
// the session for a per-session one.
func displayKey(p kind.DisplayProvider, session string) string {
	return keyOf(p.Name(), perSession(p), session)
}

// key is how Daemon.displays knows disp.
func (disp *display) key() string { return keyOf(disp.name, disp.perSession, disp.session) }

func keyOf(name string, perSession bool, session string) string {
	if !perSession {
		return name
	}
	return name + "\x00" + session
}

// keyOfTarget is the key of the display a window's record names: its
// provider's, and for a per-session provider its origin's (the session
// whose display it is).
func (d *Daemon) keyOfTarget(t target.Target) string {
	if p := d.provider(t.Display); p != nil {
		return displayKey(p, t.Origin)
	}
	return t.Display
}

// provider is the registered display provider of name, or nil.
func (d *Daemon) provider(name string) kind.DisplayProvider {
	for _, p := range d.cfg.Displays {
		if p.Name() == name {
			return p
		}
	}
	if p := d.desktopRoad(); p != nil && p.Name() == name {
		return p
	}
	return nil
}

// providerFor resolves open's --display: "" is the first registered one.
func (d *Daemon) providerFor(name string) (kind.DisplayProvider, error) {
	if len(d.cfg.Displays) == 0 {
		return nil, target.Refuse(target.CodeNoDisplay, "this daemon has no display for windows (it was started without one; see doctor)")
	}
	if name == "" {
		return d.cfg.Displays[0], nil
	}
	if p := d.provider(name); p != nil {
		return p, nil
	}
	return nil, target.Refuse(target.CodeNoDisplay, "there is no display %s here; the displays are: %s", target.Echo(name), strings.Join(d.displayNames(), ", ")).
		With("display", target.Clip(name)).With("displays", d.displayNames())
}

func (d *Daemon) displayNames() []string {
	var out []string
	for _, p := range d.cfg.Displays {
		out = append(out, p.Name())
	}
	return out
}

// runningDisplay is the display of key (displayKey) if it is up, else nil.
func (d *Daemon) runningDisplay(key string) *display {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.displays[key]
}

// ensureDisplay returns p's display, bringing it up on first use — for a
// per-session provider, the display of no session (the callers that name
// no session: a headed browser's display). It is not held: see useDisplay.
func (d *Daemon) ensureDisplay(ctx context.Context, p kind.DisplayProvider) (*display, error) {
	disp, release, err := d.useDisplay(ctx, p, "")
	if err != nil {
		return nil, err
	}
	release()
	return disp, nil
}

// useDisplay returns the display of p that session uses (p's shared one,
// or session's own of a per-session p), bringing it up on first use, held
// until release is called: a per-session display is not stopped as idle
// while held. Only one caller brings a display up; the others wait for it
// under their own context. A per-session display beyond
// Config.MaxSessionDisplays is refused display_limit.
func (d *Daemon) useDisplay(ctx context.Context, p kind.DisplayProvider, session string) (*display, func(), error) {
	key := displayKey(p, session)
	if disp := d.runningDisplay(key); disp != nil {
		d.diedNow(disp) // a dead one is lost now, and a new one started
	}
	if disp := d.holdRunning(key); disp != nil {
		return disp, d.releaser(disp), nil
	}
	slot := d.displaySlot(key)
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, target.Refuse(target.CodeTimeout, "the display %s was still starting", p.Name()).Wrap(ctx.Err())
	}
	defer func() { <-slot }()
	if disp := d.holdRunning(key); disp != nil {
		return disp, d.releaser(disp), nil
	}
	ps := perSession(p)
	if ps {
		d.mu.Lock()
		err := d.ceilingLocked(p, session)
		if err == nil {
			d.starting[key] = starting{p.Name(), session}
		}
		d.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
	}
	unstart := func() {
		if ps {
			delete(d.starting, key) // the caller holds d.mu
		}
	}
	t0 := time.Now()
	kd, err := p.Start(ctx)
	if err != nil {
		d.mu.Lock()
		unstart()
		d.mu.Unlock()
		return nil, nil, err
	}
	disp := newDisplay(p, kd, session)
	disp.busy = 1
	d.mu.Lock()
	unstart()
	if d.closed {
		d.mu.Unlock()
		d.closeDisplay(disp)
		return nil, nil, target.Refuse(codeInternal, "the daemon is shutting down")
	}
	d.displays[key] = disp
	d.mu.Unlock()
	if ps {
		d.cfg.Logger.Info("display up", "display", p.Name(), "name", kd.Name(), "session", session, "took", time.Since(t0))
	} else {
		d.cfg.Logger.Info("display up", "display", p.Name(), "name", kd.Name(), "took", time.Since(t0))
	}
	d.persist()
	d.watchDeath(disp)
	return disp, d.releaser(disp), nil
}

// displaySlot is the slot of bringing the display of key up.
func (d *Daemon) displaySlot(key string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	slot := d.displaySlots[key]
	if slot == nil {
		slot = make(chan struct{}, 1)
		d.displaySlots[key] = slot
	}
	return slot
}

// holdRunning is the running display of key, held, or nil.
func (d *Daemon) holdRunning(key string) *display {
	d.mu.Lock()
	defer d.mu.Unlock()
	disp := d.displays[key]
	if disp != nil {
		disp.busy++
	}
	return disp
}

// releaser is the release of one hold of disp (useDisplay).
func (d *Daemon) releaser(disp *display) func() {
	released := false
	return func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if !released {
			released = true
			disp.busy--
		}
	}
}

// ceilingLocked refuses one per-session display more than
// Config.MaxSessionDisplays. It names the asking session's own displays
// and counts the others'. The caller holds d.mu.
func (d *Daemon) ceilingLocked(p kind.DisplayProvider, session string) error {
	running := 0
	yours := []string{}
	for _, disp := range d.displays {
		if !disp.perSession {
			continue
		}
		running++
		if disp.session == session {
			yours = append(yours, fmt.Sprintf("%s %s", disp.name, disp.d.Name()))
		}
	}
	for _, s := range d.starting {
		running++
		if s.session == session {
			yours = append(yours, s.name+" (starting)")
		}
	}
	if running < d.cfg.MaxSessionDisplays {
		return nil
	}
	sort.Strings(yours)
	others := running - len(yours)
	mine := "none of them is yours"
	if len(yours) > 0 {
		mine = "yours: " + strings.Join(yours, ", ")
	}
	then := "close the windows on one you no longer need, or wait for an idle one to stop: a display with no window stops after " + d.cfg.DisplayIdleStop.String()
	if d.cfg.DisplayIdleStop < 0 {
		then = "close the windows on one you no longer need; this daemon never stops an idle one (its idle stop is off), stopping the daemon stops them all"
	}
	return target.Refuse(target.CodeDisplayLimit,
		"%d per-session displays run, the most this daemon allows at once, so your own display of %s cannot start; %s; %d other(s) belong to other sessions (%s)",
		running, p.Name(), mine, others, then).
		With("limit", d.cfg.MaxSessionDisplays).With("running", running).With("yours", yours).With("others", others).
		With("display", p.Name()).With("idle_stop", d.idleStopFact())
}

// idleStopFact says the idle stop as a fact: a duration, or "never".
func (d *Daemon) idleStopFact() string {
	if d.cfg.DisplayIdleStop < 0 {
		return "never"
	}
	return d.cfg.DisplayIdleStop.String()
}

// resetIfDead checks a display whose launch failed: if it no longer answers
// (its X server or bus died under us), it is closed, its targets are
// dropped, and the next useDisplay starts a new one. It reports whether
// it reset.
func (d *Daemon) resetIfDead(ctx context.Context, disp *display) bool {
	err := disp.d.Healthy(ctx)
	if err == nil {
		return false
	}
	d.cfg.Logger.Warn("a display died; starting a new one", "display", disp.name, "session", disp.session, "err", err)
	if d.diedNow(disp) {
		return true // seen dying: lost already, saying how it ended (lost.go)
	}
	// Its windows are lost with a word, as when its death is seen.
	death := kind.Death{At: d.cfg.Now(), Display: "display " + disp.d.Name(), How: "it stopped answering (" + err.Error() + ")"}
	if d.loseDisplay(disp, death) {
		d.closeDisplay(disp)
	}
	return true
}

// displayGone reports whether e lives on a display that is no longer the
// running one of its key (it died and was reset, was stopped as idle, or
// the daemon closed).
func (d *Daemon) displayGone(e *entry) bool {
	if e.disp == nil {
		return false
	}
	return d.runningDisplay(e.disp.key()) != e.disp
}

// closeDisplay stops disp and everything started on it, waiting at most
// displayCloseBudget: a display that takes longer is left to its provider
// (its Close goes on) and reported.
func (d *Daemon) closeDisplay(disp *display) error {
	done := make(chan error, 1)
	go func() { done <- disp.d.Close() }()
	t := time.NewTimer(displayCloseBudget)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		d.cfg.Logger.Warn("a display did not stop in time; left to stop by itself", "display", disp.name, "name", disp.d.Name(), "session", disp.session, "waited", displayCloseBudget)
		return fmt.Errorf("daemon: display %s (%s) did not stop within %v", disp.d.Name(), disp.name, displayCloseBudget)
	}
}

// closeDisplays stops every display of disps at once, each bounded.
func (d *Daemon) closeDisplays(disps []*display) error {
	errs := make(chan error, len(disps))
	for _, disp := range disps {
		go func() { errs <- d.closeDisplay(disp) }()
	}
	var all []error
	for range disps {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// idleLoop stops the per-session displays that have had no window for
// Config.DisplayIdleStop, until the daemon stops. It looks a few times per
// idle stop, at most once a second. It is a loop of its own, not a part of
// tick: stopping a display may take seconds (bounded), and idle handback
// must not wait for it.
func (d *Daemon) idleLoop(ctx context.Context) {
	defer d.wg.Done()
	d.watchDeaths() // the displays a restarted daemon re-attached (lost.go)
	stop := d.cfg.DisplayIdleStop
	if stop <= 0 || !slices.ContainsFunc(d.cfg.Displays, perSession) {
		return
	}
	every := min(time.Second, max(stop/4, 20*time.Millisecond))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.stop:
			return
		case <-t.C:
			d.sweepGone(ctx)
			d.stopIdle(stop)
		}
	}
}

// stopIdle stops each per-session display found with no window and no
// open for at least stop: it is dropped from the running ones and its
// record (under d.mu, all at once, so no open starts using one meanwhile),
// then closed — its applications stopped — each with an audit line.
// sweepGone re-reads the targets on per-session displays, so that a window
// whose application exited (or that a person closed in their xpra client)
// is dropped without waiting for a verb or a list to notice: the display
// it was the last window of then goes idle. One cheap read each (a window's
// Info asks its X server once).
func (d *Daemon) sweepGone(ctx context.Context) {
	d.mu.Lock()
	var on []*entry
	for _, e := range d.targets {
		if e.disp != nil && e.disp.perSession {
			on = append(on, e)
		}
	}
	d.mu.Unlock()
	for _, e := range on {
		rctx, cancel := context.WithTimeout(ctx, readBudget)
		d.refresh(rctx, e) // a gone window is dropped; any other answer keeps it
		cancel()
	}
}

func (d *Daemon) stopIdle(stop time.Duration) {
	now := time.Now()
	d.mu.Lock()
	used := map[*display]bool{}
	for _, e := range d.targets {
		if e.disp != nil {
			used[e.disp] = true
		}
	}
	var idle []*display
	for key, disp := range d.displays {
		switch {
		case !disp.perSession:
		case used[disp] || disp.busy > 0:
			disp.idleSince = time.Time{}
		case disp.idleSince.IsZero():
			disp.idleSince = now
		case now.Sub(disp.idleSince) >= stop:
			delete(d.displays, key)
			idle = append(idle, disp)
		}
	}
	d.mu.Unlock()
	if len(idle) == 0 {
		return
	}
	d.persist()
	for _, disp := range idle {
		d.cfg.Logger.Info("stopping an idle display", "display", disp.name, "name", disp.d.Name(), "session", disp.session, "idle", now.Sub(disp.idleSince).Round(time.Millisecond))
		err := d.closeDisplay(disp)
		ent := lease.Entry{Session: "daemon (idle stop)", For: disp.session, Verb: "display-stop", With: disp.name + " " + disp.d.Name(), OK: err == nil}
		if err != nil {
			ent.Code = target.CodeTimeout
		}
		d.record(ent)
	}
}

// watched adds to ti who is attached to e's display from outside the
// daemon (kind.Watched), while someone is.
func (d *Daemon) watched(e *entry, ti *TargetInfo) {
	if e.disp == nil {
		return
	}
	w, ok := e.disp.d.(kind.Watched)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchersBudget)
	defer cancel()
	ws, err := w.Watchers(ctx)
	if err != nil {
		d.cfg.Logger.Debug("who watches a display is unknown", "display", e.disp.name, "err", err)
		return
	}
	if ws.Count <= 0 {
		return
	}
	ti.Watchers, ti.Watched = ws.Count, ws.How
	if ti.Watched == "" {
		ti.Watched = "a client"
		if ws.Count > 1 {
			ti.Watched = fmt.Sprintf("%d clients", ws.Count)
		}
	}
	if !ws.Since.IsZero() {
		ti.WatchedSince = ws.Since.UTC().Format(time.RFC3339)
	}
}

// sessionDisplay is a running per-session display as status and doctor
// show it.
type sessionDisplay struct {
	name, display, session string
	windows                int
	idle                   time.Duration // with no window (and no open) this long; 0 while it has one
}

// sessionDisplays lists the per-session displays running, by session.
func (d *Daemon) sessionDisplays() []sessionDisplay {
	now := time.Now()
	d.mu.Lock()
	count := map[*display]int{}
	for _, e := range d.targets {
		if e.disp != nil {
			count[e.disp]++
		}
	}
	var out []sessionDisplay
	for _, disp := range d.displays {
		if !disp.perSession {
			continue
		}
		sd := sessionDisplay{name: disp.d.Name(), display: disp.name, session: disp.session, windows: count[disp]}
		if sd.windows == 0 && disp.busy == 0 && !disp.idleSince.IsZero() {
			sd.idle = now.Sub(disp.idleSince)
		}
		out = append(out, sd)
	}
	d.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].session != out[j].session {
			return out[i].session < out[j].session
		}
		return out[i].display < out[j].display
	})
	return out
}

// words says a per-session display for status and doctor: ":12 (xpra,
// session a, idle 1m30s)".
func (sd sessionDisplay) words() string {
	use := fmt.Sprintf("idle %s", sd.idle.Round(time.Second))
	switch {
	case sd.windows == 1:
		use = "1 window"
	case sd.windows > 1:
		use = fmt.Sprintf("%d windows", sd.windows)
	}
	return fmt.Sprintf("%s (%s, session %s, %s)", sd.name, sd.display, sd.session, use)
}

// sessionDisplaysWords says the per-session displays: how many run of the
// ceiling, each, and the idle stop, with the defaults named.
func (d *Daemon) sessionDisplaysWords(sds []sessionDisplay) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of at most %d running", len(sds), d.cfg.MaxSessionDisplays)
	if d.cfg.MaxSessionDisplays == DefaultMaxSessionDisplays {
		b.WriteString(" (the default)")
	}
	for i, sd := range sds {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		b.WriteString(sep + sd.words())
	}
	switch {
	case d.cfg.DisplayIdleStop < 0:
		b.WriteString("; one with no window is never stopped (idle stop off)")
	case d.cfg.DisplayIdleStop == DefaultDisplayIdleStop:
		fmt.Fprintf(&b, "; one with no window stops after %s (the default)", d.cfg.DisplayIdleStop)
	default:
		fmt.Fprintf(&b, "; one with no window stops after %s", d.cfg.DisplayIdleStop)
	}
	return b.String()
}
