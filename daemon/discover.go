package daemon

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Windows found beside the ones opened. An application shows more windows
// than the one open answered: a dialog, a second window, a window of a
// process it started (a dialog launched from a terminal the agent opened).
// Each is a target of the session of the window it came from — the
// target whose process is the new window's, or its nearest ancestor's:
//
//   - it is exposed to whom that window is (its opener and everyone it was
//     shared with), and opened by the same session;
//   - its lease is held by whoever holds that window's lease at discovery
//     (free if nobody does), and taken over by the same person if a person
//     drives that window then: an agent does not act in a dialog while a
//     person drives its window;
//   - closing it asks that window alone to close (WM_DELETE_WINDOW); the
//     application keeps running (closeDiscovered).
//
// A display finds them (kind.Discoverer) on every list and on a tick of
// the daemon's own, so the live view shows a dialog within about a tick.
// The roots of the scan are the processes of the display's targets, which
// the state keeps: after a restart the windows of applications an earlier
// daemon launched are found too. A scan takes no target's gate and no
// slot of the display's: it never waits for a verb, nor does a verb wait
// for it (list waits up to healthBudget for a scan in flight, whose
// finds it then lists); it is bounded by listBudget (a scan that runs out of it marks its
// display not answering, as any read does: stall.go), and skips a display
// so marked.

// discoverEvery is how often the daemon scans its displays when nobody
// lists.
const discoverEvery = 500 * time.Millisecond

// discoverLoop scans the displays every discoverEvery until the daemon
// stops.
func (d *Daemon) discoverLoop(ctx context.Context) {
	defer d.wg.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-d.stop:
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
			d.discover(ctx)
		}
	}
}

// discover scans every running display once. A target whose window went
// is not dropped here: the next verb on it answers window_gone, and list
// (and the live view) leave it out, as for any window.
func (d *Daemon) discover(ctx context.Context) {
	slot := d.scanSlot
	wait := time.NewTimer(healthBudget)
	defer wait.Stop()
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return
	case <-wait.C:
		return // a scan is still running: it finds what this one would
	}
	defer func() { <-slot }()
	d.mu.Lock()
	var disps []*display
	for _, disp := range d.displays {
		disps = append(disps, disp)
	}
	d.mu.Unlock()
	for _, disp := range disps {
		if ctx.Err() != nil {
			return
		}
		d.discoverOn(ctx, disp)
	}
}

func (d *Daemon) discoverOn(ctx context.Context, disp *display) {
	if l, ok := disp.d.(kind.Lister); ok {
		d.listDesktop(ctx, disp, l)
		return
	}
	dc, ok := disp.d.(kind.Discoverer)
	if !ok || !d.stalledSince(disp).IsZero() || d.runningDisplay(disp.key()) != disp {
		return
	}
	known := map[string]bool{}
	var roots []int
	d.mu.Lock()
	for _, e := range d.targets {
		if e.disp != disp {
			continue
		}
		known[e.rec.Key] = true
		if e.rec.PID > 0 && !slices.Contains(roots, e.rec.PID) {
			roots = append(roots, e.rec.PID)
		}
	}
	d.mu.Unlock()
	if len(roots) == 0 {
		return
	}
	var found []kind.Found
	// As for any read (stall.go): a scan cut by its budget marks the
	// display, and verbs and lists ask it within healthBudget until it
	// answers again.
	stalled, err := d.within(ctx, disp, listBudget, func(ctx context.Context) (err error) {
		found, err = dc.Discover(ctx, roots, known)
		return err
	})
	if err != nil {
		if !stalled && ctx.Err() == nil {
			d.cfg.Logger.Debug("a scan for windows failed", "display", disp.name, "err", err)
		}
		return
	}
	for _, f := range found {
		d.adopt(ctx, disp, f)
	}
}

// listDesktop makes every window of the user's desktop a target
// (yours.go), bounded as any scan.
func (d *Daemon) listDesktop(ctx context.Context, disp *display, l kind.Lister) {
	if !d.stalledSince(disp).IsZero() || d.runningDisplay(disp.key()) != disp {
		return
	}
	known := map[string]bool{}
	d.mu.Lock()
	for _, e := range d.targets {
		if e.disp == disp {
			known[e.rec.Key] = true
		}
	}
	d.mu.Unlock()
	var found []kind.Found
	stalled, err := d.within(ctx, disp, listBudget, func(ctx context.Context) (err error) {
		found, err = l.Windows(ctx, known)
		return err
	})
	if err != nil {
		if !stalled && ctx.Err() == nil {
			d.cfg.Logger.Debug("listing the user's desktop failed", "display", disp.name, "err", err)
		}
		return
	}
	added := false
	for _, f := range found {
		added = d.adoptDesktop(disp, f) || added
	}
	if added {
		d.persist()
	}
}

// adopt makes a found window a target of the session of the window it came
// from (see the top of this file), in its mode where that was chosen (auto
// is resolved for the found window itself, within resolveBudget, as open
// resolves it). A window that became a target meanwhile, or whose origin
// is gone, is left.
func (d *Daemon) adopt(ctx context.Context, disp *display, f kind.Found) {
	d.mu.Lock()
	origin := d.originOf(disp, f)
	if origin == nil {
		d.mu.Unlock()
		return
	}
	app := origin.rec.App
	if f.App != "" {
		app = f.App
	}
	rec := target.Target{
		Kind: target.KindWindow, Title: f.Info.Title, App: app,
		Origin: origin.rec.Origin, PID: f.Info.PID, Key: f.Info.Key,
		Display: disp.name, Exposure: slices.Clone(origin.rec.Exposure), From: origin.id,
		Mode: modeOf(origin.rec),
	}
	d.mu.Unlock()
	if rec.Mode == target.ModeAuto {
		rec.Resolved, rec.ModeWhy = judge(ctx, f.Target) // bounded by resolveBudget
	}
	d.mu.Lock()
	if d.originOf(disp, f) != origin { // found meanwhile, or its origin went
		d.mu.Unlock()
		return
	}
	d.next++
	rec.ID = target.WindowID(d.next)
	rec.Opened = d.cfg.Now().UTC()
	id := rec.ID
	e := newEntry(rec, f.Target, disp)
	e.info = f.Info
	d.targets[id] = e
	d.mu.Unlock()
	l := d.leases.Get(origin.id)
	if l.Holder != "" {
		d.leases.Acquire(id, l.Holder)
	}
	if l.Input == lease.InputUser {
		d.leases.Takeover(id, l.User, l.UserSession, false)
	}
	d.persist()
	d.record(lease.Entry{Session: "daemon (found)", Target: id, Verb: "discover", OK: true, With: string(origin.id)})
	d.cfg.Logger.Info("found a window", "target", id, "from", origin.id, "pid", rec.PID, "title", rec.Title, "holder", l.Holder)
}

// originOf is the target a found window comes from on disp (nil when the
// window is a target already, or none is its origin). The caller holds
// d.mu.
func (d *Daemon) originOf(disp *display, f kind.Found) *entry {
	var origin *entry
	for _, e := range d.targets {
		if e.disp != disp {
			continue
		}
		if e.rec.Key == f.Info.Key {
			return nil
		}
		if e.rec.PID == f.Root && (origin == nil || earlier(e, origin)) {
			origin = e
		}
	}
	return origin
}

// earlier reports whether a comes before b as the window others come
// from: a window open made before a found one, then the oldest. The caller
// holds d.mu.
func earlier(a, b *entry) bool {
	if (a.rec.From == "") != (b.rec.From == "") {
		return a.rec.From == ""
	}
	return a.id.Number() < b.id.Number()
}

// closeDiscovered closes a window found beside the one its application was
// opened with: it asks that window alone to close, and waits for it to go;
// the application keeps running. A window that cannot be asked is refused
// no_close, naming the window whose close stops the application.
func (d *Daemon) closeDiscovered(ctx context.Context, c *call) Response {
	e := c.e
	info := d.info(e)
	wc, ok := e.t.(kind.WindowCloser)
	var err error
	gone := false
	if ok {
		gone, err = wc.CloseWindow(ctx)
	}
	if !ok || target.CodeOf(err) == target.CodeNoClose {
		d.mu.Lock()
		from := e.rec.From
		d.mu.Unlock()
		first := "its application's first window"
		if d.entryOf(from) != nil {
			first = fmt.Sprintf("%s, its application's first window,", from)
		}
		return d.fail(c, target.Refuse(target.CodeNoClose,
			"%s %q cannot be closed alone: its application does not take WM_DELETE_WINDOW for it; close %s to stop the application",
			e.id, info.Title, first).With("target", string(e.id)).With("from", string(from)))
	}
	if err != nil {
		return d.fail(c, err)
	}
	if !gone {
		resp := Response{Did: fmt.Sprintf("asked %s to close (WM_DELETE_WINDOW); it is still open after %v — its application may be asking something first (snapshot or screenshot it)", e.id, closeWaitShown)}
		return d.finish(c, resp, nil)
	}
	d.drop(e.id)
	c.e = nil
	resp := Response{Target: d.gone(info), Did: fmt.Sprintf("closed %s (WM_DELETE_WINDOW); its application (pid %d) keeps running", info.ID, info.PID)}
	return d.finish(c, resp, nil)
}

// closeWaitShown is how long a window is given to close, as answers say
// it (the backend's bound).
const closeWaitShown = 5 * time.Second
