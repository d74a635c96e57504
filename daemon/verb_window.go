package daemon

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/modes"
	"github.com/vibespace/vibespace/target"
)

// open starts an application on a display (args.Open's Display; the first
// registered by default) and makes its first window a target, opened by
// and leased to the caller, in the mode asked (its Mode; auto by
// default, resolved once the window's frame was waited for).
func (d *Daemon) open(ctx context.Context, c *call) Response { return d.openAs(ctx, c, "") }

// openAs is open for a window that is the browser of profile (a desktop
// app's; "" for none): its record names the profile from its first
// persist.
func (d *Daemon) openAs(ctx context.Context, c *call, profile string) Response {
	a := c.Args.(args.Open)
	if strings.TrimSpace(a.App) == "" {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "open needs an application, e.g. open gtk3-widget-factory"))
	}
	argv := append([]string{a.App}, a.Args...)
	p, err := d.reg.ProviderFor(a.Display)
	if err != nil {
		return d.fail(c, err)
	}
	if road := d.desktopRoad(); road != nil && p == kind.DisplayProvider(road) {
		if err := d.cfg.Desktop.Never("open", target.Target{}, d.reg.Names()); err != nil {
			return d.fail(c, err) // and were it not, the road's Start refuses your_desktop
		}
	}
	// The session's own display of a per-session provider; held (not
	// stopped as idle) until its window is a target.
	disp, release, err := d.reg.Use(ctx, p, c.Req.Session)
	if err != nil {
		return d.fail(c, err)
	}
	defer func() { release() }()
	if !d.reg.Answers(ctx, disp) {
		return d.fail(c, d.reg.NotAnswering(disp, "", "nothing was started"))
	}
	kt, err := disp.Kind().Launch(ctx, argv)
	if _, refused := target.AsRefusal(err); err != nil && !refused && d.reg.ResetIfDead(ctx, disp) {
		release()
		if disp, release, err = d.reg.Use(ctx, p, c.Req.Session); err == nil {
			kt, err = disp.Kind().Launch(ctx, argv)
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
		ID: id, Kind: target.KindWindow, Title: info.Title, App: filepath.Base(a.App),
		Origin: c.Req.Session, Opened: d.cfg.Now().UTC(), PID: info.PID, Key: info.Key,
		Display: disp.Name(), Exposure: []string{c.Req.Session}, Mode: target.ModeAuto, Profile: profile,
	}
	if a.Mode != "" {
		rec.Mode = target.Mode(a.Mode) // its arguments' check read it (args.Open)
	}
	if rec.Mode == target.ModeAuto {
		rec.Resolved, rec.ModeWhy = modes.Judge(ctx, kt)
	}
	c.e = d.add(rec, kt, disp, nil, info)
	whose := disp.Name()
	if disp.PerSession() {
		whose += ", your session's own"
	}
	did := fmt.Sprintf("opened %s (pid %d) on display %s (%s); you hold its lease", rec.App, info.PID, disp.Kind().Name(), whose)
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
	if found { // a dialog, a second window: that window alone (closeDiscovered)
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
		d.mu.Lock()
		c.e.last.Forget(c.Req.Session) // its next --diff answers whole
		d.mu.Unlock()
		did = "released its lease; the application keeps running"
		d.persist()
	}
	return d.finish(c, Response{Did: did}, nil)
}

// share exposes a target to another session. Its opener or its holder may
// share it.
func (d *Daemon) share(ctx context.Context, c *call) Response {
	a := c.Args.(args.Share)
	c.Fact.With = a.With
	if err := d.handleOf(ctx, c); err != nil {
		return d.fail(c, err)
	}
	e := c.e
	if a.With == "" {
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
	if c.Req.Session != origin && c.Req.Session != l.Holder {
		d.mu.Unlock()
		return d.fail(c, target.Refuse(target.CodeHeld, "only its opener (%s) or its holder may share %s", origin, e.id).With("origin", origin).With("holder", l.Holder))
	}
	changed := e.rec.Share(a.With)
	d.mu.Unlock()
	did := fmt.Sprintf("%s was already shared with %s", e.id, a.With)
	if changed {
		d.persist()
		did = fmt.Sprintf("shared %s with session %s", e.id, a.With)
	}
	return d.finish(c, Response{Did: did}, nil)
}

// closeDiscovered closes a window found beside the one its application was
// opened with: it asks that window alone to close, and waits for it to go;
// the application keeps running. A window that cannot be asked is refused
// no_close, naming the window whose close stops the application.
func (d *Daemon) closeDiscovered(ctx context.Context, c *call) Response {
	e := c.e
	info := d.info(e)
	wc, ok := e.t.(kind.WindowCloser)
	var err error
	gone := false
	if ok {
		gone, err = wc.CloseWindow(ctx)
	}
	if !ok || target.CodeOf(err) == target.CodeNoClose {
		d.mu.Lock()
		from := e.rec.From
		d.mu.Unlock()
		first := "its application's first window"
		if d.entryOf(from) != nil {
			first = fmt.Sprintf("%s, its application's first window,", from)
		}
		return d.fail(c, target.Refuse(target.CodeNoClose,
			"%s %q cannot be closed alone: its application does not take WM_DELETE_WINDOW for it; close %s to stop the application",
			e.id, info.Title, first).With("target", string(e.id)).With("from", string(from)))
	}
	if err != nil {
		return d.fail(c, err)
	}
	if !gone {
		resp := Response{Did: fmt.Sprintf("asked %s to close (WM_DELETE_WINDOW); it is still open after %v — its application may be asking something first (snapshot or screenshot it)", e.id, closeWaitShown)}
		return d.finish(c, resp, nil)
	}
	d.drop(e.id)
	c.e = nil
	resp := Response{Target: d.gone(info), Did: fmt.Sprintf("closed %s (WM_DELETE_WINDOW); its application (pid %d) keeps running", info.ID, info.PID)}
	return d.finish(c, resp, nil)
}

// closeWaitShown is how long a window is given to close, as answers say
// it (the backend's bound).
const closeWaitShown = 5 * time.Second
