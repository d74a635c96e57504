package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// open starts an application on our display and makes its first window a
// target, opened by and leased to the caller.
func (d *Daemon) open(ctx context.Context, req Request) Response {
	if len(req.Argv) == 0 || strings.TrimSpace(req.Argv[0]) == "" {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "open needs an application, e.g. open gtk3-widget-factory"))
	}
	disp, err := d.ensureDisplay(ctx)
	if err != nil {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, err)
	}
	w, err := disp.Launch(ctx, req.Argv)
	if _, refused := target.AsRefusal(err); err != nil && !refused && d.resetIfDead(ctx, disp) {
		if disp, err = d.ensureDisplay(ctx); err == nil {
			w, err = disp.Launch(ctx, req.Argv)
		}
	}
	if err != nil {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, err)
	}
	d.mu.Lock()
	d.next++
	id := target.WindowID(d.next)
	t := target.Target{
		ID: id, Kind: target.KindWindow, Title: w.Title, App: filepath.Base(req.Argv[0]),
		Origin: req.Session, Opened: d.cfg.Now().UTC(), PID: w.PID, XID: w.XID,
		Display: disp.Name(), Exposure: []string{req.Session},
	}
	e := newEntry(t, w)
	d.targets[id] = e
	d.mu.Unlock()
	d.leases.Acquire(id, req.Session)
	d.persist()
	did := fmt.Sprintf("opened %s (pid %d) on display %s; you hold its lease", t.App, w.PID, disp.Name())
	return d.finish(req, e, lease.Grant{}, "", Response{Did: did}, nil)
}

// closeTarget stops the application of a target the caller holds.
func (d *Daemon) closeTarget(ctx context.Context, req Request) Response {
	if id, err := target.ParseID(req.Target); err == nil && id.Kind() == target.KindTab {
		return d.closeTab(ctx, req, id)
	}
	e, g, err := d.use(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	info := d.info(e)
	disp := d.currentDisplay()
	if disp != nil {
		if err := disp.Stop(ctx, e.t.PID); err != nil {
			return d.finish(req, e, g, "", Response{}, err)
		}
	}
	d.drop(e.t.ID)
	resp := d.finish(req, nil, g, "", Response{Did: fmt.Sprintf("stopped %s (pid %d)", info.App, info.PID)}, nil)
	info.Lease, info.Holder = "gone", ""
	resp.Target = info
	return resp
}

// attach takes the lease.
func (d *Daemon) attach(ctx context.Context, req Request) Response {
	e, err := d.lookup(ctx, req)
	if err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	_, acquired, err := d.leases.Acquire(e.t.ID, req.Session)
	if err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	did := "you already held its lease"
	if acquired {
		did = "took its lease"
		d.persist()
	}
	return d.finish(req, e, lease.Grant{}, "", Response{Did: did}, nil)
}

// detach drops the lease; the application keeps running.
func (d *Daemon) detach(ctx context.Context, req Request) Response {
	e, err := d.lookup(ctx, req)
	if err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	_, released, err := d.leases.Release(e.t.ID, req.Session)
	if err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	did := "you did not hold its lease; nothing changed"
	if released {
		did = "released its lease; the application keeps running"
		d.persist()
	}
	return d.finish(req, e, lease.Grant{}, "", Response{Did: did}, nil)
}

// share exposes a target to another session. Its opener or its holder may
// share it.
func (d *Daemon) share(ctx context.Context, req Request) Response {
	e, err := d.lookup(ctx, req)
	if err != nil {
		return d.finish(req, e, lease.Grant{}, "", Response{}, err)
	}
	if req.With == "" {
		return d.finish(req, e, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "share needs --with <session>"))
	}
	l := d.leases.Get(e.t.ID)
	d.mu.Lock()
	origin := e.t.Origin
	if req.Session != origin && req.Session != l.Holder {
		d.mu.Unlock()
		return d.finish(req, e, lease.Grant{}, "", Response{}, target.Refuse(target.CodeHeld, "only its opener (%s) or its holder may share %s", origin, e.t.ID).With("origin", origin).With("holder", l.Holder))
	}
	changed := e.t.Share(req.With)
	d.mu.Unlock()
	did := fmt.Sprintf("%s was already shared with %s", e.t.ID, req.With)
	if changed {
		d.persist()
		did = fmt.Sprintf("shared %s with session %s", e.t.ID, req.With)
	}
	return d.finish(req, e, lease.Grant{}, "", Response{Did: did}, nil)
}

// takeover gives the target's input to the user: verbs in flight on it are
// cancelled, the keys and buttons held are released, and agent verbs are
// refused window_paused until the handback. It is an operator word: it does
// not need the lease.
//
// Releasing is display-wide by nature (X has one keyboard), so it is done
// only when no other target's input is in flight: input is injected one
// sequence at a time, so while another window's sequence runs, nothing is
// held for this one, and that sequence is left alone.
func (d *Daemon) takeover(ctx context.Context, req Request) Response {
	e, err := d.find(req)
	if err != nil {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, err)
	}
	user := req.User
	if user == "" {
		user = "user"
	}
	d.leases.Takeover(e.t.ID, user)
	d.mu.Lock()
	n := len(e.flight)
	for _, cancel := range e.flight {
		cancel()
	}
	disp := d.display
	d.mu.Unlock()
	released := "; the browser's input releases what it held as it stops"
	if e.t.ID.Kind() != target.KindTab {
		released = d.releaseFor(ctx, disp, e)
	}
	d.persist()
	did := fmt.Sprintf("%s drives %s now; %d agent verb(s) in flight on it were cancelled%s", user, e.t.ID, n, released)
	return d.finish(req, e, lease.Grant{}, "", Response{Did: did}, nil)
}

// releaseWait bounds how long a takeover waits for the cancelled input of
// its own target to end before releasing what is held.
const releaseWait = 5 * time.Second

// releaseFor releases every key and button held on the display once no
// injection of another target is in flight (e's own was just cancelled
// and releases what it held as it stops). It says what it did, for the
// takeover's answer.
func (d *Daemon) releaseFor(ctx context.Context, disp Display, e *entry) string {
	if disp == nil || disp.Input() == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
	defer cancel()
	for {
		select {
		case d.injectGate <- struct{}{}:
			err := disp.Input().ReleaseAll(ctx)
			<-d.injectGate
			if err != nil {
				return "; releasing the keys and buttons held failed: " + err.Error()
			}
			return "; every key and button held on the display was released"
		default:
		}
		d.mu.Lock()
		owner := d.injectOwner
		d.mu.Unlock()
		if owner != nil && owner != e {
			return fmt.Sprintf("; input to %s was in flight and left alone (input goes one sequence at a time, so nothing was held for %s)", owner.t.ID, e.t.ID)
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
func (d *Daemon) handback(ctx context.Context, req Request) Response {
	e, err := d.find(req)
	if err != nil {
		return d.finish(req, nil, lease.Grant{}, "", Response{}, err)
	}
	l := d.leases.Get(e.t.ID)
	if l.Input == lease.InputUser && !req.Force {
		user := req.User
		if user == "" {
			user = "user"
		}
		since := l.UserSince.UTC().Format(time.RFC3339)
		paused := target.CodeWindowPaused
		if e.t.ID.Kind() == target.KindTab {
			paused = target.CodeBrowserPaused
		}
		switch {
		case req.Session == l.Holder:
			return d.finish(req, e, lease.Grant{}, "", Response{}, target.Refuse(paused,
				"%s took over %s at %s; the session holding its lease (%s) cannot hand it back; %s, who took over, does (or the operator, with --force)",
				l.User, e.t.ID, since, l.Holder, l.User).With("user", l.User).With("user_since", since).With("holder", l.Holder))
		case user != l.User:
			return d.finish(req, e, lease.Grant{}, "", Response{}, target.Refuse(paused,
				"%s was taken over by %s at %s, not by %s; only %s hands it back (or the operator, with --force)",
				e.t.ID, l.User, since, user, l.User).With("user", l.User).With("user_since", since))
		}
	}
	_, ok := d.leases.Handback(e.t.ID)
	did := "it was not taken over; nothing changed"
	if ok {
		d.persist()
		did = "handed back to the agents; its holder will be told once"
	}
	return d.finish(req, e, lease.Grant{}, "", Response{Did: did}, nil)
}

// find looks a target up by handle without the exposure check (operator
// words) or a refresh.
func (d *Daemon) find(req Request) (*entry, error) {
	id, err := target.ParseID(req.Target)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.targets[id]
	if !ok {
		return nil, target.Refuse(target.CodeUnknownTarget, "there is no target %s", id).With("target", string(id))
	}
	return e, nil
}
