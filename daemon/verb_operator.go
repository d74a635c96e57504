package daemon

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// The operator's words — takeover, handback, watch (the stage
// daemon/watching's) — are a person's, not an agent's: they take any kind
// of target, from either command line or the live view. Who may do what
// (the manual says the same):
//
//   - takeover: a session takes over only a target it sees (the one it
//     opened, or one shared with it); the live view's page — the person
//     holding the viewer token — takes over any target it shows. While
//     another user drives, a takeover is refused taken_over; --force
//     replaces them: the answer names whom, and they are told once, on
//     their next takeover or handback of it. The session holding the
//     target's lease never replaces a takeover made from another session.
//   - handback: a session hands back only a target it sees, and only the
//     user who took over does (--as names them); --force lifts that last
//     rule. The session holding the lease — the paused agent — never hands
//     back a takeover made from another session, even with --force.
//
// Every audit row of takeover and handback records the session, the user
// (--as), force, and whom a forced takeover replaced.

// liveViewSession is the session the live view's page acts as.
const liveViewSession = "live view"

// operatorKey marks the context of the live view's own takeover and
// handback: the person at the page is the operator, who sees every target.
// It is set only inside the daemon (never from the wire).
type operatorKey struct{}

func asOperator(ctx context.Context) context.Context {
	return context.WithValue(ctx, operatorKey{}, true)
}

func isOperator(ctx context.Context) bool {
	op, _ := ctx.Value(operatorKey{}).(bool)
	return op
}

// seeable finds the target of the operator verb c for its session: a
// target the session does not see is not_exposed, as for every other verb
// (the live view sees every target). It reads nothing from the backend: a
// takeover never waits on the application it stops.
func (d *Daemon) seeable(ctx context.Context, c *call) (*entry, error) {
	e, err := d.find(c.Req.Target)
	if err != nil || isOperator(ctx) {
		return e, err
	}
	d.mu.Lock()
	err = e.rec.CheckExposed(c.Req.Session)
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// operatorTarget is what takeover and handback begin with: the user asked
// as (recorded for the audit with force), the target the session sees
// (c.e), and the note owed to that user (a forced takeover replaced them),
// told once.
func (d *Daemon) operatorTarget(ctx context.Context, c *call) (e *entry, user, note string, err error) {
	user = userOf(c.Args.(args.Operator))
	c.Fact.User, c.Fact.Force = user, c.Args.(args.Operator).Force
	if c.Req.Target == "" {
		return nil, user, "", target.Refuse(target.CodeBadRequest, "%s needs a target handle", c.Req.Verb)
	}
	if e, err = d.seeable(ctx, c); err != nil {
		return nil, user, "", err
	}
	c.e = e
	if r := d.leases.Tell(e.id, user); r != nil {
		note = r.Message()
	}
	return e, user, note, nil
}

// pausedAgent reports whether c comes from the session holding the lease
// l — the paused agent — about a takeover made from another session (the
// live view is never the paused agent).
func pausedAgent(ctx context.Context, c *call, l lease.Lease) bool {
	return !isOperator(ctx) && c.Req.Session == l.Holder && l.UserSession != l.Holder
}

// userOf is the user an operator verb is asked as: --as, "user" by default.
func userOf(a args.Operator) string {
	if a.User == "" {
		return "user"
	}
	return a.User
}

// takeover gives the target's input to the user: verbs in flight on it are
// cancelled, the keys and buttons held are released, and agent verbs are
// refused window_paused (browser_paused) until the handback. It does not
// need the lease.
func (d *Daemon) takeover(ctx context.Context, c *call) Response {
	e, user, note, err := d.operatorTarget(ctx, c)
	if err != nil {
		return d.fail(c, err)
	}
	if l := d.leases.Get(e.id); l.Input == lease.InputUser && l.User != user && pausedAgent(ctx, c, l) {
		return withNote(d.finish(c, Response{}, d.pausedHolder(e, l, "replace")), note)
	}
	l, replaced, err := d.leases.Takeover(e.id, user, c.Req.Session, c.Args.(args.Operator).Force)
	if err != nil {
		return withNote(d.finish(c, Response{}, err), note)
	}
	c.Fact.Replaced = replaced
	n := d.cancelFlight(e)
	released := d.releaseFor(ctx, e)
	d.persist()
	did := fmt.Sprintf("%s drives %s now; %d agent verb(s) in flight on it were cancelled%s", user, e.id, n, released)
	if replaced != "" {
		did = fmt.Sprintf("%s drives %s now, in place of %s (forced: %s is told on their next takeover or handback of it); %d agent verb(s) in flight on it were cancelled%s",
			user, e.id, replaced, replaced, n, released)
	}
	resp := Response{Did: did, Note: note}
	if replaced != "" {
		resp.Facts = map[string]any{"replaced": replaced, "user_since": l.UserSince.UTC().Format(time.RFC3339)}
	}
	return d.finish(c, resp, nil)
}

// withNote tells, in resp, the note owed to the user who asked (a refusal
// is the answer they read too).
func withNote(resp Response, note string) Response {
	if note != "" {
		resp.Note = note
	}
	return resp
}

// pausedHolder refuses the session holding e's lease — the paused agent —
// the handback or replacement of a takeover made from another session.
func (d *Daemon) pausedHolder(e *entry, l lease.Lease, act string) error {
	since := l.UserSince.UTC().Format(time.RFC3339)
	return target.Refuse(e.words().Paused,
		"%s took over %s at %s; the session holding its lease (%s) cannot %s that takeover, not even with --force: %s, or the live view, hands it back",
		l.User, e.id, since, l.Holder, act, l.User).With("user", l.User).With("user_since", since).With("holder", l.Holder).With("target", string(e.id))
}

// releaseWait bounds how long a takeover waits for the cancelled input of
// its own target to end before releasing what is held.
const releaseWait = 5 * time.Second

// releaseFor releases every key and button e's input road holds, and says
// what it did, for the takeover's answer. On a display, releasing is
// display-wide by nature (one keyboard), so it is done only when no other
// target's input is in flight there: input is injected one sequence at a
// time, so while another window's sequence runs nothing is held for this
// one, and that sequence is left alone. (e's own input was just cancelled
// and releases what it held as it stops.)
func (d *Daemon) releaseFor(ctx context.Context, e *entry) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
	defer cancel()
	disp := e.disp
	if disp == nil {
		if err := e.t.ReleaseAll(ctx); err != nil {
			return "; releasing what its input held failed: " + err.Error()
		}
		return "; its input holds nothing between events, and released what it held as it stopped"
	}
	for {
		if release, ok := disp.TryInjecting(); ok {
			err := e.t.ReleaseAll(ctx)
			release()
			if err != nil {
				return "; releasing the keys and buttons held failed: " + err.Error()
			}
			return "; every key and button held on the display was released"
		}
		if owner := disp.InjectOwner(); owner != "" && owner != e.id {
			return fmt.Sprintf("; input to %s was in flight and left alone (input goes one sequence at a time, so nothing was held for %s)", owner, e.id)
		}
		select {
		case <-ctx.Done():
			return "; the cancelled input did not stop in time, so the keys held were not released"
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// handback returns input to the agents; the holder is told once. Only the
// user who took over hands back (args.Operator's User names them, "user" by
// default), unless forced (its Force), and never the session that
// holds the agent lease — the paused agent itself — when the takeover was
// made from another session, forced or not. A user a forced takeover
// replaced is told so here, once.
func (d *Daemon) handback(ctx context.Context, c *call) Response {
	force := c.Args.(args.Operator).Force
	e, user, note, err := d.operatorTarget(ctx, c)
	if err != nil {
		return d.fail(c, err)
	}
	l := d.leases.Get(e.id)
	if l.Input == lease.InputUser {
		since := l.UserSince.UTC().Format(time.RFC3339)
		paused := e.words().Paused
		switch {
		case pausedAgent(ctx, c, l):
			return withNote(d.finish(c, Response{}, d.pausedHolder(e, l, "hand back")), note)
		case !force && user != l.User:
			return withNote(d.finish(c, Response{}, target.Refuse(paused,
				"%s was taken over by %s at %s, not by %s; only %s hands it back (or, with --force, a session that sees it other than its holder's)",
				e.id, l.User, since, user, l.User).With("user", l.User).With("user_since", since).With("target", string(e.id))), note)
		}
	}
	_, ok := d.leases.Handback(e.id)
	did := "it was not taken over; nothing changed"
	if ok {
		d.mu.Lock()
		rec := e.rec
		d.mu.Unlock()
		d.cfg.Desktop.Resumed(rec) // on the user's desktop, the person's quiet time ends
		d.persist()
		did = "handed back to the agents; its holder will be told once"
		if user != l.User {
			did = fmt.Sprintf("handed back to the agents (forced: %s had taken over at %s); its holder will be told once", l.User, l.UserSince.UTC().Format(time.RFC3339))
		}
	}
	return d.finish(c, Response{Did: did, Note: note}, nil)
}

// liveState says in words what the live view is doing, for status and
// doctor. It never includes the token.
func (d *Daemon) liveState() (string, bool) {
	if d.live == nil {
		return "none: this daemon was started without a live view", false
	}
	return d.live.State()
}
