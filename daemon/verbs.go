package daemon

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// codeInternal marks an answer that is not a refusal but a failure of ours.
const codeInternal = target.CodeInternal

// verbFunc answers one verb.
type verbFunc func(d *Daemon, ctx context.Context, req Request) Response

// verb returns the method answering name, or nil. One line per verb.
func verb(name string) verbFunc {
	if f := browserVerb(name); f != nil {
		return f
	}
	switch name {
	case "status":
		return (*Daemon).status
	case "doctor":
		return (*Daemon).doctor
	case "list":
		return (*Daemon).list
	case "open":
		return (*Daemon).open
	case "close":
		return (*Daemon).closeTarget
	case "attach":
		return (*Daemon).attach
	case "detach":
		return (*Daemon).detach
	case "share":
		return (*Daemon).share
	case "takeover":
		return (*Daemon).takeover
	case "handback":
		return (*Daemon).handback
	case "snapshot":
		return (*Daemon).snapshot
	case "screenshot":
		return (*Daemon).screenshot
	case "click":
		return (*Daemon).click
	case "type":
		return (*Daemon).typeText
	case "key":
		return (*Daemon).key
	case "scroll":
		return (*Daemon).scroll
	case "watch":
		return (*Daemon).watch
	}
	return nil
}

// Verbs lists the verbs the daemon answers.
func Verbs() []string {
	return append([]string{"attach", "click", "close", "detach", "doctor", "handback", "key", "list", "open",
		"screenshot", "scroll", "share", "snapshot", "status", "takeover", "type", "watch"}, BrowserVerbs()...)
}

// Handle answers one request. It never panics on bad input and always
// answers within the verb timeout.
func (d *Daemon) Handle(ctx context.Context, req Request) Response {
	f := verb(req.Verb)
	if f == nil {
		return refusal(target.Refuse(target.CodeBadRequest, "unknown verb %q", req.Verb).With("verbs", Verbs()))
	}
	if req.Session == "" {
		return refusal(target.Refuse(target.CodeBadRequest, "no session: set VIBESPACE_SESSION"))
	}
	if req.For != "" && !forVerbs[req.Verb] {
		return refusal(target.Refuse(target.CodeBadRequest, "--for is the operator's word for another session's browser attachments: only use, detach, pin and attachments take it, not %s", req.Verb))
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.VerbTimeout)
	defer cancel()
	resp := d.guarded(ctx, f, req)
	resp.V = ProtocolVersion
	return resp
}

// forVerbs take Request.For: they act on another session's attachment set.
var forVerbs = map[string]bool{"browser.use": true, "browser.detach": true, "browser.pin": true, "browser.attachments": true}

// guarded runs a verb; a panic in it (a bug of ours or of a backend)
// becomes an internal answer to this caller only, and the daemon keeps
// serving everyone else.
func (d *Daemon) guarded(ctx context.Context, f verbFunc, req Request) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			d.cfg.Logger.Error("a verb panicked", "verb", req.Verb, "panic", p, "stack", string(debug.Stack()))
			resp = refusal(target.Refuse(codeInternal, "the daemon failed on %s (a bug; see its log): %v", req.Verb, p).With("verb", req.Verb))
			ent := lease.Entry{Session: req.Session, Verb: req.Verb, OK: false, Code: codeInternal}
			if id, err := target.ParseID(req.Target); err == nil {
				ent.Target = id
			}
			d.record(ent)
		}
	}()
	return f(d, ctx, req)
}

// lookup finds the target named by req, refreshed from the display. A
// target whose window is gone is dropped and refused window_gone.
func (d *Daemon) lookup(ctx context.Context, req Request) (*entry, error) {
	if req.Target == "" {
		return nil, target.Refuse(target.CodeBadRequest, "%s needs a target handle (win:N)", req.Verb)
	}
	id, err := target.ParseID(req.Target)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	e, ok := d.targets[id]
	disp := d.display
	var t target.Target
	if ok {
		t = e.t
	}
	d.mu.Unlock()
	if !ok {
		return nil, target.Refuse(target.CodeUnknownTarget, "there is no target %s (list shows yours)", id).With("target", string(id))
	}
	if err := t.CheckExposed(req.Session); err != nil {
		return nil, err
	}
	if err := d.refresh(ctx, disp, e); err != nil {
		return nil, err
	}
	return e, nil
}

// refresh re-reads e's window (title, bounds). A window that is gone, or
// whose process is gone, drops the target.
func (d *Daemon) refresh(ctx context.Context, disp Display, e *entry) error {
	if e.t.ID.Kind() == target.KindTab {
		return d.refreshTab(ctx, e)
	}
	if disp == nil {
		return target.Refuse(target.CodeWindowGone, "the display of %s is gone", e.t.ID)
	}
	d.mu.Lock()
	t := e.t
	d.mu.Unlock()
	w, err := disp.Window(ctx, t.XID)
	if err == nil && !disp.Alive(t.PID) {
		err = target.Refuse(target.CodeWindowGone, "the application of %s (pid %d) has exited", t.ID, t.PID)
	}
	if target.CodeOf(err) == target.CodeWindowGone {
		d.drop(t.ID)
		r, _ := target.AsRefusal(err)
		return target.Refuse(target.CodeWindowGone, "%s %q is gone: %s", t.ID, t.Title, r.Message).With("target", string(t.ID)).Wrap(err)
	}
	if err != nil {
		return err
	}
	d.mu.Lock()
	e.win = w
	e.t.Title = w.Title
	d.mu.Unlock()
	return nil
}

// drop forgets a target and its lease.
func (d *Daemon) drop(id target.ID) {
	d.mu.Lock()
	delete(d.targets, id)
	d.mu.Unlock()
	d.leases.Drop(id)
	d.persist()
}

// useDisplay is use, then the display the target lives on: the common start
// of every verb that reaches the application.
func (d *Daemon) useDisplay(ctx context.Context, req Request) (*entry, lease.Grant, Display, error) {
	e, g, err := d.use(ctx, req)
	if err != nil {
		return e, g, nil, err
	}
	disp, err := d.displayFor(e)
	return e, g, disp, err
}

// use is the gate of every agent verb on a target: exposure, then the lease
// (window_paused while the user drives, held while another session does).
// The grant carries the handback note owed to the caller.
func (d *Daemon) use(ctx context.Context, req Request) (*entry, lease.Grant, error) {
	e, err := d.lookup(ctx, req)
	if err != nil {
		return nil, lease.Grant{}, err
	}
	g, err := d.leases.Use(e.t.ID, req.Session)
	if err == nil && g.Acquired {
		d.persist()
	}
	return e, g, err
}

// begin registers a verb in flight on e (a takeover cancels it) and takes
// e's lock. end undoes both.
func (d *Daemon) begin(ctx context.Context, e *entry) (context.Context, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	key := new(int)
	d.mu.Lock()
	e.flight[key] = cancel
	d.mu.Unlock()
	unregister := func() {
		d.mu.Lock()
		delete(e.flight, key)
		d.mu.Unlock()
		cancel()
	}
	select {
	case e.gate <- struct{}{}:
	case <-ctx.Done():
		unregister()
		return nil, nil, target.Refuse(target.CodeTimeout, "%s is busy with an earlier verb that has not finished", e.t.ID).Wrap(ctx.Err())
	}
	return ctx, func() { <-e.gate; unregister() }, nil
}

// injecting takes the display's injection slot: one keyboard and one
// pointer, so injected sequences never interleave.
func (d *Daemon) injecting(ctx context.Context, e *entry) (func(), error) {
	select {
	case d.injectGate <- struct{}{}:
		d.mu.Lock()
		d.injectOwner = e
		d.mu.Unlock()
		return func() {
			d.mu.Lock()
			d.injectOwner = nil
			d.mu.Unlock()
			<-d.injectGate
		}, nil
	case <-ctx.Done():
		return nil, target.Refuse(target.CodeTimeout, "another window's input was still being injected").Wrap(ctx.Err())
	}
}

// info names a target in an answer, with its lease state.
func (d *Daemon) info(e *entry) *TargetInfo {
	d.mu.Lock()
	t := e.t
	d.mu.Unlock()
	l := d.leases.Get(t.ID)
	ti := &TargetInfo{
		ID: t.ID, Title: t.Title, App: t.App, PID: t.PID, Origin: t.Origin, Exposure: t.Exposure,
		Lease: l.State(), Input: string(l.Input), Holder: l.Holder, User: l.User,
	}
	if !l.Since.IsZero() {
		ti.Since = l.Since.UTC().Format(time.RFC3339)
	}
	if !l.UserSince.IsZero() {
		ti.UserSince = l.UserSince.UTC().Format(time.RFC3339)
	}
	return ti
}

// finish builds the answer of a target verb: the target named, the note
// told, the audit line written.
func (d *Daemon) finish(req Request, e *entry, g lease.Grant, road target.Road, resp Response, err error) Response {
	if err != nil {
		resp = refusal(err)
		if road == "" {
			road = target.Road(fmt.Sprint(resp.Facts["by"]))
			if resp.Facts["by"] == nil {
				road = ""
			}
		}
	} else {
		resp.OK = true
	}
	if e != nil {
		resp.Target = d.info(e)
	}
	if g.Told != nil {
		resp.Note = g.Told.Message()
	}
	resp.By = road
	d.markAgent(req, e, resp)
	ent := lease.Entry{Session: req.Session, Verb: req.Verb, By: road, OK: err == nil, Code: resp.Code}
	if e != nil {
		ent.Target = e.t.ID
	} else if id, perr := target.ParseID(req.Target); perr == nil {
		ent.Target = id
	}
	d.record(ent)
	return resp
}

// cut turns an error of a verb that was acting into what the agent should
// read: when the lease changed under it (a takeover, a release), that is
// the answer, with partial=true.
func (d *Daemon) cut(ctx context.Context, e *entry, session string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		if lerr := d.leases.Check(e.t.ID, session); lerr != nil {
			if r, ok := target.AsRefusal(lerr); ok {
				return r.With("partial", true)
			}
		}
	}
	return err
}
