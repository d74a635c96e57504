package pool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Remote is one desktop of another host's daemon's own pool, reached by
// the program's road there (cmd/vibespace-daemon wires OpenSSH): this
// pool stays the one queue, and a remote member is lent by borrowing it
// on that host's daemon with the borrower's own session name, so the
// agent's later calls to that host are the borrower's there. That daemon
// starts, isolates and wipes the desktop.
type Remote interface {
	// Host names the host in answers: ssh://user@host[:port].
	Host() string
	// Borrow borrows a desktop of the host's pool for session, not
	// waiting there, and answers its name there (desk1…). A refusal of
	// that daemon is a *target.Refusal; a road that did not reach it is
	// one too (host_unreachable, no_remote_daemon).
	Borrow(ctx context.Context, session string) (there string, err error)
	// Return gives back the desktop session holds there, wiped there;
	// it answers what that daemon said of the wipe.
	Return(ctx context.Context, session string) (said string, err error)
	// Ping asks the host's daemon whether it answers.
	Ping(ctx context.Context) error
}

// remoteTimeout bounds each call on a remote member's host: ssh's
// connect bound and the bridge's greeting (the remote daemon may be
// starting), with room to answer.
const remoteTimeout = 75 * time.Second

// pingTimeout bounds a health check of a remote member's host, and
// pingEvery is how often the idle loop checks each free or unreachable
// one.
const (
	pingTimeout = 30 * time.Second
	pingEvery   = 30 * time.Second
)

// KindRemote starts a remote member's kind: "remote ssh://…".
const KindRemote = "remote "

// unreachable reports whether err says the road did not reach the host's
// daemon (rather than that daemon refusing): the member is then skipped
// by the queue until a ping reaches it again.
func unreachable(err error) bool {
	r, ok := target.AsRefusal(err)
	if !ok {
		return true
	}
	switch r.Code {
	case target.CodeHostUnreachable, target.CodeNoRemoteDaemon, target.CodeNoDaemon, target.CodeInternal:
		return true
	}
	return false
}

// lendThere borrows remote member d, just lent to session by the queue,
// on its host. A failure gives d back to the queue (marked unreachable
// when the road failed) and answers the refusal the borrow gets: the
// host's own pool_busy, else no_display, each with the reason.
func (p *Pool) lendThere(ctx context.Context, d *desk, session string) error {
	rctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	there, err := d.remote.Borrow(rctx, session)
	if err == nil {
		p.mu.Lock()
		d.there, d.down = there, ""
		p.mu.Unlock()
		return nil
	}
	if errors.Is(rctx.Err(), context.DeadlineExceeded) && !unreachable(err) {
		err = target.Refuse(target.CodeHostUnreachable, "no answer from %s within %v: %v", d.remote.Host(), remoteTimeout, err)
	}
	p.mu.Lock()
	d.holder, d.person, d.there = "", false, ""
	if unreachable(err) {
		d.down = err.Error()
	}
	p.serveLocked()
	p.mu.Unlock()
	p.audit(lease.Entry{Session: session, Verb: "pool.lend", Code: codeOf(err), Error: err.Error(), With: d.name + " on " + d.remote.Host()})
	p.logf("%s on %s could not be lent to %s: %v", d.name, d.remote.Host(), session, err)
	if r, ok := target.AsRefusal(err); ok && r.Code == target.CodePoolBusy {
		return target.Refuse(target.CodePoolBusy, "%s is a desktop on %s, and every desktop of that host's own pool is lent: %s", d.name, d.remote.Host(), r.Message).
			With("desk", d.name).With("host", d.remote.Host())
	}
	return target.Refuse(target.CodeNoDisplay, "%s is a desktop on %s, which could not be lent: %v", d.name, d.remote.Host(), err).
		With("desk", d.name).With("host", d.remote.Host()).With("reason", codeOf(err))
}

func codeOf(err error) target.Code {
	if r, ok := target.AsRefusal(err); ok {
		return r.Code
	}
	return target.CodeInternal
}

// returnThere gives back remote member d on its host for the session that
// held it last: that daemon ends its processes and wipes it. A desktop no
// longer lent there (that host's idle return or budget gave it back) is
// returned already.
func (d *desk) returnThere(ctx context.Context) (Wiped, error) {
	t0 := time.Now()
	d.p.mu.Lock()
	session, there := d.last, d.there
	d.p.mu.Unlock()
	w := Wiped{Host: d.remote.Host(), There: there}
	if session == "" {
		return w, nil
	}
	rctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	said, err := d.remote.Return(rctx, session)
	w.Took = time.Since(t0)
	if r, ok := target.AsRefusal(err); ok && r.Code == target.CodeNotAttached {
		w.Said = "it was no longer lent there (that host gave it back already)"
		err = nil
	} else {
		w.Said = said
	}
	if err != nil {
		return w, fmt.Errorf("the return on %s failed: %w", d.remote.Host(), err)
	}
	d.p.mu.Lock()
	d.last, d.there = "", ""
	d.p.mu.Unlock()
	return w, nil
}

// remoteProvider is a remote member as a display provider: it starts
// nothing here (an open on it is answered elsewhere by the stage, and the
// command lines follow it to the host); its doctor row says its host and
// whether it is reached.
type remoteProvider struct{ d *desk }

func (pr remoteProvider) Name() string { return pr.d.name }

func (pr remoteProvider) Start(context.Context) (kind.Display, error) {
	return nil, pr.d.p.elsewhere(pr.d)
}

func (pr remoteProvider) Reattach(context.Context, json.RawMessage) (kind.Display, error) {
	return nil, fmt.Errorf("%s is a desktop on %s: nothing of it runs here", pr.d.name, pr.d.remote.Host())
}

func (pr remoteProvider) Doctor(context.Context) []kind.Check {
	d := pr.d
	d.p.mu.Lock()
	state, down := "free", d.down
	switch {
	case d.down != "":
		state = "skipped by the queue: unreachable: " + d.down
	case d.broken != "":
		state = "lent to nobody: its last return there failed: " + d.broken
	case d.wiping:
		state = "being returned and wiped there"
	case d.holder != "":
		state = "lent to " + d.holder + " (" + d.there + " there)"
	}
	d.p.mu.Unlock()
	return []kind.Check{{Name: "pool desktop " + d.name, OK: down == "" && d.broken == "",
		Detail: fmt.Sprintf("%s (a desktop of the pool of %s, reached over ssh)", state, d.remote.Host())}}
}

// elsewhere is the refusal of a verb sent here for remote member d: the
// command lines (and MCP) send it again to the host, the desktop named
// as it is there.
func (p *Pool) elsewhere(d *desk) *target.Refusal {
	p.mu.Lock()
	there := d.there
	p.mu.Unlock()
	return target.Refuse(target.CodeElsewhere, "%s is a desktop on %s (%s there): send the verb there (--host %s, --on %s); the command lines do so themselves", d.name, d.remote.Host(), there, d.remote.Host(), there).
		With("host", d.remote.Host()).With("display", there).With("desk", d.name)
}

// checkRemotes pings each remote member that is free or unreachable: one
// that answers is back in the queue, one that does not is skipped with
// its reason (doctor, status). Each ping is bounded.
func (p *Pool) checkRemotes(ctx context.Context) {
	p.mu.Lock()
	var ds []*desk
	for _, d := range p.desks {
		if d.remote != nil && d.holder == "" && !d.wiping {
			ds = append(ds, d)
		}
	}
	p.mu.Unlock()
	for _, d := range ds {
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := d.remote.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		was := d.down
		if err != nil {
			d.down = err.Error()
		} else {
			d.down = ""
			p.serveLocked()
		}
		p.mu.Unlock()
		if (err != nil) != (was != "") {
			p.logf("%s on %s: reachable %v (%v)", d.name, d.remote.Host(), err == nil, err)
		}
	}
}

// remoteLoop checks the remote members at once and every pingEvery until
// ctx ends.
func (p *Pool) remoteLoop(ctx context.Context) {
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		p.checkRemotes(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// downLocked lists why each remote member of kind k is skipped; all is
// whether every desktop of kind k is.
func (p *Pool) downLocked(k string) (why []string, all bool) {
	all = true
	for _, d := range p.desks {
		if k != "" && d.kind != k {
			continue
		}
		if d.down == "" {
			all = false
			continue
		}
		why = append(why, fmt.Sprintf("%s on %s is unreachable: %s", d.name, d.remote.Host(), d.down))
	}
	return why, all
}

// remoteDesk is remote member name, nil when name is none.
func (p *Pool) remoteDesk(name string) *desk {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.desks {
		if d.name == name && d.remote != nil {
			return d
		}
	}
	return nil
}
