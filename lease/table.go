package lease

import (
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/vibespace/vibespace/target"
)

// Options configure a Table. The zero value is usable: the wall clock and no
// idle handback.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IdleHandback hands a takeover back by itself when the user has given
	// no input for this long. Zero means never.
	IdleHandback time.Duration
}

// Table is the set of leases the daemon keeps, one per target. Safe for
// concurrent use; every method is quick and never calls out.
type Table struct {
	mu sync.Mutex
	o  Options
	m  map[target.ID]*Lease
}

// NewTable returns an empty table.
func NewTable(o Options) *Table {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Table{o: o, m: make(map[target.ID]*Lease)}
}

// Grant is what Use hands back: the lease, whether this call acquired it,
// and the handback note owed to the caller, if one was (told now, once).
type Grant struct {
	Lease    Lease
	Acquired bool
	Told     *Handback
}

// lease returns the lease of id, creating a free one, after applying idle
// handback. Caller holds mu.
func (t *Table) lease(id target.ID) *Lease {
	l, ok := t.m[id]
	if !ok {
		l = &Lease{Target: id, Input: InputAgent}
		t.m[id] = l
	}
	t.expire(l, t.o.Now())
	return l
}

// expire hands l back if its takeover has been idle too long. Caller holds mu.
func (t *Table) expire(l *Lease, now time.Time) bool {
	if l.Input != InputUser || t.o.IdleHandback <= 0 || l.Direct != "" {
		return false
	}
	last := l.UserActive
	if last.Before(l.UserSince) {
		last = l.UserSince
	}
	if now.Sub(last) < t.o.IdleHandback {
		return false
	}
	t.handback(l, now, true)
	return true
}

func (t *Table) handback(l *Lease, now time.Time, idle bool) {
	if l.Holder != "" {
		if l.Owed == nil {
			l.Owed = make(map[string]Handback)
		}
		l.Owed[l.Holder] = Handback{User: l.User, UserSince: l.UserSince, At: now, Idle: idle}
	}
	l.Input, l.User, l.UserSince, l.UserActive, l.UserSession, l.Direct = InputAgent, "", time.Time{}, time.Time{}, "", ""
}

// Get returns the lease of id (a free one if none was recorded).
func (t *Table) Get(id target.ID) Lease {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lease(id).clone()
}

// All returns every recorded lease, ordered by target.
func (t *Table) All() []Lease {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Lease, 0, len(t.m))
	for _, l := range t.m {
		t.expire(l, t.o.Now())
		out = append(out, l.clone())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Target < out[j].Target })
	return out
}

// Restore replaces the table's content with leases read back from a Store.
func (t *Table) Restore(ls []Lease) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m = make(map[target.ID]*Lease, len(ls))
	for _, l := range ls {
		l := l.clone()
		if l.Input == "" {
			l.Input = InputAgent
		}
		t.m[l.Target] = &l
	}
}

// Drop forgets the lease of a target that is gone.
func (t *Table) Drop(id target.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, id)
}

// Acquire makes session the holder of id. Holding it already is fine. When
// another session holds it the answer is a held refusal naming the holder and
// since when.
func (t *Table) Acquire(id target.ID, session string) (l Lease, acquired bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	if err := heldBy(p, session); err != nil {
		return p.clone(), false, err
	}
	if p.Holder == "" {
		p.Holder, p.Since, acquired = session, t.o.Now(), true
	}
	return p.clone(), acquired, nil
}

// Release drops session's hold on id. It is idempotent: releasing a lease
// nobody holds does nothing. Releasing another session's lease is refused
// held.
func (t *Table) Release(id target.ID, session string) (l Lease, released bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	if err := heldBy(p, session); err != nil {
		return p.clone(), false, err
	}
	if p.Holder == session {
		p.Holder, p.Since, released = "", time.Time{}, true
	}
	return p.clone(), released, nil
}

// Use is the gate every agent verb passes: it refuses while the user has
// taken over (window_paused / browser_paused, naming who and since) and while
// another session holds the lease (held), and otherwise makes session the
// holder. The handback note owed to session is told in the Grant exactly
// once — also when the verb is refused, since that answer is the one the
// agent reads.
func (t *Table) Use(id target.ID, session string) (Grant, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	var g Grant
	if h, ok := p.Owed[session]; ok {
		g.Told = &h
		delete(p.Owed, session)
		if len(p.Owed) == 0 {
			p.Owed = nil
		}
	}
	if err := paused(p); err != nil {
		g.Lease = p.clone()
		return g, err
	}
	if err := heldBy(p, session); err != nil {
		g.Lease = p.clone()
		return g, err
	}
	if p.Holder == "" {
		p.Holder, p.Since, g.Acquired = session, t.o.Now(), true
	}
	g.Lease = p.clone()
	return g, nil
}

// Check re-asks Use's question without changing anything: a verb calls it
// after every wait, immediately before it acts, so that a takeover or a
// release that landed meanwhile stops it.
func (t *Table) Check(id target.ID, session string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	if err := paused(p); err != nil {
		return err
	}
	if p.Holder != session {
		if p.Holder == "" {
			return target.Refuse(target.CodeNotAttached, "%s was released while this verb ran; nothing more was done", id).With("target", string(id))
		}
		return heldBy(p, session)
	}
	return nil
}

// Takeover gives input to user, who asks from session. Taking over again
// as the user who drives changes nothing but their last activity. While
// another user drives, the takeover is refused taken_over (naming them and
// since when) unless force: then it replaces theirs, answers whom it
// replaced, and owes them the note (told once by Tell).
func (t *Table) Takeover(id target.ID, user, session string, force bool) (l Lease, replaced string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	now := t.o.Now()
	switch {
	case p.Input != InputUser:
		p.UserSince, p.UserSession = now, session
	case p.User != user:
		if !force {
			since := p.UserSince.UTC().Format(time.RFC3339)
			return p.clone(), "", target.Refuse(target.CodeTakenOver,
				"%s is taken over by %s since %s; one person drives at a time: wait for their handback, or take over with --force (%s is told)",
				id, p.User, since, p.User).With("user", p.User).With("user_since", since).With("target", string(id))
		}
		if p.Replaced == nil {
			p.Replaced = make(map[string]Replacement)
		}
		p.Replaced[p.User] = Replacement{Target: id, By: user, UserSince: p.UserSince, At: now}
		replaced = p.User
		p.UserSince, p.UserSession = now, session
	}
	delete(p.Replaced, user) // taking over again: they know
	if len(p.Replaced) == 0 {
		p.Replaced = nil
	}
	p.Input, p.User, p.UserActive = InputUser, user, now
	return p.clone(), replaced, nil
}

// Touched records that user drives id directly with their own devices
// (how says how it was noticed), from session: a takeover nobody asked
// for, which only an explicit handback ends. It reports whether input
// changed hands: false when the user already drove it (their last activity
// is updated then) or nobody holds it (no agent to pause).
func (t *Table) Touched(id target.ID, user, session, how string) (Lease, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	now := t.o.Now()
	if p.Input == InputUser {
		p.UserActive = now
		return p.clone(), false
	}
	if p.Holder == "" {
		return p.clone(), false
	}
	p.Input, p.User, p.UserSince, p.UserSession, p.UserActive, p.Direct = InputUser, user, now, session, now, how
	return p.clone(), true
}

// Tell hands out, once, the note owed to user whose takeover of id a forced
// one replaced, or nil.
func (t *Table) Tell(id target.ID, user string) *Replacement {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	r, ok := p.Replaced[user]
	if !ok {
		return nil
	}
	delete(p.Replaced, user)
	if len(p.Replaced) == 0 {
		p.Replaced = nil
	}
	return &r
}

// Handback returns input to the agents. The holder is owed a note, told on
// its next verb. It reports whether the target was taken over at all.
func (t *Table) Handback(id target.ID) (Lease, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	if p.Input != InputUser {
		return p.clone(), false
	}
	t.handback(p, t.o.Now(), false)
	return p.clone(), true
}

// UserActivity records user input during a takeover; idle handback counts
// from the last one.
func (t *Table) UserActivity(id target.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	if p.Input == InputUser {
		p.UserActive = t.o.Now()
	}
}

// Expire applies idle handback to every lease and returns the targets it
// handed back. Reads apply it too; call Expire from a ticker so a handback
// happens (and is persisted) even when nobody asks.
func (t *Table) Expire() []target.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []target.ID
	now := t.o.Now()
	for id, l := range t.m {
		if t.expire(l, now) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Watch adds a viewer to id's lease; Unwatch removes it.
func (t *Table) Watch(id target.ID, viewer string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	if !slices.Contains(p.Viewers, viewer) {
		p.Viewers = append(p.Viewers, viewer)
	}
}

// Unwatch removes a viewer from id's lease.
func (t *Table) Unwatch(id target.ID, viewer string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.lease(id)
	p.Viewers = slices.DeleteFunc(p.Viewers, func(v string) bool { return v == viewer })
}

func paused(l *Lease) error {
	if l.Input != InputUser {
		return nil
	}
	if l.Direct != "" {
		since := l.UserSince.UTC().Format(time.RFC3339)
		return target.Refuse(target.CodeUserActive, "%s is paused: %s used their own keyboard or pointer at %s (%s); it stays paused until they hand it back (vibespace-window handback %s --as %q)",
			l.Target, l.User, since, l.Direct, l.Target, l.User).
			With("user", l.User).With("since", since).With("direct", l.Direct).With("target", string(l.Target))
	}
	code := target.CodeWindowPaused
	if l.Target.Kind() == target.KindTab {
		code = target.CodeBrowserPaused
	}
	return target.Refuse(code, "%s is paused: %s took over at %s; wait for the handback",
		l.Target, l.User, l.UserSince.UTC().Format(time.RFC3339)).
		With("user", l.User).With("since", l.UserSince.UTC().Format(time.RFC3339)).With("target", string(l.Target))
}

func heldBy(l *Lease, session string) error {
	if l.Holder == "" || l.Holder == session {
		return nil
	}
	return target.Refuse(target.CodeHeld, "%s is held by session %q since %s; it must detach first",
		l.Target, l.Holder, l.Since.UTC().Format(time.RFC3339)).
		With("holder", l.Holder).With("since", l.Since.UTC().Format(time.RFC3339)).With("target", string(l.Target))
}
