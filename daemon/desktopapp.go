package daemon

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// A desktop app is a browser profile whose browser is a real, headed
// Chromium started as a window of a display (new <label> --backend
// desktop-app): its accessibility on, its own user-data-dir, no DevTools.
// It is opened as open opens any window, leased to the session, and driven
// from then on with vibespace-window's verbs; vibespace-browser's page
// verbs on that profile are refused no_cdp_on_this_backend, naming the
// window. Nothing of the CDP browser is started for it. Which program, its
// command line, what it may be asked and the display it opens on are the
// browser kind's (kind.AppRunner); the core registers the profile, opens
// the window for the session and records it as the profile's.

// appsOf is b's road to desktop apps, or why this daemon has none.
func appsOf(b kind.Browser) (kind.AppRunner, error) {
	if a, ok := b.(kind.AppRunner); ok {
		return a, nil
	}
	return nil, target.Refuse(target.CodeNoBrowser, "this daemon's browser runs no desktop apps (new <label> --backend desktop-app); see doctor")
}

// isDesktopApp reports whether req asks for a desktop app.
func isDesktopApp(req Request) bool {
	return req.Backend == profile.BackendDesktopApp || req.Provider == provider.DesktopApp
}

// checkNew checks new's provider and backend (the provider table's rule)
// and a desktop app's --url, --size and --mode before anything is
// registered or started.
func checkNew(d *Daemon, req Request) error {
	app, err := provider.CheckNew(d.rows(), provider.New{Provider: req.Provider, Backend: req.Backend, Endpoint: req.Endpoint,
		App: req.URL != "" || req.Size != "" || req.Mode != ""})
	if err != nil || !app {
		return err
	}
	if req.Mode != "" {
		if _, err := target.ParseMode(req.Mode); err != nil {
			return err
		}
	}
	apps, err := appsOf(d.cfg.Browser)
	if err == nil {
		_, err = apps.CheckApp(req.URL, req.Size)
	}
	return err
}

// appOf is the desktop app's launch settings new asks for, over what the
// profile kept (a flag not given keeps its setting).
func appOf(apps kind.AppRunner, req Request, kept profile.App) profile.App {
	asked, _ := apps.CheckApp(req.URL, req.Size) // checkNew checked them
	app := kept
	if req.URL != "" {
		app.URL = asked.URL
	}
	if req.Size != "" {
		app.Width, app.Height = asked.Width, asked.Height
	}
	if req.Mode != "" {
		app.Mode = req.Mode
	}
	return app
}

// kindApp is how a desktop app of settings a starts, for its runner.
func kindApp(a profile.App) kind.App { return kind.App{URL: a.URL, Width: a.Width, Height: a.Height} }

// appWindow is the window a desktop app's profile runs as, or nil.
func (d *Daemon) appWindow(profileID string) *entry {
	if profileID == "" {
		return nil
	}
	es := d.entries(func(e *entry) bool { return e.rec.Profile == profileID && e.rec.From == "" })
	if len(es) == 0 {
		return nil
	}
	return es[0]
}

// liveAppWindow is appWindow read afresh: a window whose Chromium has gone
// is dropped, and nil.
func (d *Daemon) liveAppWindow(ctx context.Context, profileID string) *entry {
	e := d.appWindow(profileID)
	if e == nil {
		return nil
	}
	if _, err := d.refresh(ctx, e); target.CodeOf(err) == target.CodeWindowGone {
		return nil
	}
	return e
}

// newDesktopApp is new --backend desktop-app: it registers the profile (or
// finds it), opens its Chromium on the desktop apps' display as a window
// of the session, through open, and attaches the profile to the session.
// A new that is refused changes nothing: a profile it registered is
// forgotten, one it found keeps its settings, and nothing is attached. A
// desktop app that runs already is the session's again: it takes its
// lease, and what was asked is kept for its next start.
func (d *Daemon) newDesktopApp(ctx context.Context, c *call) Response {
	req := c.Req
	// The display first: on a daemon without it, nothing is registered.
	apps, err := appsOf(d.cfg.Browser)
	if err == nil {
		_, err = d.providerFor(apps.AppDisplay())
	}
	if err != nil {
		return d.fail(c, err)
	}
	reg, err := d.browsing.Registry()
	if err != nil {
		return d.fail(c, err)
	}
	select {
	case d.br.appSlot <- struct{}{}:
	case <-ctx.Done():
		return d.fail(c, target.Refuse(target.CodeTimeout, "another desktop app was still starting").Wrap(ctx.Err()))
	}
	defer func() { <-d.br.appSlot }()
	p, found, err := reg.FindApp(req.Label)
	if err != nil {
		return d.fail(c, err)
	}
	if found {
		if running := d.liveAppWindow(ctx, p.ID); running != nil {
			// The running one is this session's to take, or nothing changes.
			if err := d.takeApp(c, running); err != nil {
				return d.fail(c, err)
			}
			if p, err = reg.SetApp(p.ID, appOf(apps, req, p.App)); err != nil {
				return d.fail(c, err)
			}
			a, err := reg.Use(req.Session, p.ID, "")
			if err != nil {
				return d.fail(c, err)
			}
			return d.finish(c, appAgain(req, running.id, p, d.browsing.Attached(a, len(reg.Attachments(req.Session)))), nil)
		}
	}
	app := appOf(apps, req, p.App)
	if !found {
		// Its directory is named by its id, which only registering mints.
		if p, err = reg.NewApp(req.Label, app); err != nil {
			return d.fail(c, err)
		}
	}
	// undo takes back what this new did when it is refused: the window it
	// opened is stopped, the profile it registered forgotten.
	undo := func(opened bool) {
		if opened {
			if err := c.e.t.Close(context.WithoutCancel(ctx)); err != nil {
				d.cfg.Logger.Warn("a refused new could not stop its desktop app's window", "profile", p.ID, "target", string(c.e.id), "err", err)
			}
			d.drop(c.e.id)
			c.e = nil
		}
		if !found {
			if err := reg.Forget(p.ID); err != nil {
				d.cfg.Logger.Warn("the profile of a desktop app that did not start stays registered", "profile", p.ID, "err", err)
			}
		}
	}
	dir, err := reg.Dir(p.ID)
	if err != nil {
		undo(false)
		return d.fail(c, err)
	}
	c.Req.Argv, c.Req.Display, c.Req.Mode = apps.AppArgv(dir, kindApp(app)), apps.AppDisplay(), app.Mode
	resp := d.openAs(ctx, c, p.ID)
	if !resp.OK || c.e == nil {
		undo(false)
		return resp
	}
	// Only now that it runs does the profile keep what was asked, and is
	// it attached.
	if found {
		p, err = reg.SetApp(p.ID, app)
	}
	var a profile.Attachment
	if err == nil {
		a, err = reg.Use(req.Session, p.ID, "")
	}
	if err != nil {
		undo(true)
		return d.fail(c, err)
	}
	pi := d.browsing.Attached(a, len(reg.Attachments(req.Session)))
	d.mu.Lock()
	bounds := c.e.info.Bounds
	d.mu.Unlock()
	pi.Backend, pi.Window, pi.Running = p.Backend, c.e.id, true
	resp.Profile = &pi
	size := fmt.Sprintf("its window is %dx%d pixels", bounds.W, bounds.H)
	if p.App.Width > 0 && (bounds.W != p.App.Width || bounds.H != p.App.Height) {
		size = fmt.Sprintf("its window is %dx%d pixels (%dx%d was asked; Chromium chose)", bounds.W, bounds.H, p.App.Width, p.App.Height)
	}
	resp.Did += fmt.Sprintf("; profile %s runs as a desktop app in %s, showing %s; %s (click --at takes pixels of that picture); %s",
		appName(p), c.e.id, apps.AppURL(kindApp(p.App)), size, windowRecipe(c.e.id))
	return resp
}

// browserNew registers a profile (the profile words' New: a directory of
// ours, or somebody else's browser at its endpoint). It does not attach
// it. With --backend desktop-app it also attaches and starts it.
func (d *Daemon) browserNew(ctx context.Context, c *call) Response {
	if isDesktopApp(c.Req) {
		return d.newDesktopApp(ctx, c)
	}
	resp, err := d.browsing.New(c.Req)
	return d.finish(c, resp, err)
}

// appName names a desktop app's profile in answers: "shop (bp-3f9a1c02)".
func appName(p profile.Profile) string { return fmt.Sprintf("%s (%s)", p.Label, p.ID) }

// takeApp takes the lease of a desktop app's running window for new: the
// session must be exposed to it, and no other may hold it.
func (d *Daemon) takeApp(c *call, e *entry) error {
	d.mu.Lock()
	err := e.rec.CheckExposed(c.Req.Session)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	c.e = e
	return d.take(c)
}

// appAgain answers new for a desktop app that runs already as window id,
// whose lease the session took. What this new asked applies at its next
// start.
func appAgain(req Request, id target.ID, p profile.Profile, pi ProfileInfo) Response {
	pi.Backend, pi.Window, pi.Running = p.Backend, id, true
	did := fmt.Sprintf("profile %s runs already as a desktop app in %s; you hold its lease; %s", appName(p), id, windowRecipe(id))
	if req.URL != "" || req.Size != "" || req.Mode != "" {
		did += " (the --url, --size or --mode given apply when it starts again; mode " + string(id) + " <auto|tree|pixels> changes its mode now)"
	}
	return Response{Profile: &pi, Did: did}
}

// windowRecipe says how a desktop app's window is driven.
func windowRecipe(id target.ID) string {
	return "drive it with " + strings.Join(target.WindowVerbs(id), ", ")
}

// noCDP is the refusal of a page verb on a desktop app's profile: it names
// the window it runs as and the verbs that drive it, or, when it does not
// run, how to start it.
func (d *Daemon) noCDP(session string, sel selection) error {
	label := sel.Prof.Label
	e := d.appWindow(sel.Key.Profile)
	if e == nil {
		start := "vibespace-browser new " + target.ShellWord(label) + " --backend desktop-app"
		return target.Refuse(target.CodeNoCDPOnThisBackend,
			"profile %s (%s) is a desktop app, which has no DevTools, and it is not running: start it with %s, then drive its window with vibespace-window (snapshot win:N -i, click win:N @eN, type, key, screenshot)",
			label, sel.Key.Profile, start).
			With("profile", sel.Key.Profile).With("backend", profile.BackendDesktopApp).With("start", start)
	}
	r := target.Refuse(target.CodeNoCDPOnThisBackend,
		"profile %s runs as a desktop app (%s), which has no DevTools: use %s",
		label, e.id, strings.Join(target.WindowVerbs(e.id), ", ")).
		With("profile", sel.Key.Profile).With("backend", profile.BackendDesktopApp).With("target", string(e.id)).With("verbs", target.WindowVerbs(e.id))
	if !d.exposedTo(e, session) {
		r.Message += fmt.Sprintf(" — once its opener shares it with you (share %s --with %s)", e.id, session)
	}
	return r
}

func checkClose(d *Daemon, req Request) error { return args.CloseOf(req).Validate() }

// browserClose is close <label>: it stops a desktop app's Chromium, as
// vibespace-window close on its window does (the caller must be able to
// take the window's lease).
func (d *Daemon) browserClose(ctx context.Context, c *call) Response {
	reg, err := d.browsing.Registry()
	if err != nil {
		return d.fail(c, err)
	}
	p, err := reg.Find(c.Req.Label)
	if err != nil {
		return d.fail(c, err)
	}
	if err := d.browsing.RowOf(p).Refuse(provider.FeatureClose); err != nil {
		return d.fail(c, err)
	}
	if !p.DesktopApp() {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "profile %q (%s) runs in the CDP browser, not as a desktop app: close its tabs with tab close (its browser stops when idle)", p.Label, p.ID).
			With("profile", p.ID).With("backend", p.BackendWords()))
	}
	pi := d.browsing.Known(reg, c.Req.Session, p)
	e := d.liveAppWindow(ctx, p.ID)
	if e == nil {
		return d.finish(c, Response{Profile: &pi, Did: fmt.Sprintf("profile %s is a desktop app that is not running; nothing was stopped", appName(p))}, nil)
	}
	c.Req.Target = string(e.id)
	if err := d.reachHandle(ctx, c); err != nil {
		return d.finish(c, Response{Profile: &pi}, err)
	}
	resp := d.closeTarget(ctx, c)
	if resp.OK {
		pi.Running, pi.Window = false, ""
		resp.Profile = &pi
		resp.Did += fmt.Sprintf(", the desktop app of profile %s in %s; new %s --backend desktop-app starts it again", appName(p), e.id, target.ShellWord(p.Label))
	}
	return resp
}
