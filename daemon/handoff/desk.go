// Package handoff is the hand-off of a target to a person: an agent that
// meets a part it cannot do (a login, a human check) asks, with a reason;
// the target shows "needs you" in the live view (its strip row, its pane,
// a notification the page raises) until a person takes it over and hands
// it back, declines from the page, or the bound passes. The agent's answer
// says which, after how long, and — when it came back through a person —
// what changed on the target since it asked (the core's snapshot --diff).
//
// The Desk keeps the asks and their outcomes; the Stage answers handoff
// and browser.handoff and watches every takeover and handback finish (the
// person's own, from the live view or a command line). The audit has a row
// for each ask and its end (handoff.ask, handoff.taken, handoff.back,
// handoff.declined, handoff.timeout, handoff.cancelled): who, when, how
// long — never what the person typed.
package handoff

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Person is the session of the audit rows a person's decline writes.
const Person = "live view"

// Outcome is how a hand-off ended.
type Outcome struct {
	// Word is back (a person took it over and handed it back), declined
	// (a person said no from the live view), timeout (the bound passed)
	// or cancelled (the asking call went away).
	Word  string
	User  string        // the person: who handed it back or declined ("" none)
	After time.Duration // from the ask to its end
	// Driving: at a timeout, a person had taken the target over and
	// not handed it back yet (the agent's verbs on it stay paused).
	Driving bool
}

// Outcome words.
const (
	Back      = "back"
	Declined  = "declined"
	Timeout   = "timeout"
	Cancelled = "cancelled"
)

// Desk is the open asks, at most one per target.
type Desk struct {
	mu     sync.Mutex
	asks   map[target.ID]*ask
	record func(lease.Entry) // the audit log; nil until the stage is made
	now    func() time.Time
}

type ask struct {
	wire.Ask
	done chan Outcome // one outcome, sent once
}

// New makes an empty desk.
func New() *Desk {
	return &Desk{asks: map[target.ID]*ask{}, now: time.Now}
}

// Asks are the open asks, for the live view's "needs you".
func (d *Desk) Asks() map[target.ID]wire.Ask {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[target.ID]wire.Ask, len(d.asks))
	for id, a := range d.asks {
		out[id] = a.Ask
	}
	return out
}

func (d *Desk) audit(e lease.Entry) {
	d.mu.Lock()
	rec := d.record
	d.mu.Unlock()
	if rec != nil {
		rec(e)
	}
}

// Ask marks target id "needs you" for session with reason, and waits until
// a person hands it back, declines, wait passes (the hand-off's bound) or
// ctx ends; the mark is withdrawn in every case. A second ask of a target
// already asked is refused held.
func (d *Desk) Ask(ctx context.Context, session string, id target.ID, reason string, wait time.Duration) (Outcome, error) {
	d.mu.Lock()
	if a, ok := d.asks[id]; ok {
		d.mu.Unlock()
		return Outcome{}, target.Refuse(target.CodeHeld, "%s is handed off already (by %s since %s): one hand-off of a target at a time", id, a.Session, a.Since.UTC().Format(time.RFC3339)).
			With("target", string(id)).With("session", a.Session)
	}
	a := &ask{Ask: wire.Ask{Session: session, Reason: reason, Since: d.now()}, done: make(chan Outcome, 1)}
	d.asks[id] = a
	d.mu.Unlock()
	d.audit(lease.Entry{Session: session, Target: id, Verb: "handoff.ask", OK: true, Setting: "wait " + wait.String()})

	timer := time.NewTimer(wait)
	defer timer.Stop()
	var o Outcome
	select {
	case o = <-a.done:
		return o, nil // ended (and audited) by the person
	case <-timer.C:
		o = Outcome{Word: Timeout}
	case <-ctx.Done():
		o = Outcome{Word: Cancelled}
	}
	d.mu.Lock()
	if d.asks[id] == a {
		delete(d.asks, id)
	}
	select {
	case won := <-a.done: // the person ended it just now: theirs stands
		d.mu.Unlock()
		return won, nil
	default:
	}
	o.After, o.User, o.Driving = d.now().Sub(a.Since), a.User, a.User != ""
	d.mu.Unlock()
	d.audit(lease.Entry{Session: session, Target: id, Verb: "handoff." + o.Word, OK: true, User: o.User, Setting: "after " + o.After.Round(time.Millisecond).String()})
	return o, nil
}

// end ends the ask of id with outcome word by user, if one is open.
func (d *Desk) end(id target.ID, word, user string) (wire.Ask, bool) {
	d.mu.Lock()
	a, ok := d.asks[id]
	if !ok {
		d.mu.Unlock()
		return wire.Ask{}, false
	}
	delete(d.asks, id)
	o := Outcome{Word: word, User: user, After: d.now().Sub(a.Since)}
	a.done <- o
	d.mu.Unlock()
	d.audit(lease.Entry{Session: personSession(word, a.Session), For: a.Session, Target: id, Verb: "handoff." + word, OK: true, User: user,
		Setting: "after " + o.After.Round(time.Millisecond).String()})
	return a.Ask, true
}

// personSession is the session of the row of an end a person made: the
// live view's for a decline (only the page declines), the asking
// session's for a handback (its row names the user).
func personSession(word, asker string) string {
	if word == Declined {
		return Person
	}
	return asker
}

// Decline ends the ask of id: the person (user) will not do it.
func (d *Desk) Decline(id target.ID, user string) error {
	if _, ok := d.end(id, Declined, user); !ok {
		return target.Refuse(target.CodeNotAttached, "nobody asks for help with %s now", id).With("target", string(id))
	}
	return nil
}

// taken records that user took id over while it is asked.
func (d *Desk) taken(id target.ID, user string) {
	d.mu.Lock()
	a, ok := d.asks[id]
	if ok {
		a.User = user
	}
	d.mu.Unlock()
	if ok {
		d.audit(lease.Entry{Session: a.Session, Target: id, Verb: "handoff.taken", OK: true, User: user})
	}
}

// handedBack ends the ask of id: user handed it back. A handback of a
// target nobody took over since the ask changed nothing: the ask stays.
func (d *Desk) handedBack(id target.ID, user string) {
	d.mu.Lock()
	a, ok := d.asks[id]
	taken := ok && a.User != ""
	d.mu.Unlock()
	if taken {
		d.end(id, Back, user)
	}
}

// Words says an outcome for the agent.
func (o Outcome) Words() string {
	after := o.After.Round(100 * time.Millisecond)
	switch o.Word {
	case Back:
		return fmt.Sprintf("came back through a person (%s) after %v", o.User, after)
	case Declined:
		return fmt.Sprintf("a person (%s) declined after %v", o.User, after)
	case Timeout:
		if o.Driving {
			return fmt.Sprintf("no handback within %v: %s took it over and still drives it (your verbs on it stay paused until their handback)", after, o.User)
		}
		return fmt.Sprintf("no person took it over within %v; its \"needs you\" mark is withdrawn", after)
	}
	return fmt.Sprintf("the hand-off was cancelled after %v; its \"needs you\" mark is withdrawn", after)
}
