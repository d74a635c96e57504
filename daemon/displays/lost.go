package displays

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

// LostKey is where state.json keeps the lost handles.
const LostKey = "lost"

// maxLost bounds the lost handles remembered: the oldest are forgotten.
const maxLost = 1000

// deathGrace bounds the wait, after a window's read failed, for its
// display's server to be seen ending (the read may see the connection end
// a moment before the process's end is reaped).
const deathGrace = 500 * time.Millisecond

// Lost is one window lost with its display.
type Lost struct {
	ID      target.ID `json:"target"`
	Title   string    `json:"title,omitempty"`
	At      time.Time `json:"at"`
	Display string    `json:"display"` // "display :3 (Xvfb pid 4242)"
	How     string    `json:"how"`     // "killed by signal 9 (SIGKILL)"
}

// lostBook is the lost handles. Its lock is taken after the registry's
// (Daemon.mu), never before.
type lostBook struct {
	mu sync.Mutex
	m  map[target.ID]Lost
}

func (b *lostBook) add(l Lost) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = make(map[target.ID]Lost)
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

func (b *lostBook) get(id target.ID) (Lost, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.m[id]
	return l, ok
}

// why is the display's death in words: "its display :3 (Xvfb pid 4242)
// died — killed by signal 9 (SIGKILL)".
func (l Lost) why() string { return "its " + l.Display + " died — " + l.How }

func (l Lost) at() string { return l.At.UTC().Format(time.RFC3339) }

// Words say the loss: "win:1 was lost at <time>: its display … died — …".
func (l Lost) Words() string {
	return fmt.Sprintf("%s was lost at %s: %s", l.ID, l.at(), l.why())
}

// refusal refuses a verb on the lost window l: window_gone, or no_attach
// for watch --xpra (attach: there is no display left to attach to).
func (l Lost) refusal(attach bool) error {
	if attach {
		return target.Refuse(target.CodeNoAttach, "%s's %s died at %s — %s: there is nothing left to attach to, and its windows were lost (open --display xpra starts a new display)",
			l.ID, l.Display, l.at(), l.How).With("target", string(l.ID)).With("lost_at", l.at()).With("why", l.why())
	}
	return target.Refuse(target.CodeWindowGone, "%s; its application went with it (open it again: it gets a new handle)", l.Words()).
		With("target", string(l.ID)).With("lost_at", l.at()).With("why", l.why())
}

// LostOr is err, or for a handle lost with its display the refusal that
// says so (attach: the verb is watch --xpra).
func (r *Registry) LostOr(attach bool, id target.ID, err error) error {
	if l, ok := r.lost.get(id); ok {
		return l.refusal(attach)
	}
	return err
}

// AddLost remembers l as lost (a window whose display died while no daemon
// ran: the core's reconcile).
func (r *Registry) AddLost(l Lost) { r.lost.add(l) }

// WatchDeath watches disp's server, when its display is Mortal: its death
// loses its windows at once (lose). One watcher per display; none
// once the daemon is shutting down.
func (r *Registry) WatchDeath(disp *Display) {
	m, ok := disp.d.(kind.Mortal)
	if !ok {
		return
	}
	gone := m.Gone()
	if gone == nil {
		return
	}
	r.mu.Lock()
	if r.host.ClosedLocked() || disp.watching {
		r.mu.Unlock()
		return
	}
	disp.watching = true
	r.o.WG.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.o.WG.Done()
		select {
		case <-gone:
		case <-r.o.Stop:
			return
		}
		if r.lose(disp, disp.d.(kind.Mortal).Death()) || r.diedUnseen(disp) {
			r.Close(disp) // what is left of it: its applications, its buses
		}
	}()
}

// watchDeaths watches every running display (those a restarted daemon
// re-attached before it served).
func (r *Registry) watchDeaths() {
	for _, disp := range r.All() {
		r.WatchDeath(disp)
	}
}

// diedUnseen reports whether disp was lost by a verb that saw it dead
// before its watcher did (so the watcher still stops what is left).
func (r *Registry) diedUnseen(disp *Display) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return disp.died
}

// DiedNow reports whether disp's server has ended — a look at a closed
// channel, no call — losing its windows first if its watcher has not yet.
// A display that is not watched dies unseen here (false).
func (r *Registry) DiedNow(disp *Display) bool {
	return r.diedWithin(disp, 0)
}

// diedWithin is DiedNow, waiting up to grace for the end to be seen.
func (r *Registry) diedWithin(disp *Display, grace time.Duration) bool {
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
	if r.lose(disp, m.Death()) {
		r.mu.Lock()
		watched := disp.watching
		r.mu.Unlock()
		if !watched {
			go r.Close(disp) // nobody else will stop what is left of it
		}
	}
	return true
}

// lose forgets disp, whose server died as death says, and its
// windows, if it is still a running display (not stopped on purpose, not
// lost already): each window's handle is remembered as lost, its holder
// told once, the loss logged and audited. It reports whether it lost it
// (once per display). The caller stops what is left of it.
func (r *Registry) lose(disp *Display, death kind.Death) bool {
	if death.At.IsZero() {
		death.At = r.o.Now()
	}
	type loss struct {
		l   Lost
		who string
	}
	var losses []loss
	r.mu.Lock()
	if r.m[disp.Key()] != disp || disp.died {
		r.mu.Unlock()
		return false
	}
	disp.died = true
	delete(r.m, disp.Key())
	for _, g := range r.host.DropLocked(disp) {
		l := Lost{ID: g.ID, Title: g.Title, At: death.At.UTC(), Display: death.Display, How: death.How}
		r.lost.add(l)
		losses = append(losses, loss{l: l, who: g.Origin})
	}
	r.mu.Unlock()
	sort.Slice(losses, func(i, j int) bool { return losses[i].l.ID.Number() < losses[j].l.ID.Number() })
	ids := make([]string, len(losses))
	for i, ls := range losses {
		ids[i] = string(ls.l.ID)
	}
	r.o.Logger.Warn("a display died; its windows are lost", "display", disp.name, "session", disp.session, "died", death.Display+" — "+death.How, "at", death.At.UTC().Format(time.RFC3339), "lost", ids)
	r.host.Record(lease.Entry{Session: "daemon (display died)", For: disp.session, Verb: "display-died", With: death.Display + " — " + death.How, OK: false})
	for _, ls := range losses {
		who := ls.who
		if h := r.host.Release(ls.l.ID); h != "" {
			who = h
		}
		r.host.Record(lease.Entry{Session: "daemon (display died)", For: who, Target: ls.l.ID, Verb: "lost", With: ls.l.why(), OK: false, Code: target.CodeWindowGone})
		text := ls.l.Words()
		if ls.l.Title != "" {
			text += fmt.Sprintf(" (%q; its application went with it)", ls.l.Title)
		}
		if who != "" {
			r.host.Owe(notice.Notice{Session: who, Target: ls.l.ID, Text: text, At: ls.l.At})
		}
	}
	r.host.Persist()
	return true
}

// LostRecord is what state.json keeps of the lost handles (under LostKey).
func (r *Registry) LostRecord() json.RawMessage {
	r.lost.mu.Lock()
	defer r.lost.mu.Unlock()
	if len(r.lost.m) == 0 {
		return nil
	}
	ls := make([]Lost, 0, len(r.lost.m))
	for _, l := range r.lost.m {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].ID.Number() < ls[j].ID.Number() })
	b, _ := json.Marshal(ls)
	return b
}

// RestoreLost takes back the lost handles an earlier daemon remembered.
func (r *Registry) RestoreLost(raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var ls []Lost
	if err := json.Unmarshal(raw, &ls); err != nil {
		r.o.Logger.Warn("the lost windows' record is unreadable; their handles will be unknown", "err", err)
		return
	}
	for _, l := range ls {
		if l.ID != "" {
			r.lost.add(l)
		}
	}
}

// LostRead is the refusal of a read of the window id on disp that failed
// (err) because disp died (seen now, or within deathGrace after a failed
// call), or nil; gone is the code of a gone target of id's kind. A target
// on no display (disp nil) is never lost with one.
func (r *Registry) LostRead(disp *Display, id target.ID, gone target.Code, err error) error {
	if disp == nil {
		return nil
	}
	grace := time.Duration(0)
	if err != nil {
		if c := target.CodeOf(err); c == "" || c == target.CodeInternal {
			grace = deathGrace
		}
	}
	if !r.diedWithin(disp, grace) {
		return nil
	}
	if l, ok := r.lost.get(id); ok {
		return l.refusal(false)
	}
	return target.Refuse(gone, "%s is gone: its display died", id).With("target", string(id))
}
