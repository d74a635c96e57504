package displays

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Host is what the registry needs of the core: its target table, its
// leases, its audit and its state file. The core implements it by a small
// adapter; the registry calls no method of it while it holds the lock,
// except those whose names end in Locked, which it calls with the lock
// held (they must not take it).
type Host interface {
	// ClosedLocked reports whether the daemon is shutting down: no display
	// is started, nor watched, from then on.
	ClosedLocked() bool
	// CountLocked is how many targets live on each display.
	CountLocked() map[*Display]int
	// DropLocked forgets every target living on disp, cutting nothing
	// else, and says what each was (a display that died).
	DropLocked(disp *Display) []Gone
	// KnownLocked is the keys of the targets living on disp and their
	// processes (the roots of a scan for the windows beside them).
	KnownLocked(disp *Display) (known map[string]bool, roots []int)
	// Release drops the lease of id, a target lost with its display, and
	// says who held it ("" when nobody did).
	Release(id target.ID) string
	// Adopt makes the window f found on disp a target of the session of
	// the window it came from (unless it is one already, or its origin
	// went), persisting and auditing it.
	Adopt(ctx context.Context, disp *Display, f kind.Found)
	// AdoptDesktop makes the window f of the user's desktop disp a target,
	// and reports whether it did; the caller persists once.
	AdoptDesktop(disp *Display, f kind.Found) bool
	// Sweep re-reads the targets on per-session displays, dropping the
	// windows that went (so their display may go idle); each read bounded.
	Sweep(ctx context.Context)
	// Persist writes the state file (the registry's record is part of it).
	Persist()
	// Record appends a row to the audit.
	Record(e lease.Entry)
	// Owe owes a session a notice, kept until it is told.
	Owe(n notice.Notice)
}

// Gone is a target forgotten with its display: its handle, its title and
// the session it is of.
type Gone struct {
	ID            target.ID
	Title, Origin string
}

// Options are the registry's settings, as the daemon's configuration has
// them (filled).
type Options struct {
	Logger *slog.Logger
	Now    func() time.Time
	// Providers are the registered display providers (the user's desktop's
	// road is not among them); Desktop is that road, nil when the daemon
	// has none.
	Providers []kind.DisplayProvider
	Desktop   kind.DisplayProvider
	// MaxSessionDisplays bounds the per-session displays running at once;
	// DefaultMax is its default, as status names it.
	MaxSessionDisplays, DefaultMax int
	// IdleStop stops a per-session display that has had no window this
	// long (negative: never); DefaultIdleStop is its default.
	IdleStop, DefaultIdleStop time.Duration
	// Stop is closed when the daemon stops; the registry's loops and
	// watchers are counted in WG.
	Stop <-chan struct{}
	WG   *sync.WaitGroup
}

// starting is a per-session display being started: its provider's name
// and its session, for the ceiling.
type starting struct{ name, session string }

// Registry is the running displays and what the daemon keeps beside them.
type Registry struct {
	mu   *sync.Mutex // Daemon.mu: guards the maps below and every Display's mutable fields
	host Host
	o    Options

	m        map[string]*Display // by key: the running ones
	starting map[string]starting // per-session displays being started, by key (for the ceiling)
	slots    map[string]chan struct{}

	scanSlot chan struct{} // one scan for windows at a time (discover.go): two would find one window twice
	lost     lostBook      // the windows lost with their display (lost.go)
}

// New is an empty registry guarded by mu, the core's lock, asking host.
func New(mu *sync.Mutex, host Host, o Options) *Registry {
	return &Registry{
		mu: mu, host: host, o: o,
		m:        make(map[string]*Display),
		starting: make(map[string]starting),
		slots:    make(map[string]chan struct{}),
		scanSlot: make(chan struct{}, 1),
	}
}

// GetLocked is the running display of key, or nil.
func (r *Registry) GetLocked(key string) *Display { return r.m[key] }

// PutLocked makes disp the running display of its key.
func (r *Registry) PutLocked(disp *Display) { r.m[disp.Key()] = disp }

// DeleteLocked forgets the running display of key (its caller stops it).
func (r *Registry) DeleteLocked(key string) { delete(r.m, key) }

// AllLocked is every running display.
func (r *Registry) AllLocked() []*Display {
	out := make([]*Display, 0, len(r.m))
	for _, disp := range r.m {
		out = append(out, disp)
	}
	return out
}

// All is every running display.
func (r *Registry) All() []*Display {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.AllLocked()
}

// ClearLocked forgets every running display but keep (nil: none) and
// returns every one that ran, keep too, for the caller to close (the
// daemon is closing: keep is the user's desktop, whose record stands
// while only the daemon's connections to it close).
func (r *Registry) ClearLocked(keep *Display) []*Display {
	out := r.AllLocked()
	for key, disp := range r.m {
		if disp != keep {
			delete(r.m, key)
		}
	}
	return out
}

// Running is the display of key if it is up, else nil.
func (r *Registry) Running(key string) *Display {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[key]
}

// Gone reports whether disp (a window's display; nil for a tab's, which is
// never gone) is no longer the running one of its key: it died and was
// reset, was stopped as idle, or the daemon closed.
func (r *Registry) Gone(disp *Display) bool {
	if disp == nil {
		return false
	}
	return r.Running(disp.Key()) != disp
}

// Ensure returns p's display, bringing it up on first use — for a
// per-session provider, the display of no session (the callers that name
// no session: a headed browser's display). It is not held: see Use.
func (r *Registry) Ensure(ctx context.Context, p kind.DisplayProvider) (*Display, error) {
	disp, release, err := r.Use(ctx, p, "")
	if err != nil {
		return nil, err
	}
	release()
	return disp, nil
}

// Use returns the display of p that session uses (p's shared one,
// or session's own of a per-session p), bringing it up on first use, held
// until release is called: a per-session display is not stopped as idle
// while held. Only one caller brings a display up; the others wait for it
// under their own context. A per-session display beyond
// Options.MaxSessionDisplays is refused display_limit.
func (r *Registry) Use(ctx context.Context, p kind.DisplayProvider, session string) (*Display, func(), error) {
	key := KeyFor(p, session)
	if disp := r.Running(key); disp != nil {
		r.DiedNow(disp) // a dead one is lost now, and a new one started
	}
	if disp := r.holdRunning(key); disp != nil {
		return disp, r.releaser(disp), nil
	}
	slot := r.slot(key)
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, target.Refuse(target.CodeTimeout, "the display %s was still starting", p.Name()).Wrap(ctx.Err())
	}
	defer func() { <-slot }()
	if disp := r.holdRunning(key); disp != nil {
		return disp, r.releaser(disp), nil
	}
	ps := PerSession(p)
	if ps {
		r.mu.Lock()
		err := r.ceilingLocked(p, session)
		if err == nil {
			r.starting[key] = starting{p.Name(), session}
		}
		r.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
	}
	unstart := func() {
		if ps {
			delete(r.starting, key) // the caller holds r.mu
		}
	}
	t0 := time.Now()
	kd, err := p.Start(ctx)
	if err != nil {
		r.mu.Lock()
		unstart()
		r.mu.Unlock()
		return nil, nil, err
	}
	disp := r.NewDisplay(p, kd, session)
	disp.busy = 1
	r.mu.Lock()
	unstart()
	if r.host.ClosedLocked() {
		r.mu.Unlock()
		r.Close(disp)
		return nil, nil, target.Refuse(target.CodeInternal, "the daemon is shutting down")
	}
	r.m[key] = disp
	r.mu.Unlock()
	if ps {
		r.o.Logger.Info("display up", "display", p.Name(), "name", kd.Name(), "session", session, "took", time.Since(t0))
	} else {
		r.o.Logger.Info("display up", "display", p.Name(), "name", kd.Name(), "took", time.Since(t0))
	}
	r.host.Persist()
	r.WatchDeath(disp)
	return disp, r.releaser(disp), nil
}

// slot is the slot of bringing the display of key up.
func (r *Registry) slot(key string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	slot := r.slots[key]
	if slot == nil {
		slot = make(chan struct{}, 1)
		r.slots[key] = slot
	}
	return slot
}

// holdRunning is the running display of key, held, or nil.
func (r *Registry) holdRunning(key string) *Display {
	r.mu.Lock()
	defer r.mu.Unlock()
	disp := r.m[key]
	if disp != nil {
		disp.busy++
	}
	return disp
}

// releaser is the release of one hold of disp (Use).
func (r *Registry) releaser(disp *Display) func() {
	released := false
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !released {
			released = true
			disp.busy--
		}
	}
}

// ceilingLocked refuses one per-session display more than
// Options.MaxSessionDisplays. It names the asking session's own displays
// and counts the others'.
func (r *Registry) ceilingLocked(p kind.DisplayProvider, session string) error {
	running := 0
	yours := []string{}
	for _, disp := range r.m {
		if !disp.perSession {
			continue
		}
		running++
		if disp.session == session {
			yours = append(yours, fmt.Sprintf("%s %s", disp.name, disp.d.Name()))
		}
	}
	for _, s := range r.starting {
		running++
		if s.session == session {
			yours = append(yours, s.name+" (starting)")
		}
	}
	if running < r.o.MaxSessionDisplays {
		return nil
	}
	sort.Strings(yours)
	others := running - len(yours)
	mine := "none of them is yours"
	if len(yours) > 0 {
		mine = "yours: " + strings.Join(yours, ", ")
	}
	then := "close the windows on one you no longer need, or wait for an idle one to stop: a display with no window stops after " + r.o.IdleStop.String()
	if r.o.IdleStop < 0 {
		then = "close the windows on one you no longer need; this daemon never stops an idle one (its idle stop is off), stopping the daemon stops them all"
	}
	return target.Refuse(target.CodeDisplayLimit,
		"%d per-session displays run, the most this daemon allows at once, so your own display of %s cannot start; %s; %d other(s) belong to other sessions (%s)",
		running, p.Name(), mine, others, then).
		With("limit", r.o.MaxSessionDisplays).With("running", running).With("yours", yours).With("others", others).
		With("display", p.Name()).With("idle_stop", r.idleStopFact())
}

// idleStopFact says the idle stop as a fact: a duration, or "never".
func (r *Registry) idleStopFact() string {
	if r.o.IdleStop < 0 {
		return "never"
	}
	return r.o.IdleStop.String()
}

// ResetIfDead checks a display whose launch failed: if it no longer answers
// (its X server or bus died under us), it is closed, its targets are
// dropped, and the next Use starts a new one. It reports whether
// it reset.
func (r *Registry) ResetIfDead(ctx context.Context, disp *Display) bool {
	err := disp.d.Healthy(ctx)
	if err == nil {
		return false
	}
	r.o.Logger.Warn("a display died; starting a new one", "display", disp.name, "session", disp.session, "err", err)
	if r.DiedNow(disp) {
		return true // seen dying: lost already, saying how it ended (lost.go)
	}
	// Its windows are lost with a word, as when its death is seen.
	death := kind.Death{At: r.o.Now(), Display: "display " + disp.d.Name(), How: "it stopped answering (" + err.Error() + ")"}
	if r.lose(disp, death) {
		r.Close(disp)
	}
	return true
}

// Close stops disp and everything started on it, waiting at most
// displayCloseBudget: a display that takes longer is left to its provider
// (its Close goes on) and reported.
func (r *Registry) Close(disp *Display) error {
	done := make(chan error, 1)
	go func() { done <- disp.d.Close() }()
	t := time.NewTimer(displayCloseBudget)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		r.o.Logger.Warn("a display did not stop in time; left to stop by itself", "display", disp.name, "name", disp.d.Name(), "session", disp.session, "waited", displayCloseBudget)
		return fmt.Errorf("daemon: display %s (%s) did not stop within %v", disp.d.Name(), disp.name, displayCloseBudget)
	}
}

// CloseAll stops every display of disps at once, each bounded.
func (r *Registry) CloseAll(disps []*Display) error {
	errs := make(chan error, len(disps))
	for _, disp := range disps {
		go func() { errs <- r.Close(disp) }()
	}
	var all []error
	for range disps {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// IdleLoop stops the per-session displays that have had no window for
// Options.IdleStop, until the daemon stops. It looks a few times per
// idle stop, at most once a second. It is a loop of its own, not a part of
// the daemon's tick: stopping a display may take seconds (bounded), and
// idle handback must not wait for it. The caller counted it in Options.WG.
func (r *Registry) IdleLoop(ctx context.Context) {
	defer r.o.WG.Done()
	r.watchDeaths() // the displays a restarted daemon re-attached (lost.go)
	stop := r.o.IdleStop
	if stop <= 0 || !slices.ContainsFunc(r.o.Providers, PerSession) {
		return
	}
	every := min(time.Second, max(stop/4, 20*time.Millisecond))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.o.Stop:
			return
		case <-t.C:
			r.host.Sweep(ctx)
			r.stopIdle(stop)
		}
	}
}

// stopIdle stops each per-session display found with no window and no
// open for at least stop: it is dropped from the running ones and its
// record (under the lock, all at once, so no open starts using one
// meanwhile), then closed — its applications stopped — each with an audit
// line.
func (r *Registry) stopIdle(stop time.Duration) {
	now := time.Now()
	r.mu.Lock()
	used := r.host.CountLocked()
	var idle []*Display
	for key, disp := range r.m {
		switch {
		case !disp.perSession:
		case used[disp] > 0 || disp.busy > 0:
			disp.idleSince = time.Time{}
		case disp.idleSince.IsZero():
			disp.idleSince = now
		case now.Sub(disp.idleSince) >= stop:
			delete(r.m, key)
			idle = append(idle, disp)
		}
	}
	r.mu.Unlock()
	if len(idle) == 0 {
		return
	}
	r.host.Persist()
	for _, disp := range idle {
		r.o.Logger.Info("stopping an idle display", "display", disp.name, "name", disp.d.Name(), "session", disp.session, "idle", now.Sub(disp.idleSince).Round(time.Millisecond))
		err := r.Close(disp)
		ent := lease.Entry{Session: "daemon (idle stop)", For: disp.session, Verb: "display-stop", With: disp.name + " " + disp.d.Name(), OK: err == nil}
		if err != nil {
			ent.Code = target.CodeTimeout
		}
		r.host.Record(ent)
	}
}

// SessionDisplay is a running per-session display as status and doctor
// show it.
type SessionDisplay struct {
	name, display, session string
	windows                int
	idle                   time.Duration // with no window (and no open) this long; 0 while it has one
}

// SessionDisplays lists the per-session displays running, by session.
func (r *Registry) SessionDisplays() []SessionDisplay {
	now := time.Now()
	r.mu.Lock()
	count := r.host.CountLocked()
	var out []SessionDisplay
	for _, disp := range r.m {
		if !disp.perSession {
			continue
		}
		sd := SessionDisplay{name: disp.d.Name(), display: disp.name, session: disp.session, windows: count[disp]}
		if sd.windows == 0 && disp.busy == 0 && !disp.idleSince.IsZero() {
			sd.idle = now.Sub(disp.idleSince)
		}
		out = append(out, sd)
	}
	r.mu.Unlock()
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
func (sd SessionDisplay) words() string {
	use := fmt.Sprintf("idle %s", sd.idle.Round(time.Second))
	switch {
	case sd.windows == 1:
		use = "1 window"
	case sd.windows > 1:
		use = fmt.Sprintf("%d windows", sd.windows)
	}
	return fmt.Sprintf("%s (%s, session %s, %s)", sd.name, sd.display, sd.session, use)
}

// SessionDisplaysWords says the per-session displays: how many run of the
// ceiling, each, and the idle stop, with the defaults named.
func (r *Registry) SessionDisplaysWords(sds []SessionDisplay) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of at most %d running", len(sds), r.o.MaxSessionDisplays)
	if r.o.MaxSessionDisplays == r.o.DefaultMax {
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
	case r.o.IdleStop < 0:
		b.WriteString("; one with no window is never stopped (idle stop off)")
	case r.o.IdleStop == r.o.DefaultIdleStop:
		fmt.Fprintf(&b, "; one with no window stops after %s (the default)", r.o.IdleStop)
	default:
		fmt.Fprintf(&b, "; one with no window stops after %s", r.o.IdleStop)
	}
	return b.String()
}
