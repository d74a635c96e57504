package handoff

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name is the hand-off's stage's name.
const Name = "handoff"

// Host is what the stage needs of the core: its verb path, for the
// snapshots the answer's diff is made of (the core's snapshot and
// snapshot --diff, as the asking session).
type Host interface {
	Handle(ctx context.Context, req wire.Request) wire.Response
}

// Stage answers handoff and browser.handoff, and watches takeovers and
// handbacks finish.
type Stage struct {
	d    *Desk
	host Host
}

// Registration is the hand-off's stage for cmd/vibespace-daemon/stages,
// on desk d (the one the live view shows); a nil d is a desk of its own,
// which no live view shows (a person still takes over and hands back with
// the command lines' takeover and handback).
func Registration(d *Desk) stage.Registration {
	return stage.Registration{Name: Name, New: func(env stage.Env) (stage.Stage, error) {
		if d == nil {
			d = New()
		}
		h, _ := env.Hands.(Host)
		d.mu.Lock()
		d.record = env.Record
		if env.Now != nil {
			d.now = env.Now
		}
		d.mu.Unlock()
		return &Stage{d: d, host: h}, nil
	}}
}

func (s *Stage) Name() string { return Name }

// Verbs are the hand-off's words, both command lines'.
func (s *Stage) Verbs() []string { return []string{"handoff", "browser.handoff"} }

// Answer asks a person for the target reached and waits: a handback is an
// answer that says so, after how long, and what changed (the diff of the
// target since the ask); a decline is refused handoff_declined, the bound
// passed handoff_timeout.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	a, _ := c.Args.(args.Handoff)
	wait, err := a.WaitFor()
	if err != nil {
		return wire.Response{}, err
	}
	id := c.ID()
	if id == "" {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s needs a target", c.Req.Verb)
	}
	// The verb's own deadline bounds the wait: the answer comes before it.
	if dl, ok := ctx.Deadline(); ok {
		left := max(time.Until(dl)-5*time.Second, time.Second)
		if wait == 0 || wait > left {
			wait = left
		}
	}
	// The tree as it is now: the session's last snapshot, what --diff is
	// against when the person is done.
	snap := s.snapshot(ctx, c, id, false)
	o, err := s.d.Ask(ctx, c.Req.Session, id, strings.TrimSpace(a.Reason), wait)
	if err != nil {
		return wire.Response{}, err
	}
	facts := map[string]any{"outcome": o.Word, "after_ms": o.After.Milliseconds(), "target": string(id)}
	if o.User != "" {
		facts["user"] = o.User
	}
	switch o.Word {
	case Declined:
		return wire.Response{}, refuse(target.CodeHandoffDeclined, o, facts)
	case Timeout:
		return wire.Response{}, refuse(target.CodeHandoffTimeout, o, facts)
	case Cancelled:
		return wire.Response{}, ctx.Err()
	}
	resp := wire.Response{Facts: facts}
	did := o.Words()
	if snap.OK {
		diff := s.snapshot(ctx, c, id, true)
		switch {
		case !diff.OK:
			did += fmt.Sprintf("; what changed is unknown: its snapshot was refused %s (%s)", diff.Code, diff.Message)
		case diff.Diff != nil:
			facts["changed"], facts["added"], facts["removed"] = len(diff.Diff.Changes), diff.Diff.Added, diff.Diff.Removed
			did += fmt.Sprintf("; since the hand-off: %d changed, %d added, %d removed", len(diff.Diff.Changes), diff.Diff.Added, diff.Diff.Removed)
			if c.Req.JSON {
				resp.Diff = diff.Diff
			} else {
				resp.Text = diff.Diff.Text()
			}
		}
	} else {
		did += fmt.Sprintf("; what changed is unknown: its snapshot before the hand-off was refused %s (%s)", snap.Code, snap.Message)
	}
	resp.Did = did
	return resp, nil
}

// refuse is the refusal of a hand-off that did not come back.
func refuse(code target.Code, o Outcome, facts map[string]any) error {
	r := target.Refuse(code, "%s", o.Words())
	for k, v := range facts {
		r = r.With(k, v)
	}
	if o.Driving {
		r = r.With("driving", true)
	}
	return r
}

// snapshot reads the target's tree through the core's verb path, as the
// asking session: whole (the baseline) or --diff (what changed since).
func (s *Stage) snapshot(ctx context.Context, c *stage.Call, id target.ID, diff bool) wire.Response {
	if s.host == nil {
		return wire.Response{Code: target.CodeInternal, Message: "this daemon lends the hand-off no verb path"}
	}
	v := "snapshot"
	if f, _ := verb.Of(c.Req.Verb); f.Browser() {
		v = verb.BrowserPrefix + v
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout)
	defer cancel()
	req := args.Request(v, string(id), args.Snapshot{Observe: args.Observe{Diff: diff}})
	req.Session, req.Profile, req.JSON = c.Req.Session, c.Req.Profile, true
	return s.host.Handle(ctx, req)
}

// snapshotTimeout bounds each of the two snapshots of a hand-off.
const snapshotTimeout = 20 * time.Second

// Finish watches the person: a takeover of an asked target marks who took
// it, its handback ends the ask.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	if !a.OK() || (c.Req.Verb != "takeover" && c.Req.Verb != "handback") {
		return
	}
	id, err := target.ParseID(c.Req.Target)
	if err != nil {
		return
	}
	user := c.Fact.User
	if c.Req.Verb == "takeover" {
		s.d.taken(id, user)
		return
	}
	s.d.handedBack(id, user)
}
