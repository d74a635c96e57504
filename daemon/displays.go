package daemon

import (
	"context"
	"slices"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/modes"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// The running displays, their slots, the ceiling of per-session displays
// and their idle stop, stalls, deaths and the windows lost with them,
// discovery's scan, which provider a name means and the displays' records
// are package daemon/displays's registry (d.reg), which shares d.mu. What
// stays here is the registry's hands on the target table (displayHands).

// display is one running display (package daemon/displays): an entry's
// display, by the name the core always gave it.
type display = displays.Display

// displayHands is the core as the display registry sees it
// (displays.Host): the target table, the leases, the audit and the state
// file. The methods whose names end in Locked are called with d.mu held.
type displayHands struct{ d *Daemon }

func (h displayHands) ClosedLocked() bool   { return h.d.closed }
func (h displayHands) Persist()             { h.d.persist() }
func (h displayHands) Record(e lease.Entry) { h.d.record(e) }
func (h displayHands) Owe(n notice.Notice)  { h.d.owe(n) }
func (h displayHands) CountLocked() map[*display]int {
	count := map[*display]int{}
	for _, e := range h.d.targets {
		if e.disp != nil {
			count[e.disp]++
		}
	}
	return count
}

func (h displayHands) DropLocked(disp *display) []displays.Gone {
	var out []displays.Gone
	for id, e := range h.d.targets {
		if e.disp != disp {
			continue
		}
		delete(h.d.targets, id)
		out = append(out, displays.Gone{ID: id, Title: e.rec.Title, Origin: e.rec.Origin})
	}
	return out
}

func (h displayHands) Release(id target.ID) string {
	holder := h.d.leases.Get(id).Holder
	h.d.leases.Drop(id)
	return holder
}

func (h displayHands) KnownLocked(disp *display) (map[string]bool, []int) {
	known := map[string]bool{}
	var roots []int
	for _, e := range h.d.targets {
		if e.disp != disp {
			continue
		}
		known[e.rec.Key] = true
		if e.rec.PID > 0 && !slices.Contains(roots, e.rec.PID) {
			roots = append(roots, e.rec.PID)
		}
	}
	return known, roots
}

// Sweep re-reads the targets on per-session displays, so that a window
// whose application exited (or that a person closed in their xpra client)
// is dropped without waiting for a verb or a list to notice: the display
// it was the last window of then goes idle. One cheap read each (a window's
// Info asks its X server once).
func (h displayHands) Sweep(ctx context.Context) {
	d := h.d
	d.mu.Lock()
	var on []*entry
	for _, e := range d.targets {
		if e.disp != nil && e.disp.PerSession() {
			on = append(on, e)
		}
	}
	d.mu.Unlock()
	for _, e := range on {
		rctx, cancel := context.WithTimeout(ctx, displays.ReadBudget)
		d.refresh(rctx, e) // a gone window is dropped; any other answer keeps it
		cancel()
	}
}

// Adopt makes a found window a target of the session of the window it came
// from, in its mode where that was chosen (auto is resolved for the found
// window itself, within modes.ResolveBudget, as open resolves it). A window that
// became a target meanwhile, or whose origin is gone, is left. The found
// window is:
//
//   - exposed to whom that window is (its opener and everyone it was
//     shared with), and opened by the same session;
//   - its lease is held by whoever holds that window's lease at discovery
//     (free if nobody does), and taken over by the same person if a person
//     drives that window then: an agent does not act in a dialog while a
//     person drives its window;
//   - closing it asks that window alone to close (WM_DELETE_WINDOW); the
//     application keeps running (closeDiscovered).
func (h displayHands) Adopt(ctx context.Context, disp *display, f kind.Found) {
	d := h.d
	d.mu.Lock()
	origin := h.originOfLocked(disp, f)
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
		Display: disp.Name(), Exposure: slices.Clone(origin.rec.Exposure), From: origin.id,
		Mode: modes.Of(origin.rec),
	}
	d.mu.Unlock()
	if rec.Mode == target.ModeAuto {
		rec.Resolved, rec.ModeWhy = modes.Judge(ctx, f.Target) // bounded by modes.ResolveBudget
	}
	d.mu.Lock()
	if h.originOfLocked(disp, f) != origin { // found meanwhile, or its origin went
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

// originOfLocked is the target a found window comes from on disp (nil
// when the window is a target already, or none is its origin): the target
// whose process is the new window's, or its nearest ancestor's. The caller
// holds d.mu.
func (h displayHands) originOfLocked(disp *display, f kind.Found) *entry {
	var origin *entry
	for _, e := range h.d.targets {
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
