package daemon

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Windows lost with their display. A display whose server dies under the
// daemon (its Xvfb killed, its xpra server crashed: kind.Mortal) is seen
// dying at once, by a watcher of its own, not by a verb that happens to
// fail: its windows stop being targets (list is honest at once), the
// session that held each is told once why (a notice), the loss is logged
// and audited, and what is left of the display (its applications, its
// buses) is stopped. The lost handles are remembered (and persisted): a
// verb on one is refused window_gone saying when and why — watch --xpra
// no_attach — also after the display was started again, never
// unknown_target for a handle this daemon minted. A new display starts
// on the next open that needs it; the lost windows are not reopened.

// lostKey is where state.json keeps the lost handles.
const lostKey = "lost"

// maxLost bounds the lost handles remembered: the oldest are forgotten.
const maxLost = 1000

// deathGrace bounds the wait, after a window's read failed, for its
// display's server to be seen ending (the read may see the connection end
// a moment before the process's end is reaped).
const deathGrace = 500 * time.Millisecond

// lostWindow is one window lost with its display.
type lostWindow struct {
	ID      target.ID `json:"target"`
	Title   string    `json:"title,omitempty"`
	At      time.Time `json:"at"`
	Display string    `json:"display"` // "display :3 (Xvfb pid 4242)"
	How     string    `json:"how"`     // "killed by signal 9 (SIGKILL)"
}

// lostBook is the lost handles. Its lock is taken after Daemon.mu, never
// before.
type lostBook struct {
	mu sync.Mutex
	m  map[target.ID]lostWindow
}

func (b *lostBook) add(l lostWindow) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = make(map[target.ID]lostWindow)
	}
	b.m[l.ID] = l
	if len(b.m) > maxLost {
		var oldest target.ID
		for id, w := range b.m {
			if oldest == "" || w.At.Before(b.m[oldest].At) {
				oldest = id
			}
		}
		delete(b.m, oldest)
	}
}

func (b *lostBook) get(id target.ID) (lostWindow, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.m[id]
	return l, ok
}

// why is the display's death in words: "its display :3 (Xvfb pid 4242)
// died — killed by signal 9 (SIGKILL)".
func (l lostWindow) why() string { return "its " + l.Display + " died — " + l.How }

func (l lostWindow) at() string { return l.At.UTC().Format(time.RFC3339) }

// words say the loss: "win:1 was lost at <time>: its display … died — …".
func (l lostWindow) words() string {
	return fmt.Sprintf("%s was lost at %s: %s", l.ID, l.at(), l.why())
}

// lostRefusal refuses req on the lost window l: window_gone, or no_attach
// for watch --xpra (there is no display left to attach to).
func lostRefusal(req Request, l lostWindow) error {
	if req.Verb == "watch" && req.Xpra {
		return target.Refuse(target.CodeNoAttach, "%s's %s died at %s — %s: there is nothing left to attach to, and its windows were lost (open --display xpra starts a new display)",
			l.ID, l.Display, l.at(), l.How).With("target", string(l.ID)).With("lost_at", l.at()).With("why", l.why())
	}
	return target.Refuse(target.CodeWindowGone, "%s; its application went with it (open it again: it gets a new handle)", l.words()).
		With("target", string(l.ID)).With("lost_at", l.at()).With("why", l.why())
}

// lostOr is err, or for a handle lost with its display the refusal that
// says so.
func (d *Daemon) lostOr(req Request, id target.ID, err error) error {
	if l, ok := d.lost.get(id); ok {
		return lostRefusal(req, l)
	}
	return err
}

// watchDeath watches disp's server, when its display is Mortal: its death
// loses its windows at once (displayDied). One watcher per display; none
// once the daemon is shutting down.
func (d *Daemon) watchDeath(disp *display) {
	m, ok := disp.d.(kind.Mortal)
	if !ok {
		return
	}
	gone := m.Gone()
	if gone == nil {
		return
	}
	d.mu.Lock()
	if d.closed || disp.watching {
		d.mu.Unlock()
		return
	}
	disp.watching = true
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		select {
		case <-gone:
		case <-d.stop:
			return
		}
		if d.loseDisplay(disp, disp.d.(kind.Mortal).Death()) || d.diedUnseen(disp) {
			d.closeDisplay(disp) // what is left of it: its applications, its buses
		}
	}()
}

// watchDeaths watches every running display (those a restarted daemon
// re-attached before it served).
func (d *Daemon) watchDeaths() {
	d.mu.Lock()
	disps := make([]*display, 0, len(d.displays))
	for _, disp := range d.displays {
		disps = append(disps, disp)
	}
	d.mu.Unlock()
	for _, disp := range disps {
		d.watchDeath(disp)
	}
}

// diedUnseen reports whether disp was lost by a verb that saw it dead
// before its watcher did (so the watcher still stops what is left).
func (d *Daemon) diedUnseen(disp *display) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return disp.died
}

// diedNow reports whether disp's server has ended — a look at a closed
// channel, no call — losing its windows first if its watcher has not yet.
// A display that is not watched dies unseen here (false).
func (d *Daemon) diedNow(disp *display) bool {
	return d.diedWithin(disp, 0)
}

// diedWithin is diedNow, waiting up to grace for the end to be seen.
func (d *Daemon) diedWithin(disp *display, grace time.Duration) bool {
	m, ok := disp.d.(kind.Mortal)
	if !ok {
		return false
	}
	gone := m.Gone()
	if gone == nil {
		return false
	}
	select {
	case <-gone:
	default:
		if grace <= 0 {
			return false
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-gone:
		case <-t.C:
			return false
		}
	}
	if d.loseDisplay(disp, m.Death()) {
		d.mu.Lock()
		watched := disp.watching
		d.mu.Unlock()
		if !watched {
			go d.closeDisplay(disp) // nobody else will stop what is left of it
		}
	}
	return true
}

// loseDisplay forgets disp, whose server died as death says, and its
// windows, if it is still a running display (not stopped on purpose, not
// lost already): each window's handle is remembered as lost, its holder
// told once, the loss logged and audited. It reports whether it lost it
// (once per display). The caller stops what is left of it.
func (d *Daemon) loseDisplay(disp *display, death kind.Death) bool {
	if death.At.IsZero() {
		death.At = d.cfg.Now()
	}
	type loss struct {
		l   lostWindow
		who string
	}
	var losses []loss
	d.mu.Lock()
	if d.displays[disp.key()] != disp || disp.died {
		d.mu.Unlock()
		return false
	}
	disp.died = true
	delete(d.displays, disp.key())
	for id, e := range d.targets {
		if e.disp != disp {
			continue
		}
		delete(d.targets, id)
		l := lostWindow{ID: id, Title: e.rec.Title, At: death.At.UTC(), Display: death.Display, How: death.How}
		d.lost.add(l)
		losses = append(losses, loss{l: l, who: e.rec.Origin})
	}
	d.mu.Unlock()
	sort.Slice(losses, func(i, j int) bool { return losses[i].l.ID.Number() < losses[j].l.ID.Number() })
	ids := make([]string, len(losses))
	for i, ls := range losses {
		ids[i] = string(ls.l.ID)
	}
	d.cfg.Logger.Warn("a display died; its windows are lost", "display", disp.name, "session", disp.session, "died", death.Display+" — "+death.How, "at", death.At.UTC().Format(time.RFC3339), "lost", ids)
	d.record(lease.Entry{Session: "daemon (display died)", For: disp.session, Verb: "display-died", With: death.Display + " — " + death.How, OK: false})
	for _, ls := range losses {
		who := ls.who
		if h := d.leases.Get(ls.l.ID).Holder; h != "" {
			who = h
		}
		d.leases.Drop(ls.l.ID)
		d.record(lease.Entry{Session: "daemon (display died)", For: who, Target: ls.l.ID, Verb: "lost", With: ls.l.why(), OK: false, Code: target.CodeWindowGone})
		text := ls.l.words()
		if ls.l.Title != "" {
			text += fmt.Sprintf(" (%q; its application went with it)", ls.l.Title)
		}
		if who != "" {
			d.owe(notice.Notice{Session: who, Target: ls.l.ID, Text: text, At: ls.l.At})
		}
	}
	d.persist()
	return true
}

// lostRecord is what state.json keeps of the lost handles.
func (d *Daemon) lostRecord() json.RawMessage {
	d.lost.mu.Lock()
	defer d.lost.mu.Unlock()
	if len(d.lost.m) == 0 {
		return nil
	}
	ls := make([]lostWindow, 0, len(d.lost.m))
	for _, l := range d.lost.m {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].ID.Number() < ls[j].ID.Number() })
	b, _ := json.Marshal(ls)
	return b
}

// restoreLost takes back the lost handles an earlier daemon remembered.
func (d *Daemon) restoreLost(raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var ls []lostWindow
	if err := json.Unmarshal(raw, &ls); err != nil {
		d.cfg.Logger.Warn("the lost windows' record is unreadable; their handles will be unknown", "err", err)
		return
	}
	for _, l := range ls {
		if l.ID != "" {
			d.lost.add(l)
		}
	}
}

// lostRead is the refusal of a read of e that failed because e's display
// died (seen now, or within deathGrace after a failed call), or nil.
func (d *Daemon) lostRead(e *entry, err error) error {
	if e.disp == nil {
		return nil
	}
	grace := time.Duration(0)
	if err != nil {
		if c := target.CodeOf(err); c == "" || c == codeInternal {
			grace = deathGrace
		}
	}
	if !d.diedWithin(e.disp, grace) {
		return nil
	}
	if l, ok := d.lost.get(e.id); ok {
		return lostRefusal(Request{}, l)
	}
	return target.Refuse(e.words().Gone, "%s is gone: its display died", e.id).With("target", string(e.id))
}

// lostBeforeRestart remembers the window t of an earlier daemon's state
// whose display (one we start) was gone when this daemon started — it
// died while no daemon ran — as lost, and owes its holder a word, as a
// death seen at once would (reconcile calls it for every target it drops;
// it does nothing for one whose display runs, a tab, or a window of the
// user's own desktop). The notice is kept by reconcile's own persist.
func (d *Daemon) lostBeforeRestart(t target.Target, leases []lease.Lease) {
	if t.Display == "" || d.displays[d.keyOfTarget(t)] != nil {
		return
	}
	if p := d.provider(t.Display); p == nil || (d.desktopRoad() != nil && p.Name() == d.desktopRoad().Name()) {
		return
	}
	what := t.Display + " display"
	if perSession(d.provider(t.Display)) {
		what += " of session " + t.Origin
	}
	l := lostWindow{ID: t.ID, Title: t.Title, At: d.cfg.Now().UTC(), Display: what, How: "it was gone when this daemon started (it died while no daemon ran)"}
	d.lost.add(l)
	who := t.Origin
	for _, ls := range leases {
		if ls.Target == t.ID && ls.Holder != "" {
			who = ls.Holder
		}
	}
	d.cfg.Logger.Warn("a display died while no daemon ran; its window is lost", "target", t.ID, "display", t.Display, "session", who)
	if who == "" {
		return
	}
	d.notes.Add(notice.Notice{Session: who, Target: t.ID, Text: l.words() + fmt.Sprintf(" (%q)", t.Title), At: l.At})
}
