package atspi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// An application tells what changes in its tree by object events, signals
// on the accessibility bus (interface org.a11y.atspi.Event.Object): a
// text that changed (TextChanged: "insert" or "delete", the offset, the
// length, the text), a property (PropertyChange: "accessible-name",
// "accessible-value", …, the new value), children added or removed
// (ChildrenChanged: "add" or "remove", the index, the child), a state
// (StateChanged: "focused", on or off). Toolkits send only the events some
// listener asked the registry for (Registry.RegisterEvent), so the Bus
// asks for these once (WatchChanges) and keeps what arrives in a log of
// its own, numbered, that a verb reads from a mark (ChangeMark,
// ChangesSince) and waits on (WaitChanges): one subscription per bus, no
// call per verb.

// eventIface is the interface of the object events.
const eventIface = "org.a11y.atspi.Event.Object"

// watchedEvents are the events the Bus asks the registry for.
var watchedEvents = []string{
	"object:text-changed",
	"object:property-change:accessible-name",
	"object:property-change:accessible-value",
	"object:children-changed",
	"object:state-changed:focused",
	"object:state-changed:checked",
}

// Event is one object event an application sent.
type Event struct {
	Seq    uint64 // its number in the Bus's log, from 1
	Object        // the object it is about: the sender's bus name, the path
	// Kind is its member's word and its detail: "text-changed:insert",
	// "property-change:accessible-name", "children-changed:add",
	// "state-changed:focused".
	Kind string
	// Detail1 and Detail2 are its numbers: a text change's offset and
	// length, a child's index, a state's 1 (on) or 0 (off).
	Detail1, Detail2 int32
	// Data is its text: the text inserted or deleted, a property's new
	// value (a name); "" for the others.
	Data string
	// Child is the child a children-changed event added or removed.
	Child Object
}

// logSize is how many events the Bus keeps: a verb reads the few its act
// caused, and an application that floods the bus costs a bounded log.
const logSize = 512

// changeLog is the Bus's log of object events.
type changeLog struct {
	mu     sync.Mutex
	on     bool // subscribed, and the registry asked for every event
	seq    uint64
	events []Event       // the last logSize, oldest first
	bell   chan struct{} // closed (and replaced) at each event
	stop   func()
	// in is the channel the bus delivers the signals to; a fence is put
	// in it behind them (Fence).
	in chan *dbus.Signal
}

// fenceName marks a fence in the log's channel: not a signal the bus
// delivered, but a Fence's, whose Body[0] is the channel to close once
// every signal before it is logged.
const fenceName = "\x00fence"

// WatchChanges subscribes the Bus to the object events (watchedEvents):
// once per Bus it asks the bus daemon for their signals (AddMatch) and
// logs them from then on; each call asks the registry for each event
// (RegisterEvent, one call each): again after a registry that died was
// started again, which knows no listener.
func (b *Bus) WatchChanges(ctx context.Context) error {
	l := &b.changes
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop == nil {
		opts := []dbus.MatchOption{dbus.WithMatchInterface(eventIface)}
		b.counted(1)
		if err := b.conn.AddMatchSignalContext(ctx, opts...); err != nil {
			return fmt.Errorf("atspi: watch object events: %w", err)
		}
		ch := make(chan *dbus.Signal, 256)
		l.in = ch
		b.conn.Signal(ch)
		done := make(chan struct{})
		l.bell = make(chan struct{})
		l.stop = func() {
			close(done)
			b.conn.RemoveSignal(ch)
		}
		go b.logEvents(ch, done)
	}
	reg := b.conn.Object(registryName, "/org/a11y/atspi/registry")
	for _, ev := range watchedEvents {
		cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
		b.counted(1)
		err := reg.CallWithContext(cctx, registryName+".RegisterEvent", 0, ev).Err
		cancel()
		if err != nil {
			l.on = false
			return fmt.Errorf("atspi: ask the registry for %s: %w", ev, err)
		}
	}
	l.on = true
	return nil
}

// logEvents logs the object events that arrive on ch until done or the
// bus closes.
func (b *Bus) logEvents(ch chan *dbus.Signal, done chan struct{}) {
	l := &b.changes
	for {
		select {
		case <-done:
			return
		case sig, ok := <-ch:
			if !ok {
				return
			}
			if sig != nil && sig.Name == fenceName {
				close(sig.Body[0].(chan struct{}))
				continue
			}
			ev, ok := parseEvent(sig)
			if !ok {
				continue
			}
			l.mu.Lock()
			l.seq++
			ev.Seq = l.seq
			if len(l.events) == logSize {
				l.events = append(l.events[:0], l.events[1:]...)
			}
			l.events = append(l.events, ev)
			close(l.bell)
			l.bell = make(chan struct{})
			l.mu.Unlock()
		}
	}
}

// parseEvent reads one object event: its body is (kind, detail1,
// detail2, any_data, …).
func parseEvent(sig *dbus.Signal) (Event, bool) {
	if sig == nil || !strings.HasPrefix(sig.Name, eventIface+".") || len(sig.Body) < 4 {
		return Event{}, false
	}
	member := sig.Name[len(eventIface)+1:]
	detail, _ := sig.Body[0].(string)
	d1, _ := sig.Body[1].(int32)
	d2, _ := sig.Body[2].(int32)
	ev := Event{Object: Object{Name: sig.Sender, Path: sig.Path}, Kind: eventWord(member) + ":" + detail, Detail1: d1, Detail2: d2}
	if v, ok := sig.Body[3].(dbus.Variant); ok {
		switch x := v.Value().(type) {
		case string:
			ev.Data = x
		case []any: // a reference (so): the child
			if len(x) == 2 {
				name, _ := x[0].(string)
				path, _ := x[1].(dbus.ObjectPath)
				ev.Child = Object{Name: name, Path: path}
			}
		}
	}
	return ev, true
}

// eventWord is a member's word as AT-SPI's event names spell it:
// "TextChanged" → "text-changed".
func eventWord(member string) string {
	var s strings.Builder
	for i, r := range member {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				s.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		s.WriteRune(r)
	}
	return s.String()
}

// ChangeMark is the number of the last event logged: ChangesSince and
// WaitChanges with it see what comes after.
func (b *Bus) ChangeMark() uint64 {
	l := &b.changes
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// ChangesSince is the events application app (its bus name) sent after
// mark, oldest first, and whether the log still holds all of them (false:
// some were dropped to keep it bounded).
func (b *Bus) ChangesSince(mark uint64, app string) (evs []Event, whole bool) {
	l := &b.changes
	l.mu.Lock()
	defer l.mu.Unlock()
	whole = len(l.events) == 0 || l.events[0].Seq <= mark+1
	for _, ev := range l.events {
		if ev.Seq > mark && ev.Name == app {
			evs = append(evs, ev)
		}
	}
	return evs, whole
}

// WaitChanges waits until application app sent an event after mark, or d
// passed, or ctx ended, and reports whether it did. A Bus that does not
// watch the events (WatchChanges failed, or was never asked) waits for
// nothing: it answers false at once.
func (b *Bus) WaitChanges(ctx context.Context, mark uint64, app string, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		l := &b.changes
		l.mu.Lock()
		on, bell := l.on, l.bell
		l.mu.Unlock()
		if !on {
			return false
		}
		if evs, _ := b.ChangesSince(mark, app); len(evs) > 0 {
			return true
		}
		select {
		case <-bell:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// Fence makes sure that every event application app (its bus name) sent
// before now is in the log: it asks the application a round trip over
// the bus that carries its events (Peer.Ping, answered after what it sent
// before, in order), then waits until what the bus delivered before the
// answer is logged. One call. A Bus that does not watch the events has
// nothing to fence: it answers at once.
func (b *Bus) Fence(ctx context.Context, app string) error {
	l := &b.changes
	l.mu.Lock()
	on, in := l.on, l.in
	l.mu.Unlock()
	if !on || in == nil {
		return nil
	}
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	b.counted(1)
	if err := b.conn.Object(app, "/").CallWithContext(cctx, "org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		return fmt.Errorf("atspi: fence the events of %s: %w", app, err)
	}
	done := make(chan struct{})
	select {
	case in <- &dbus.Signal{Name: fenceName, Body: []any{done}}:
	case <-cctx.Done():
		return fmt.Errorf("atspi: fence the events of %s: %w", app, cctx.Err())
	}
	select {
	case <-done:
		return nil
	case <-cctx.Done():
		return fmt.Errorf("atspi: fence the events of %s: %w", app, cctx.Err())
	}
}

// Watching reports whether the Bus logs the object events.
func (b *Bus) Watching() bool {
	l := &b.changes
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.on
}
