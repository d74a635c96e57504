// Package displays is the daemon's registry of running displays and what
// it keeps beside each, out of the core: which provider a display name
// means, the map of displays by key (a provider's name, and for a
// per-session provider its session), bringing one up once however many
// open at once (its slot), the ceiling of per-session displays and their
// idle stop, a display that stops answering (stall), a display whose
// server dies under the daemon and the book of windows lost with it, the
// scan that finds windows beside the opened ones (discovery), raising and
// covering on a shared screen (stacking), and the displays' records in the
// state file (Keep, Reattach).
//
// The registry shares the core's one lock (Daemon.mu), which it is handed
// at New: that lock guards the map and every Display's mutable fields, as
// it did in the core, and is never held across a backend call. Methods
// whose names end in Locked want it held; the others take it themselves.
// What the registry needs of the core (the target table, leases, the
// audit, persisting) it asks through Host, which the core implements by a
// small adapter. The package never imports the core (layout_test.go).
package displays

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/wire"
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
// At most Options.MaxSessionDisplays per-session displays run at once
// (display_limit beyond); one that has had no window for
// Options.IdleStop is stopped. Shared displays are never stopped as
// idle.

// Display is one running display and what the daemon keeps beside it: the
// gates its windows share.
type Display struct {
	mu   *sync.Mutex // the registry's (Daemon.mu)
	name string      // its provider's name: how targets and records name it
	// session is the session whose display it is, for a per-session
	// display ("" for a shared one).
	session    string
	perSession bool
	d          kind.Display
	// inject is one slot: one injected input sequence at a time, since the
	// display has one keyboard and one pointer. injectOwner (guarded by
	// mu) is the target whose input holds it.
	inject      chan struct{}
	injectOwner target.ID
	// stack is one slot: between raising a window and acting on what is on
	// screen, no verb of ours raises another window of this display.
	stack chan struct{}
	// stalled (guarded by mu) is when the display was found not
	// answering; zero while it answers (stall.go).
	stalled time.Time
	// Guarded by mu, for a per-session display's idle stop: busy
	// counts the opens using it now (Use until their window is a
	// target), idleSince is when it was first found with no window and no
	// open (zero while it has one).
	busy      int
	idleSince time.Time
	// watching (guarded by mu) is set while a watcher waits for
	// the display's server to die; died once it did and its windows were
	// lost (lost.go).
	watching, died bool
}

// NewDisplay is p's display d of session (ignored for a shared provider),
// its fields guarded by the registry's lock. It is not running until it is
// put in the registry (Use, PutLocked).
func (r *Registry) NewDisplay(p kind.DisplayProvider, d kind.Display, session string) *Display {
	ps := PerSession(p)
	if !ps {
		session = ""
	}
	return &Display{
		mu: r.mu, name: p.Name(), session: session, perSession: ps, d: d,
		inject: make(chan struct{}, 1), stack: make(chan struct{}, 1),
	}
}

// Name is its provider's name: how targets and records name it.
func (disp *Display) Name() string { return disp.name }

// Session is the session whose display it is ("" for a shared one).
func (disp *Display) Session() string { return disp.session }

// PerSession reports whether it is one session's own.
func (disp *Display) PerSession() bool { return disp.perSession }

// Kind is the backend's display.
func (disp *Display) Kind() kind.Display { return disp.d }

// PerSession reports whether p gives each session a display of its own.
func PerSession(p kind.DisplayProvider) bool {
	ps, ok := p.(kind.PerSession)
	return ok && ps.PerSession()
}

// KeyFor is how the registry knows p's display for session: its
// provider's name for a shared one (session does not matter), the name and
// the session for a per-session one.
func KeyFor(p kind.DisplayProvider, session string) string {
	return keyOf(p.Name(), PerSession(p), session)
}

// Key is how the registry knows disp.
func (disp *Display) Key() string { return keyOf(disp.name, disp.perSession, disp.session) }

func keyOf(name string, perSession bool, session string) string {
	if !perSession {
		return name
	}
	return name + "\x00" + session
}

// Injecting takes the injection slot of disp for owner's input: one
// keyboard and one pointer, so injected sequences never interleave. A
// target on no display (disp nil: a tab) has its input to itself.
func (disp *Display) Injecting(ctx context.Context, owner target.ID) (func(), error) {
	if disp == nil {
		return func() {}, nil
	}
	select {
	case disp.inject <- struct{}{}:
		disp.mu.Lock()
		disp.injectOwner = owner
		disp.mu.Unlock()
		return func() {
			disp.mu.Lock()
			disp.injectOwner = ""
			disp.mu.Unlock()
			<-disp.inject
		}, nil
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another window's input was still being injected").Wrap(ctx.Err())
	}
}

// TryInjecting takes the injection slot of disp if it is free now, and
// reports whether it did; release gives it back.
func (disp *Display) TryInjecting() (release func(), ok bool) {
	select {
	case disp.inject <- struct{}{}:
		return func() { <-disp.inject }, true
	default:
		return nil, false
	}
}

// InjectOwner is the target whose input holds the injection slot now, or
// "".
func (disp *Display) InjectOwner() target.ID {
	disp.mu.Lock()
	defer disp.mu.Unlock()
	return disp.injectOwner
}

// Bounds of the display calls that have no context of their own.
const (
	// displayCloseBudget bounds waiting for a display to stop: one that
	// takes longer is left to its provider and the daemon goes on.
	displayCloseBudget = 15 * time.Second
	// watchersBudget bounds asking a display who is attached to it
	// (kind.Watched, a cheap read).
	watchersBudget = 250 * time.Millisecond
)

// Watched adds to ti who is attached to disp (a window's display) from
// outside the daemon (kind.Watched), while someone is. A target on no
// display (disp nil) is watched by nobody.
func (r *Registry) Watched(disp *Display, ti *wire.TargetInfo) {
	if disp == nil {
		return
	}
	w, ok := disp.d.(kind.Watched)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchersBudget)
	defer cancel()
	ws, err := w.Watchers(ctx)
	if err != nil {
		r.o.Logger.Debug("who watches a display is unknown", "display", disp.name, "err", err)
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
