// Package pool is a small pool of full desktops that agents borrow and
// return: a configured number of displays (our Xvfb, or Xpra), each its
// own display with its own HOME, downloads and browser profile directory.
// A borrow that finds every desktop lent (or the pool at its cap, derived
// from the memory this machine has free) waits in a priority queue —
// first come first served among agents, a person's request from the live
// view before any agent's — and past its wait is refused pool_busy with
// its place in the queue. A desktop given back (return, the borrower's
// budget spent, or a borrow idle past its bound) is wiped before anyone
// else gets it: every process started on it is ended, by PID, and its
// HOME, downloads, profile and the rest of what its applications write
// are emptied; the wipe is verified in /proc and on disk, and audited.
//
// The desktops are display providers of their own (Desks, one per
// desktop, named desk1, desk2…), so open --display deskN (open --on) is
// the core's ordinary open; the pool's stage (Registration) answers
// borrow and return, admits an open on a desktop only to its borrower,
// and returns a desktop whose borrower's budget is spent or who went
// idle. It is registered in cmd/vibespace-daemon/stages; the program
// adds Desks to its displays.
package pool

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Config configures a pool.
type Config struct {
	// Desks is how many desktops the pool has (0: no pool: borrow is
	// refused no_display).
	Desks int
	// Kind is the display kind of each desktop (a provider's name: xvfb
	// or xpra); Inner is that provider, which starts and re-attaches each
	// desktop's display.
	Kind  string
	Inner kind.DisplayProvider
	// IdleReturn gives a borrowed desktop back (wiped) once its borrower
	// sent no verb for this long; 0 never.
	IdleReturn time.Duration
	// Margin is the share of the memory free at start the pool may fill
	// (0: DefaultMargin); PerDesk the resident bytes one desktop in use
	// takes (0: DefaultPerDesk, measured on this machine, README). The
	// cap is floor(free × Margin / PerDesk), at most Desks; MemFree reads
	// the free memory (nil: MemAvailable of /proc/meminfo).
	Margin  float64
	PerDesk int64
	MemFree func() (int64, error)
	// Remotes are more members, after the Desks: each a desktop of
	// another host's daemon's own pool (Remote), named as the others
	// (desk3…) and of kind "remote ssh://…".
	Remotes []Remote
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
}

// Person is the borrower a person's request from the live view is
// recorded as.
const Person = "person (live view)"

// Pool is the desktops and their queue.
type Pool struct {
	cfg    Config
	desks  []*desk
	cap    int
	capWhy string

	mu     sync.Mutex
	queue  []*waiter
	seq    uint64
	record func(lease.Entry) // the audit log, once the stage is made
	// windows are the windows opened on each desktop (open --on), by
	// handle: a person's takeover of the desktop pauses its borrower's
	// verbs on them.
	windows map[target.ID]string
	// kept is an earlier daemon's record of each desktop's display and its
	// own processes (the stage's Restore), for re-attaching.
	kept map[string]keptDesk
}

// waiter is one borrow waiting in the queue.
type waiter struct {
	session string
	person  bool
	seq     uint64
	kind    string
	got     chan *desk // the desktop handed to it, once
}

// New makes a pool of cfg's desktops (none started: a desktop's display
// starts on its first open) and derives its cap from the memory free now.
func New(cfg Config) *Pool {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Margin <= 0 {
		cfg.Margin = DefaultMargin
	}
	if cfg.PerDesk <= 0 {
		cfg.PerDesk = DefaultPerDesk
	}
	if cfg.MemFree == nil {
		cfg.MemFree = MemAvailable
	}
	p := &Pool{cfg: cfg}
	for i := 1; i <= cfg.Desks; i++ {
		p.desks = append(p.desks, &desk{p: p, name: fmt.Sprintf("%s%d", Prefix, i), kind: cfg.Kind})
	}
	p.cap, p.capWhy = Cap(cfg.Desks, cfg.MemFree, cfg.Margin, cfg.PerDesk)
	for i, r := range cfg.Remotes {
		p.desks = append(p.desks, &desk{p: p, name: fmt.Sprintf("%s%d", Prefix, cfg.Desks+i+1), kind: KindRemote + r.Host(), remote: r})
	}
	if len(cfg.Remotes) > 0 {
		// A remote member takes no memory here: the cap bounds the
		// local desktops alone (serveLocked counts those).
		p.capWhy += fmt.Sprintf(" local desktop(s), and %d on other hosts", len(cfg.Remotes))
	}
	return p
}

// Prefix starts every desktop's name: desk1, desk2…
const Prefix = "desk"

// Desks are the pool's desktops as display providers, in order: the
// program registers them with its displays, so open --display deskN opens
// there.
func (p *Pool) Desks() []kind.DisplayProvider {
	out := make([]kind.DisplayProvider, 0, len(p.desks))
	for _, d := range p.desks {
		if d.remote != nil {
			out = append(out, remoteProvider{d})
			continue
		}
		out = append(out, provider{d})
	}
	return out
}

// Cap is how many desktops may be lent at once, and how it was derived.
func (p *Pool) Cap() (int, string) { return p.cap, p.capWhy }

func (p *Pool) logf(format string, args ...any) {
	if p.cfg.Logf != nil {
		p.cfg.Logf("pool: "+format, args...)
	}
}

func (p *Pool) audit(e lease.Entry) {
	p.mu.Lock()
	rec := p.record
	p.mu.Unlock()
	if rec != nil {
		e.Time = p.cfg.Now().UTC()
		rec(e)
	}
}

// Lent is a desktop as its borrower holds it.
type Lent struct {
	Desk     string        // its name (the display open --on names)
	Kind     string        // its display kind
	Host     string        // a remote member's host (ssh://…), "" here
	There    string        // a remote member's name on its host (desk1…)
	Waited   time.Duration // how long the borrow waited in the queue
	Home     string        // its HOME ("" until its display runs)
	Download string        // its downloads directory
	Profile  string        // its browser profile directory
}

// Busy is a borrow that waited its whole wait: its place in the queue
// when it left it (1 is next) and how many were queued.
type Busy struct {
	Position, Queued int
	Waited           time.Duration
}

// Borrow lends session a desktop of kind k ("" any): one free now, else
// the first handed back while it waits, up to wait (0: not at all) or
// ctx's end. A person's request (person) goes before every agent's; among
// agents first come, first served. A session that holds a desktop gets it
// again. A pool of no desktops of kind k refuses no_display; a borrow that
// waited its whole wait is refused pool_busy with its place in the queue.
func (p *Pool) Borrow(ctx context.Context, session string, person bool, k string, wait time.Duration) (Lent, error) {
	start := p.cfg.Now()
	for {
		d, held, err := p.take(ctx, session, person, k, wait-p.cfg.Now().Sub(start), start)
		if err != nil {
			return Lent{}, err
		}
		if held {
			return d.lent(0), nil
		}
		waited := p.cfg.Now().Sub(start) // in the queue: before any road to a host
		if d.remote != nil {
			if err := p.lendThere(ctx, d, session); err != nil {
				if p.isDown(d) && ctx.Err() == nil && wait-p.cfg.Now().Sub(start) > 0 {
					// Its host went unreachable: another member may
					// serve the borrow for the rest of its wait.
					continue
				}
				return Lent{}, err
			}
		}
		l := d.lent(waited)
		with := fmt.Sprintf("%s (%s) after %v in the queue", d.name, d.kind, waited.Round(time.Millisecond))
		if l.Host != "" {
			with += ", " + l.There + " there"
		}
		p.audit(lease.Entry{Session: session, Verb: "pool.lend", OK: true, With: with})
		p.logf("%s lent to %s after %v", d.name, session, waited.Round(time.Millisecond))
		return l, nil
	}
}

// take is Borrow's turn in the queue: the desktop handed to session (held
// when it holds one already), waiting up to wait; start is when the
// borrow began.
func (p *Pool) take(ctx context.Context, session string, person bool, k string, wait time.Duration, start time.Time) (*desk, bool, error) {
	p.mu.Lock()
	if d := p.heldByLocked(session); d != nil {
		p.mu.Unlock()
		return d, true, nil
	}
	if !p.hasKindLocked(k) {
		p.mu.Unlock()
		return nil, false, p.noDesk(k)
	}
	if why, all := p.downLocked(k); all {
		p.mu.Unlock()
		return nil, false, target.Refuse(target.CodeNoDisplay, "no desktop of the pool can be lent: %s", strings.Join(why, "; ")).With("unreachable", len(why))
	}
	w := &waiter{session: session, person: person, kind: k, got: make(chan *desk, 1)}
	p.seq++
	w.seq = p.seq
	p.queue = append(p.queue, w)
	p.sortLocked()
	p.serveLocked()
	p.mu.Unlock()

	var timer <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timer = t.C
	}
	var d *desk
	select {
	case d = <-w.got:
	default:
		if wait <= 0 {
			if err := p.leave(w, session, start); err != nil {
				return nil, false, err
			}
			d = <-w.got // handed to it meanwhile
			break
		}
		p.audit(lease.Entry{Session: session, Verb: "pool.wait", OK: true, With: p.position(w)})
		select {
		case d = <-w.got:
		case <-timer:
			if err := p.leave(w, session, start); err != nil {
				return nil, false, err
			}
			d = <-w.got // handed to it as its wait ended
		case <-ctx.Done():
			if err := p.leave(w, session, start); err != nil {
				return nil, false, ctx.Err()
			}
			d = <-w.got // handed to it as it gave up: it is lent
		}
	}
	return d, false, nil
}

// leave takes w out of the queue after its wait: pool_busy with its place,
// or nil when a desktop was handed to it meanwhile (it is in w.got).
func (p *Pool) leave(w *waiter, session string, start time.Time) error {
	p.mu.Lock()
	select {
	case d := <-w.got:
		w.got <- d
		p.mu.Unlock()
		return nil
	default:
	}
	pos := p.indexLocked(w) + 1
	queued := len(p.queue)
	p.removeLocked(w)
	lent, capped := p.lentLocked(), p.cap
	p.mu.Unlock()
	waited := p.cfg.Now().Sub(start)
	p.audit(lease.Entry{Session: session, Verb: "pool.busy", Code: target.CodePoolBusy, With: fmt.Sprintf("position %d of %d after %v", pos, queued, waited.Round(time.Millisecond))})
	why := fmt.Sprintf("every desktop of the pool is lent (%d of %d", lent, p.cfg.Desks)
	if len(p.cfg.Remotes) > 0 {
		why = fmt.Sprintf("every desktop of the pool is lent (%d of %d here, and those on other hosts", lent, p.cfg.Desks)
	}
	if capped < p.cfg.Desks {
		why += fmt.Sprintf(", a cap of %d", capped)
	}
	why += ")"
	if down, _ := p.downLocked(w.kind); len(down) > 0 {
		why += "; " + strings.Join(down, "; ")
	}
	return target.Refuse(target.CodePoolBusy, "%s: you were %d of %d in the queue after %v; borrow --wait longer, or later", why, pos, queued, waited.Round(time.Millisecond)).
		With("position", pos).With("queued", queued).With("waited_ms", waited.Milliseconds())
}

func (p *Pool) position(w *waiter) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("position %d of %d", p.indexLocked(w)+1, len(p.queue))
}

func (p *Pool) noDesk(k string) error {
	if len(p.desks) == 0 {
		return target.Refuse(target.CodeNoDisplay, "this daemon has no desktop pool (vibespace-daemon --pool-desks N starts one)")
	}
	return target.Refuse(target.CodeNoDisplay, "the pool has no desktop of kind %s; its desktops are %s", target.Echo(k), p.cfg.Kind).
		With("kind", target.Clip(k))
}

func (p *Pool) hasKindLocked(k string) bool {
	for _, d := range p.desks {
		if k == "" || d.kind == k {
			return true
		}
	}
	return false
}

// sortLocked orders the queue: people first, then by arrival.
func (p *Pool) sortLocked() {
	sort.SliceStable(p.queue, func(i, j int) bool {
		a, b := p.queue[i], p.queue[j]
		if a.person != b.person {
			return a.person
		}
		return a.seq < b.seq
	})
}

func (p *Pool) indexLocked(w *waiter) int {
	for i, q := range p.queue {
		if q == w {
			return i
		}
	}
	return -1
}

func (p *Pool) removeLocked(w *waiter) {
	if i := p.indexLocked(w); i >= 0 {
		p.queue = append(p.queue[:i], p.queue[i+1:]...)
	}
}

// lentLocked counts the desktops lent or being wiped (not free).
func (p *Pool) lentLocked() int {
	n := 0
	for _, d := range p.desks {
		if d.remote == nil && (d.holder != "" || d.wiping) {
			n++
		}
	}
	return n
}

// serveLocked hands free desktops to the queue in its order, while the
// cap allows: a waiter whose kind no free desktop has lets the next try.
func (p *Pool) serveLocked() {
	for i := 0; i < len(p.queue); {
		w := p.queue[i]
		// A person's borrow is served here only: this live view shows
		// none of another host's desktops.
		d := p.freeLocked(w.kind, p.lentLocked() < p.cap, !w.person)
		if d == nil {
			i++
			continue
		}
		d.holder, d.person, d.since, d.used = w.session, w.person, p.cfg.Now(), p.cfg.Now()
		p.queue = append(p.queue[:i], p.queue[i+1:]...)
		w.got <- d
	}
}

// freeLocked is a free desktop of kind k: a local one only while local
// (the cap allows one more here), a remote one, while remote, whose host
// is reached.
func (p *Pool) freeLocked(k string, local, remote bool) *desk {
	for _, d := range p.desks {
		if (d.remote == nil && !local) || (d.remote != nil && !remote) || d.down != "" {
			continue
		}
		if d.holder == "" && !d.wiping && d.broken == "" && (k == "" || d.kind == k) {
			return d
		}
	}
	return nil
}

func (p *Pool) heldByLocked(session string) *desk {
	for _, d := range p.desks {
		if d.holder == session {
			return d
		}
	}
	return nil
}

// Holder is who holds desktop name ("" nobody), and whether name is a
// desktop of the pool.
func (p *Pool) Holder(name string) (holder string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.desks {
		if d.name == name {
			return d.holder, true
		}
	}
	return "", false
}

// Held is the desktop session holds ("" none).
func (p *Pool) Held(session string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.heldByLocked(session); d != nil {
		return d.name
	}
	return ""
}

// Used notes that session's borrow is in use now (its idle clock starts
// over).
func (p *Pool) Used(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.heldByLocked(session); d != nil {
		d.used = p.cfg.Now()
	}
}

// Queued is how many borrows wait.
func (p *Pool) Queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}

// Why a desktop comes back.
const (
	ReturnAsked  = "returned"
	ReturnBudget = "budget spent"
	ReturnIdle   = "idle"
)

// Return gives back the desktop session holds (why: ReturnAsked,
// ReturnBudget, ReturnIdle): it is wiped and verified, then handed to the
// first in the queue. It answers what the wipe did; a session that holds
// none is refused not_attached.
func (p *Pool) Return(ctx context.Context, session, why string) (Wiped, error) {
	p.mu.Lock()
	d := p.heldByLocked(session)
	if d == nil {
		p.mu.Unlock()
		return Wiped{}, target.Refuse(target.CodeNotAttached, "you hold no desktop of the pool (borrow first)")
	}
	name := d.name
	d.last = session
	d.holder, d.person, d.paused, d.wiping = "", false, false, true
	p.forgetLocked(name)
	p.mu.Unlock()

	w, err := d.wipe(ctx)
	p.mu.Lock()
	d.wiping = false
	if err != nil {
		d.broken = err.Error()
	} else {
		d.broken = ""
	}
	p.serveLocked()
	p.mu.Unlock()
	ent := lease.Entry{Session: session, Verb: "pool.wipe", OK: err == nil, With: name + " (" + why + "): " + w.String()}
	if err != nil {
		ent.Code = target.CodeInternal
		ent.Error = err.Error()
	}
	p.audit(ent)
	p.logf("%s returned by %s (%s): %s", name, session, why, w)
	if err != nil {
		return w, fmt.Errorf("the wipe of %s did not complete: %w", name, err)
	}
	return w, nil
}

// Idle gives back every desktop whose borrower sent no verb for
// IdleReturn (none when it is 0), each wiped; it answers who lost theirs.
func (p *Pool) Idle(ctx context.Context) []string {
	if p.cfg.IdleReturn <= 0 {
		return nil
	}
	now := p.cfg.Now()
	p.mu.Lock()
	var idle []string
	for _, d := range p.desks {
		// A remote member's borrower sends its verbs to that host: its
		// idle return is that host's daemon's own (--pool-idle there).
		if d.holder != "" && !d.person && d.remote == nil && now.Sub(d.used) >= p.cfg.IdleReturn {
			idle = append(idle, d.holder)
		}
	}
	p.mu.Unlock()
	for _, s := range idle {
		_, _ = p.Return(ctx, s, ReturnIdle)
	}
	return idle
}

// IdleLoop gives back the desktops whose borrowers went idle (Idle) and
// wipes again each whose last wipe failed, until ctx ends: the program
// runs it for the daemon's life.
func (p *Pool) IdleLoop(ctx context.Context) {
	every := time.Second
	if r := p.cfg.IdleReturn; r > 0 {
		every = min(every, max(r/4, 20*time.Millisecond))
	}
	t := time.NewTicker(every)
	defer t.Stop()
	if len(p.cfg.Remotes) > 0 {
		go p.remoteLoop(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.Idle(ctx)
			p.rewipe(ctx)
		}
	}
}

// rewipe wipes each desktop whose last wipe failed, lent to nobody, and
// puts it back once a wipe succeeds.
func (p *Pool) rewipe(ctx context.Context) {
	p.mu.Lock()
	var broken []*desk
	for _, d := range p.desks {
		if d.broken != "" && d.holder == "" && !d.wiping {
			d.wiping = true
			broken = append(broken, d)
		}
	}
	p.mu.Unlock()
	for _, d := range broken {
		w, err := d.wipe(ctx)
		p.mu.Lock()
		d.wiping = false
		if err == nil {
			d.broken = ""
			p.serveLocked()
		} else {
			d.broken = err.Error()
		}
		p.mu.Unlock()
		if err == nil {
			p.audit(lease.Entry{Session: "daemon (pool)", Verb: "pool.wipe", OK: true, With: d.name + ": " + w.String()})
		}
	}
}

// isDown reports whether remote member d's host is marked unreachable.
func (p *Pool) isDown(d *desk) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return d.down != ""
}
