package tabs

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
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
// window (the core's reach of a tab). Nothing of the CDP browser is
// started for it. Which program, its command line, what it may be asked
// and the display it opens on are the browser kind's (kind.AppRunner);
// this package registers the profile, has the core open the window for
// the session and records it as the profile's.

// appsOf is b's road to desktop apps, or why this daemon has none.
func appsOf(b kind.Browser) (kind.AppRunner, error) {
	if a, ok := b.(kind.AppRunner); ok {
		return a, nil
	}
	return nil, target.Refuse(target.CodeNoBrowser, "this daemon's browser runs no desktop apps (new <label> --backend desktop-app); see doctor")
}

// isDesktopApp reports whether req asks for a desktop app.
func isDesktopApp(a args.New) bool {
	return a.Backend == profile.BackendDesktopApp || a.Provider == provider.DesktopApp
}

// checkNew checks new's provider and backend (the provider table's rule)
// and a desktop app's --url, --size and --mode before anything is
// registered or started.
func (s *Stage) checkNew(req args.New) error {
	app, err := provider.CheckNew(s.host.Rows(), provider.New{Provider: req.Provider, Backend: req.Backend, Endpoint: req.Endpoint,
		App: req.URL != "" || req.Size != "" || req.Mode != ""})
	if err != nil || !app {
		return err
	}
	if req.Mode != "" {
		if _, err := target.ParseMode(req.Mode); err != nil {
			return err
		}
	}
	apps, err := appsOf(s.host.Browser())
	if err == nil {
		_, err = apps.CheckApp(req.URL, req.Size)
	}
	return err
}

// appOf is the desktop app's launch settings new asks for, over what the
// profile kept (a flag not given keeps its setting).
func appOf(apps kind.AppRunner, req args.New, kept profile.App) profile.App {
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

// newDesktopApp is new --backend desktop-app: it registers the profile (or
// finds it), opens its Chromium on the desktop apps' display as a window
// of the session, through open, and attaches the profile to the session.
// A new that is refused changes nothing: a profile it registered is
// forgotten, one it found keeps its settings, and nothing is attached. A
// desktop app that runs already is the session's again: it takes its
// lease, and what was asked is kept for its next start.
func (s *Stage) newDesktopApp(ctx context.Context, c *stage.Call) (wire.Response, error) {
	req, asked := c.Req, c.Args.(args.New)
	// The display first: on a daemon without it, nothing is registered.
	apps, err := appsOf(s.host.Browser())
	if err == nil {
		err = s.host.Display(apps.AppDisplay())
	}
	if err != nil {
		return wire.Response{}, err
	}
	profs := s.profs
	reg, err := profs.Registry()
	if err != nil {
		return wire.Response{}, err
	}
	select {
	case s.appSlot <- struct{}{}:
	case <-ctx.Done():
		return wire.Response{}, target.Refuse(target.CodeTimeout, "another desktop app was still starting").Wrap(ctx.Err())
	}
	defer func() { <-s.appSlot }()
	p, found, err := reg.FindApp(asked.Label)
	if err != nil {
		return wire.Response{}, err
	}
	if found {
		// The running one is this session's to take, or nothing changes.
		id, running, err := s.takeApp(ctx, c, p.ID)
		if err != nil {
			return wire.Response{}, err
		}
		if running {
			if p, err = reg.SetApp(p.ID, appOf(apps, asked, p.App)); err != nil {
				return wire.Response{}, err
			}
			a, err := reg.Use(req.Session, p.ID, "")
			if err != nil {
				return wire.Response{}, err
			}
			return appAgain(asked, id, p, profs.Attached(a, len(reg.Attachments(req.Session)))), nil
		}
	}
	app := appOf(apps, asked, p.App)
	if !found {
		// Its directory is named by its id, which only registering mints.
		if p, err = reg.NewApp(asked.Label, app); err != nil {
			return wire.Response{}, err
		}
	}
	// undo takes back what this new did when it is refused: the window it
	// opened is stopped, the profile it registered forgotten.
	undo := func(opened bool) {
		if opened {
			id := c.Target.ID()
			if err := s.host.Stop(ctx, c); err != nil {
				s.env.Logger.Warn("a refused new could not stop its desktop app's window", "profile", p.ID, "target", string(id), "err", err)
			}
		}
		if !found {
			if err := reg.Forget(p.ID); err != nil {
				s.env.Logger.Warn("the profile of a desktop app that did not start stays registered", "profile", p.ID, "err", err)
			}
		}
	}
	dir, err := reg.Dir(p.ID)
	if err != nil {
		undo(false)
		return wire.Response{}, err
	}
	argv := apps.AppArgv(dir, kindApp(app))
	c.Args = args.Open{App: argv[0], Args: argv[1:], Display: apps.AppDisplay(), Mode: app.Mode}
	resp := s.host.Open(ctx, c, p.ID)
	if !resp.OK || c.Target == nil {
		undo(false)
		return resp, nil // finished by open: its audit row is written
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
		return wire.Response{}, err
	}
	pi := profs.Attached(a, len(reg.Attachments(req.Session)))
	id := c.Target.ID()
	bounds, _, _ := c.Target.Bounds("")
	pi.Backend, pi.Window, pi.Running = p.Backend, id, true
	resp.Profile = &pi
	size := fmt.Sprintf("its window is %dx%d pixels", bounds.W, bounds.H)
	if p.App.Width > 0 && (bounds.W != p.App.Width || bounds.H != p.App.Height) {
		size = fmt.Sprintf("its window is %dx%d pixels (%dx%d was asked; Chromium chose)", bounds.W, bounds.H, p.App.Width, p.App.Height)
	}
	resp.Did += fmt.Sprintf("; profile %s runs as a desktop app in %s, showing %s; %s (click --at takes pixels of that picture); %s",
		appName(p), id, apps.AppURL(kindApp(p.App)), size, windowRecipe(id))
	return resp, nil
}

// appWindow is the window a desktop app's profile runs as, read afresh
// (ok false when it does not run): a window whose Chromium has gone is
// dropped, and none.
func (s *Stage) appWindow(ctx context.Context, profileID string) (target.ID, bool) {
	id, ok := s.host.AppWindow(profileID)
	if !ok {
		return "", false
	}
	if _, err := s.host.Refresh(ctx, id); target.CodeOf(err) == target.CodeWindowGone {
		return "", false
	}
	return id, true
}

// takeApp takes the lease of a desktop app's running window for new: the
// session must be exposed to it, and no other may hold it; running is
// false when none runs.
func (s *Stage) takeApp(ctx context.Context, c *stage.Call, profileID string) (id target.ID, running bool, err error) {
	id, ok := s.appWindow(ctx, profileID)
	if !ok {
		return "", false, nil
	}
	if seen, _ := s.env.Sees(c.Req.Session, id); !seen {
		unshared := target.Target{ID: id} // the refusal of a target not shared with the session
		return id, true, unshared.CheckExposed(c.Req.Session)
	}
	return id, true, s.host.Lease(c, id)
}

// browserNew registers a profile (the profile words' New: a directory of
// ours, or somebody else's browser at its endpoint). It does not attach
// it. With --backend desktop-app it also attaches and starts it.
func (s *Stage) browserNew(ctx context.Context, c *stage.Call) (wire.Response, error) {
	a := c.Args.(args.New)
	if isDesktopApp(a) {
		return s.newDesktopApp(ctx, c)
	}
	return s.profs.New(c.Req, a)
}

// appName names a desktop app's profile in answers: "shop (bp-3f9a1c02)".
func appName(p profile.Profile) string { return fmt.Sprintf("%s (%s)", p.Label, p.ID) }

// appAgain answers new for a desktop app that runs already as window id,
// whose lease the session took. What this new asked applies at its next
// start.
func appAgain(req args.New, id target.ID, p profile.Profile, pi wire.ProfileInfo) wire.Response {
	pi.Backend, pi.Window, pi.Running = p.Backend, id, true
	did := fmt.Sprintf("profile %s runs already as a desktop app in %s; you hold its lease; %s", appName(p), id, windowRecipe(id))
	if req.URL != "" || req.Size != "" || req.Mode != "" {
		did += " (the --url, --size or --mode given apply when it starts again; mode " + string(id) + " <auto|tree|pixels> changes its mode now)"
	}
	return wire.Response{Profile: &pi, Did: did}
}

// windowRecipe says how a desktop app's window is driven.
func windowRecipe(id target.ID) string {
	return "drive it with " + strings.Join(target.WindowVerbs(id), ", ")
}

// browserClose is close <label>: it stops a desktop app's Chromium, as
// vibespace-window close on its window does (the caller must be able to
// take the window's lease).
func (s *Stage) browserClose(ctx context.Context, c *stage.Call) (wire.Response, error) {
	profs := s.profs
	reg, err := profs.Registry()
	if err != nil {
		return wire.Response{}, err
	}
	p, err := reg.Find(c.Args.(args.Close).Label)
	if err != nil {
		return wire.Response{}, err
	}
	if err := profs.RowOf(p).Refuse(provider.FeatureClose); err != nil {
		return wire.Response{}, err
	}
	if !p.DesktopApp() {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "profile %q (%s) runs in the CDP browser, not as a desktop app: close its tabs with tab close (its browser stops when idle)", p.Label, p.ID).
			With("profile", p.ID).With("backend", p.BackendWords())
	}
	pi := profs.Known(reg, c.Req.Session, p)
	id, ok := s.appWindow(ctx, p.ID)
	if !ok {
		return wire.Response{Profile: &pi, Did: fmt.Sprintf("profile %s is a desktop app that is not running; nothing was stopped", appName(p))}, nil
	}
	c.Req.Target = string(id)
	if err := s.host.ReachWindow(ctx, c); err != nil {
		return wire.Response{Profile: &pi}, err
	}
	resp := s.host.CloseWindow(ctx, c) // finished by close: its audit row is written
	if resp.OK {
		pi.Running, pi.Window = false, ""
		resp.Profile = &pi
		resp.Did += fmt.Sprintf(", the desktop app of profile %s in %s; new %s --backend desktop-app starts it again", appName(p), id, target.ShellWord(p.Label))
	}
	return resp, nil
}
