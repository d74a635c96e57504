package displays

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
)

// Windows found beside the ones opened. An application shows more windows
// than the one open answered: a dialog, a second window, a window of a
// process it started (a dialog launched from a terminal the agent opened).
// Each is a target of the session of the window it came from — the
// target whose process is the new window's, or its nearest ancestor's
// (the core adopts it: Host.Adopt, which says what that makes it).
//
// A display finds them (kind.Discoverer) on every list and on a tick of
// the daemon's own, so the live view shows a dialog within about a tick.
// The roots of the scan are the processes of the display's targets, which
// the state keeps: after a restart the windows of applications an earlier
// daemon launched are found too. A scan takes no target's gate and no
// slot of the display's: it never waits for a verb, nor does a verb wait
// for it (list waits up to HealthBudget for a scan in flight, whose
// finds it then lists); it is bounded by ListBudget (a scan that runs out of it marks its
// display not answering, as any read does: stall.go), and skips a display
// so marked.

// discoverEvery is how often the daemon scans its displays when nobody
// lists.
const discoverEvery = 500 * time.Millisecond

// DiscoverLoop scans the displays every discoverEvery until the daemon
// stops. The caller counted it in Options.WG.
func (r *Registry) DiscoverLoop(ctx context.Context) {
	defer r.o.WG.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.o.Stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	t := time.NewTicker(discoverEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.Discover(ctx)
		}
	}
}

// Discover scans every running display once. A target whose window went
// is not dropped here: the next verb on it answers window_gone, and list
// (and the live view) leave it out, as for any window.
func (r *Registry) Discover(ctx context.Context) {
	slot := r.scanSlot
	wait := time.NewTimer(HealthBudget)
	defer wait.Stop()
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return
	case <-wait.C:
		return // a scan is still running: it finds what this one would
	}
	defer func() { <-slot }()
	for _, disp := range r.All() {
		if ctx.Err() != nil {
			return
		}
		r.DiscoverOn(ctx, disp)
	}
}

// Rescan scans disp for new windows now (a dialog an action opened), as
// the discovery loop would, unless a scan is running already. A display
// that lists a whole desktop (kind.Lister) is left to the loop: listing it
// is no cheap look.
func (r *Registry) Rescan(ctx context.Context, disp *Display) {
	if _, ok := disp.d.(kind.Lister); ok {
		return
	}
	select {
	case r.scanSlot <- struct{}{}:
	default:
		return // the running scan finds what this one would
	}
	defer func() { <-r.scanSlot }()
	r.DiscoverOn(ctx, disp)
}

// DiscoverOn scans disp once: the windows beside its targets' (Host.Adopt),
// or every window of the user's desktop (a kind.Lister).
func (r *Registry) DiscoverOn(ctx context.Context, disp *Display) {
	if l, ok := disp.d.(kind.Lister); ok {
		r.listDesktop(ctx, disp, l)
		return
	}
	dc, ok := disp.d.(kind.Discoverer)
	if !ok || !r.StalledSince(disp).IsZero() || r.Running(disp.Key()) != disp {
		return
	}
	r.mu.Lock()
	known, roots := r.host.KnownLocked(disp)
	r.mu.Unlock()
	if len(roots) == 0 {
		return
	}
	var found []kind.Found
	// As for any read (stall.go): a scan cut by its budget marks the
	// display, and verbs and lists ask it within HealthBudget until it
	// answers again.
	stalled, err := r.within(ctx, disp, ListBudget, func(ctx context.Context) (err error) {
		found, err = dc.Discover(ctx, roots, known)
		return err
	})
	if err != nil {
		if !stalled && ctx.Err() == nil {
			r.o.Logger.Debug("a scan for windows failed", "display", disp.name, "err", err)
		}
		return
	}
	for _, f := range found {
		r.host.Adopt(ctx, disp, f)
	}
}

// listDesktop makes every window of the user's desktop a target
// (Host.AdoptDesktop), bounded as any scan.
func (r *Registry) listDesktop(ctx context.Context, disp *Display, l kind.Lister) {
	if !r.StalledSince(disp).IsZero() || r.Running(disp.Key()) != disp {
		return
	}
	r.mu.Lock()
	known, _ := r.host.KnownLocked(disp)
	r.mu.Unlock()
	var found []kind.Found
	stalled, err := r.within(ctx, disp, ListBudget, func(ctx context.Context) (err error) {
		found, err = l.Windows(ctx, known)
		return err
	})
	if err != nil {
		if !stalled && ctx.Err() == nil {
			r.o.Logger.Debug("listing the user's desktop failed", "display", disp.name, "err", err)
		}
		return
	}
	added := false
	for _, f := range found {
		added = r.host.AdoptDesktop(disp, f) || added
	}
	if added {
		r.host.Persist()
	}
}
