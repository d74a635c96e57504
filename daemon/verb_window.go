package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// open starts an application on a display (Request.Display; the first
// registered by default) and makes its first window a target, opened by
// and leased to the caller, in the mode asked (Request.Mode; auto by
// default, resolved once the window's frame was waited for).
func (d *Daemon) open(ctx context.Context, c *call) Response { return d.openAs(ctx, c, "") }

// openAs is open for a window that is the browser of profile (a desktop
// app's; "" for none): its record names the profile from its first
// persist.
func (d *Daemon) openAs(ctx context.Context, c *call, profile string) Response {
	req := c.Req
	if len(req.Argv) == 0 || strings.TrimSpace(req.Argv[0]) == "" {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "open needs an application, e.g. open gtk3-widget-factory"))
	}
	p, err := d.providerFor(req.Display)
	if err != nil {
		return d.fail(c, err)
	}
	if road := d.desktopRoad(); road != nil && p == kind.DisplayProvider(road) {
		if err := d.cfg.Desktop.Never("open", target.Target{}, d.displayNames()); err != nil {
			return d.fail(c, err) // and were it not, the road's Start refuses your_desktop
		}
	}
	// The session's own display of a per-session provider; held (not
	// stopped as idle) until its window is a target.
	disp, release, err := d.useDisplay(ctx, p, req.Session)
	if err != nil {
		return d.fail(c, err)
	}
	defer func() { release() }()
	if !d.answers(ctx, disp) {
		return d.fail(c, d.displayNotAnswering(disp, "", "nothing was started"))
	}
	kt, err := disp.d.Launch(ctx, req.Argv)
	if _, refused := target.AsRefusal(err); err != nil && !refused && d.resetIfDead(ctx, disp) {
		release()
		if disp, release, err = d.useDisplay(ctx, p, req.Session); err == nil {
			kt, err = disp.d.Launch(ctx, req.Argv)
		} else {
			release = func() {}
		}
	}
	if err != nil {
		return d.fail(c, err)
	}
	info, err := kt.Info(ctx)
	if err != nil {
		kt.Close(context.WithoutCancel(ctx))
		return d.fail(c, err)
	}
	d.mu.Lock()
	d.next++
	id := target.WindowID(d.next)
	d.mu.Unlock()
	rec := target.Target{
		ID: id, Kind: target.KindWindow, Title: info.Title, App: filepath.Base(req.Argv[0]),
		Origin: req.Session, Opened: d.cfg.Now().UTC(), PID: info.PID, Key: info.Key,
		Display: disp.name, Exposure: []string{req.Session}, Mode: target.ModeAuto, Profile: profile,
	}
	if req.Mode != "" {
		rec.Mode = target.Mode(req.Mode) // its arguments' check read it (args.Open)
	}
	if rec.Mode == target.ModeAuto {
		rec.Resolved, rec.ModeWhy = judge(ctx, kt)
	}
	c.e = d.add(rec, kt, disp, nil, info)
	whose := disp.name
	if disp.perSession {
		whose += ", your session's own"
	}
	did := fmt.Sprintf("opened %s (pid %d) on display %s (%s); you hold its lease", rec.App, info.PID, disp.d.Name(), whose)
	if n, ok := kt.(launchNoter); ok && n.LaunchNote() != "" {
		did += "; " + n.LaunchNote()
	}
	return d.finish(c, Response{Did: did}, nil)
}

// closeTarget ends the target the caller holds: stops a window's
// application, or closes a window found beside its first alone
// (closeDiscovered); vibespace-browser closes tabs with tab close.
func (d *Daemon) closeTarget(ctx context.Context, c *call) Response {
	e := c.e
	d.mu.Lock()
	rec := e.rec
	d.mu.Unlock()
	found := rec.From != ""
	if err := d.cfg.Desktop.Never("close", rec, nil); err != nil {
		return d.fail(c, err)
	}
	if found { // a dialog, a second window: that window alone (discover.go)
		return d.closeDiscovered(ctx, c)
	}
	info := d.info(e)
	if err := e.t.Close(ctx); err != nil {
		return d.fail(c, err)
	}
	d.drop(e.id)
	c.e = nil
	resp := Response{Target: d.gone(info), Did: fmt.Sprintf("stopped %s (pid %d)", info.App, info.PID)}
	return d.finish(c, resp, nil)
}

// attach takes the lease.
func (d *Daemon) attach(ctx context.Context, c *call) Response {
	if err := d.handleOf(ctx, c); err != nil {
		return d.fail(c, err)
	}
	_, acquired, err := d.leases.Acquire(c.e.id, c.Req.Session)
	if err != nil {
		return d.fail(c, err)
	}
	did := "you already held its lease"
	if acquired {
		did = "took its lease"
		d.persist()
	}
	return d.finish(c, Response{Did: did}, nil)
}

// detach drops the lease; the application keeps running.
func (d *Daemon) detach(ctx context.Context, c *call) Response {
	if err := d.handleOf(ctx, c); err != nil {
		return d.fail(c, err)
	}
	_, released, err := d.leases.Release(c.e.id, c.Req.Session)
	if err != nil {
		return d.fail(c, err)
	}
	did := "you did not hold its lease; nothing changed"
	if released {
		d.forgetLast(c.e, c.Req.Session) // its next --diff answers whole
		did = "released its lease; the application keeps running"
		d.persist()
	}
	return d.finish(c, Response{Did: did}, nil)
}

// share exposes a target to another session. Its opener or its holder may
// share it.
func (d *Daemon) share(ctx context.Context, c *call) Response {
	c.Fact.With = c.Req.With
	if err := d.handleOf(ctx, c); err != nil {
		return d.fail(c, err)
	}
	e, req := c.e, c.Req
	if req.With == "" {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "share needs --with <session>"))
	}
	l := d.leases.Get(e.id)
	d.mu.Lock()
	rec := e.rec
	d.mu.Unlock()
	if err := d.cfg.Desktop.Never("share", rec, nil); err != nil {
		return d.fail(c, err)
	}
	d.mu.Lock()
	origin := e.rec.Origin
	if req.Session != origin && req.Session != l.Holder {
		d.mu.Unlock()
		return d.fail(c, target.Refuse(target.CodeHeld, "only its opener (%s) or its holder may share %s", origin, e.id).With("origin", origin).With("holder", l.Holder))
	}
	changed := e.rec.Share(req.With)
	d.mu.Unlock()
	did := fmt.Sprintf("%s was already shared with %s", e.id, req.With)
	if changed {
		d.persist()
		did = fmt.Sprintf("shared %s with session %s", e.id, req.With)
	}
	return d.finish(c, Response{Did: did}, nil)
}
