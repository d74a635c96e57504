package native

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// A window of our own displays tells what changed in it by its
// application's AT-SPI object events, which the display's Bus logs from
// the moment it connects (atspi.Bus.WatchChanges): no call per verb. (A
// window of the person's own desktop tells none: it is looked at.) A change names its node as
// the window's last snapshot did (its ref, role and name), and says its
// old name or text where that snapshot, or an event since, said it. A
// node added or removed, the focus, a check are told only of the nodes
// that snapshot held: the application's root gaining a window (a dialog)
// is another target's coming, which the verifier sees as such.

var _ kind.ChangeTeller = (*window)(nil)

// A window's application tells no pending work the way a page does, but
// its process does (idle.go): after an act, an application that ran
// nothing for quietFor and sleeps in its event loop with no timer due
// within pendingHorizon will send no event the act caused (once those it
// sent are in, Fence): the wait ends, quiet. One that has a timer due or
// runs still at the wait's deadline may have work the act started (a
// timer of its own, a job), and the wait goes on, pending, up to the
// verifier's late bound. (A timer it ticked before the act too — a cursor
// that blinks, an animation — cannot be told from one the act started:
// a no-change act there waits the late bound; a change still ends the
// wait at once.)
const (
	quietStep      = 25 * time.Millisecond
	quietFor       = 2 * quietStep
	pendingHorizon = 1500 * time.Millisecond // the verifier's LateWait
)

// settle waits up to d for the application's first event after since, or
// for it to be quiet; at d it says whether work the act started is still
// pending. An application whose idleness /proc does not tell is waited on
// to d, as before.
func (w *window) settle(ctx context.Context, b *atspi.Bus, since uint64, app string, d time.Duration) (quiet, pending bool) {
	deadline := time.Now().Add(d)
	server := w.d.host.serverPID()
	prev, ok := readIdleness(w.pid)
	xprev, xok := readIdleness(server)
	if !ok {
		b.WaitChanges(ctx, since-1, app, d)
		return false, false
	}
	var still time.Duration
	ran := false
	for {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		step := min(quietStep, left)
		if b.WaitChanges(ctx, since-1, app, step) {
			return false, false // told: the caller reads what
		}
		now, ok := readIdleness(w.pid)
		if !ok {
			b.WaitChanges(ctx, since-1, app, time.Until(deadline))
			return false, false
		}
		ran = now.cpu != prev.cpu || !now.asleep(pendingHorizon)
		// The X server's idleness, where it is ours to read: without it
		// the application's alone never says quiet (a request of its
		// may wait in the server, whose answer wakes it again).
		xnow, xnowOK := readIdleness(server)
		xstill := xok && xnowOK && xnow.cpu == xprev.cpu && xnow.asleep(pendingHorizon) && xprev.asleep(pendingHorizon)
		if !ran && prev.asleep(pendingHorizon) && xstill {
			still += step
		} else {
			still = 0
		}
		prev, xprev, xok = now, xnow, xnowOK
		if still >= quietFor {
			if b.Fence(ctx, app) != nil {
				continue // it did not answer: no word of quiet
			}
			if evs, _ := b.ChangesSince(since-1, app); len(evs) > 0 {
				return false, false
			}
			return true, false
		}
	}
	return false, w.started(since, ran)
}

// started says whether the application's work or timer (busy) may be
// what the act it marked at since started.
func (w *window) started(since uint64, busy bool) bool {
	w.mu.Lock()
	was := w.before
	w.mu.Unlock()
	return busy && was != 0 && since >= was
}

// timerDue reads the application's idleness once and says whether a
// timer of it is due within pendingHorizon and may be what the act marked
// at since started (false where /proc does not tell).
func (w *window) timerDue(since uint64) bool {
	s, ok := readIdleness(w.pid)
	return ok && w.started(since, s.timer > 0 && s.timer <= pendingHorizon)
}

// known is what a window knows of its nodes: the last snapshot's, by key,
// and each name and text an event told since (by key).
type known struct {
	nodes map[string]*target.Node
	names map[string]string
	texts map[string][]rune
}

// remember keeps snap's nodes as what the window knows of them.
func (w *window) remember(snap *target.Snapshot) {
	k := known{nodes: map[string]*target.Node{}, names: map[string]string{}, texts: map[string][]rune{}}
	snap.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Key != "" {
			k.nodes[n.Key] = n
			k.names[n.Key] = n.Name
			if n.Text != "" || n.TextLen == 0 {
				if r := []rune(n.Text); len(r) == n.TextLen {
					k.texts[n.Key] = r
				}
			}
		}
		return true
	})
	w.mu.Lock()
	w.known = k
	w.mu.Unlock()
}

// Changes tells what the window's application changed after mark (since
// 0: marks now), waiting up to d for the first change of the window's own.
func (w *window) Changes(ctx context.Context, since uint64, d time.Duration) (kind.Changes, error) {
	b := w.d.bus
	if b == nil || !b.Watching() {
		return kind.Changes{}, errors.New("the accessibility bus's object events are not watched")
	}
	if since == 0 {
		mark := b.ChangeMark() + 1
		w.mu.Lock()
		w.before = mark
		w.mu.Unlock()
		return kind.Changes{Mark: mark, Free: true}, nil
	}
	f, err := w.frame(ctx)
	if err != nil {
		return kind.Changes{}, err
	}
	deadline := time.Now().Add(d)
	out := kind.Changes{Mark: since, Free: true}
	if d <= 0 {
		// Asked without waiting: one reading says whether a timer is due
		// soon (not that it is quiet; and one caught running may be
		// answering the look that just asked it).
		out.Pending = w.timerDue(since)
	}
	for {
		if left := time.Until(deadline); left > 0 {
			out.Quiet, out.Pending = w.settle(ctx, b, out.Mark, f.Name, left)
		}
		evs, _ := b.ChangesSince(out.Mark-1, f.Name)
		if len(evs) > 0 {
			out.Mark = evs[len(evs)-1].Seq + 1
		}
		out.Seen = w.tell(evs)
		if len(out.Seen) == 0 && len(evs) > 0 && !out.Quiet && !out.Pending && !time.Now().Before(deadline) {
			// The wait ran out on events that tell nothing (settle
			// returned at them, saying nothing of pending work): one
			// reading says whether a timer is due, as a question
			// without a wait does.
			out.Pending = w.timerDue(since)
		}
		// Events that tell nothing of this window (of a node it does not
		// hold: the application's root gaining a dialog) end no wait:
		// wait on for a change of its own, or quiet, up to d.
		if len(out.Seen) > 0 || len(evs) == 0 || ctx.Err() != nil || !time.Now().Before(deadline) {
			return out, nil
		}
	}
}

// tell says evs as changes of nodes: one per node and what changed of it,
// from its first old value to its last new one.
func (w *window) tell(evs []atspi.Event) []kind.Change {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := &w.known
	if k.nodes == nil {
		*k = known{nodes: map[string]*target.Node{}, names: map[string]string{}, texts: map[string][]rune{}}
	}
	var out []kind.Change
	at := map[[2]string]int{} // key, what → its index in out
	put := func(key, what, from, to string, known bool) {
		if i, ok := at[[2]string{key, what}]; ok {
			out[i].To = to
			return
		}
		c := kind.Change{Key: key, What: what, From: from, To: to, Known: known}
		if n := k.nodes[key]; n != nil {
			c.Ref, c.Role, c.Name = n.Ref, n.Role, n.Name
			c.Secret = n.Role == "password text"
		}
		at[[2]string{key, what}] = len(out)
		out = append(out, c)
	}
	for _, ev := range evs {
		key := ev.Key()
		if k.nodes[key] == nil && !strings.HasPrefix(ev.Kind, "property-change:") && !strings.HasPrefix(ev.Kind, "text-changed:") {
			// A node the window's last snapshot did not hold: the
			// application's root, which gains another window (a target
			// of its own, seen as such), or one of that window's.
			continue
		}
		switch ev.Kind {
		case "property-change:accessible-name":
			old, ok := k.names[key]
			k.names[key] = ev.Data
			if !ok || old != ev.Data {
				put(key, "name", old, ev.Data, ok)
			}
		case "property-change:accessible-value":
			put(key, "value", "", "", false)
		case "text-changed:insert", "text-changed:delete":
			old, ok := k.texts[key]
			var now []rune
			if ok {
				now = edit(old, ev)
				ok = now != nil
			}
			if ok {
				k.texts[key] = now
			} else {
				delete(k.texts, key)
			}
			put(key, "text", string(old), string(now), ok)
		case "children-changed:add":
			put(key, "added", "", "", false)
		case "children-changed:remove":
			put(key, "removed", "", "", false)
		case "state-changed:focused", "state-changed:checked":
			what := ev.Kind[len("state-changed:"):]
			if ev.Detail1 == 0 {
				what = "un" + what
			}
			put(key, what, "", "", false)
		}
	}
	return out
}

// edit applies a text-changed event to text: nil when it does not fit
// (the text was not what the window knew).
func edit(text []rune, ev atspi.Event) []rune {
	at, n, data := int(ev.Detail1), int(ev.Detail2), []rune(ev.Data)
	if at < 0 || at > len(text) || n != len(data) {
		return nil
	}
	if ev.Kind == "text-changed:insert" {
		return append(append(append([]rune{}, text[:at]...), data...), text[at:]...)
	}
	if at+n > len(text) || string(text[at:at+n]) != ev.Data {
		return nil
	}
	return append(append([]rune{}, text[:at]...), text[at+n:]...)
}
