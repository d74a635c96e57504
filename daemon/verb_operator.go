package daemon

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// The operator's words — takeover, handback, watch — are a person's, not an
// agent's: they take any kind of target, from either command line or the
// live view.

// takeover gives the target's input to the user: verbs in flight on it are
// cancelled, the keys and buttons held are released, and agent verbs are
// refused window_paused (browser_paused) until the handback. It does not
// need the lease.
func (d *Daemon) takeover(ctx context.Context, c *call) Response {
	e, err := d.find(c.req.Target)
	if err != nil {
		return d.fail(c, err)
	}
	c.e = e
	user := c.req.User
	if user == "" {
		user = "user"
	}
	d.leases.Takeover(e.id, user)
	d.mu.Lock()
	n := len(e.flight)
	for _, cancel := range e.flight {
		cancel()
	}
	d.mu.Unlock()
	released := d.releaseFor(ctx, e)
	d.persist()
	did := fmt.Sprintf("%s drives %s now; %d agent verb(s) in flight on it were cancelled%s", user, e.id, n, released)
	return d.finish(c, Response{Did: did}, nil)
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
		select {
		case disp.inject <- struct{}{}:
			err := e.t.ReleaseAll(ctx)
			<-disp.inject
			if err != nil {
				return "; releasing the keys and buttons held failed: " + err.Error()
			}
			return "; every key and button held on the display was released"
		default:
		}
		d.mu.Lock()
		owner := disp.injectOwner
		d.mu.Unlock()
		if owner != nil && owner != e {
			return fmt.Sprintf("; input to %s was in flight and left alone (input goes one sequence at a time, so nothing was held for %s)", owner.id, e.id)
		}
		select {
		case <-ctx.Done():
			return "; the cancelled input did not stop in time, so the keys held were not released"
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// handback returns input to the agents; the holder is told once. Only the
// user who took over hands back (Request.User names them, "user" by
// default), and never the session that holds the agent lease — the paused
// agent itself — unless the operator forces it (Request.Force).
func (d *Daemon) handback(ctx context.Context, c *call) Response {
	e, err := d.find(c.req.Target)
	if err != nil {
		return d.fail(c, err)
	}
	c.e = e
	req := c.req
	l := d.leases.Get(e.id)
	if l.Input == lease.InputUser && !req.Force {
		user := req.User
		if user == "" {
			user = "user"
		}
		since := l.UserSince.UTC().Format(time.RFC3339)
		paused := e.words().Paused
		switch {
		case req.Session == l.Holder:
			return d.fail(c, target.Refuse(paused,
				"%s took over %s at %s; the session holding its lease (%s) cannot hand it back; %s, who took over, does (or the operator, with --force)",
				l.User, e.id, since, l.Holder, l.User).With("user", l.User).With("user_since", since).With("holder", l.Holder))
		case user != l.User:
			return d.fail(c, target.Refuse(paused,
				"%s was taken over by %s at %s, not by %s; only %s hands it back (or the operator, with --force)",
				e.id, l.User, since, user, l.User).With("user", l.User).With("user_since", since))
		}
	}
	_, ok := d.leases.Handback(e.id)
	did := "it was not taken over; nothing changed"
	if ok {
		d.persist()
		did = "handed back to the agents; its holder will be told once"
	}
	return d.finish(c, Response{Did: did}, nil)
}

// watch answers the viewer page's address: the overview, or one target's
// pane (Request.Target). It starts the live view on first use.
func (d *Daemon) watch(ctx context.Context, c *call) Response {
	req := c.req
	if req.Target != "" {
		e, err := d.lookup(ctx, req)
		if err != nil {
			return d.fail(c, err)
		}
		c.e = e
	}
	if d.live == nil {
		return d.fail(c, target.Refuse(target.CodeLiveViewUnavailable, "this daemon has no live view (it was started without one)"))
	}
	base, err := d.live.Address()
	if err != nil {
		return d.fail(c, err)
	}
	u := base
	did := "the live view of every target of this host"
	if req.Target != "" {
		u += "&target=" + url.QueryEscape(req.Target)
		did = "the live view of " + req.Target
	}
	return d.finish(c, Response{URL: u, Did: did + " is at this address (it carries the viewer's own token; open it in a browser)"}, nil)
}

// liveState says in words what the live view is doing, for status and
// doctor. It never includes the token.
func (d *Daemon) liveState() (string, bool) {
	if d.live == nil {
		return "none: this daemon was started without a live view", false
	}
	return d.live.State()
}
