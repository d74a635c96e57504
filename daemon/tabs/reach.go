package tabs

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
)

// The reach of the session's current tab, which every verb on a tab
// shares: the words of this package, and the shared verbs (snapshot,
// click, …) the core asks it to reach their tab for (Reach). It chooses
// the profile and gates it (the profile words': Profiles), reaches its
// browser context, finds the session's current tab there (the stage keeps
// each session's current tab per context), checks it is the caller's,
// refreshes it and takes its lease, all through the core's primitives of
// the target table (Host).

// Reach reaches the session's current tab in the chosen context for a
// verb of vibespace-browser's, under its lease (reads take it too;
// browser_paused while the user drives).
func (s *Stage) Reach(ctx context.Context, c *stage.Call) error {
	_, sel, err := s.browserContext(ctx, c)
	if err != nil {
		return err
	}
	return s.reachCurrent(ctx, c, sel)
}

// Forget drops id from every session's current tabs: it has left the
// target table.
func (s *Stage) Forget(id target.ID) { s.current.Forget(id) }

// browserContext resolves c's profile choice and reaches its browser
// context, which counts as in use until the call ends. The answer names
// the profile once one was chosen. A desktop app's profile has none:
// every page verb on it is refused no_cdp_on_this_backend, naming its
// window.
func (s *Stage) browserContext(ctx context.Context, c *stage.Call) (kind.BrowserContext, Selection, error) {
	sel, err := s.profs.Choose(c.Req)
	if err != nil {
		return nil, sel, err
	}
	s.host.Named(c, sel.Prof)
	if sel.App {
		return nil, sel, s.noCDP(c.Req.Session, sel)
	}
	b := s.host.Browser()
	if b == nil {
		return nil, sel, kind.NoBrowser()
	}
	if err := s.profs.Gate(c.Req, c.Args, &sel); err != nil {
		return nil, sel, err
	}
	if sel.Key.Headed {
		disp, err := s.host.HeadedDisplay(ctx)
		if err != nil {
			return nil, sel, err
		}
		sel.Key.Display = disp
	}
	bc, release, err := b.Context(ctx, sel.Key)
	if release != nil {
		s.host.Hold(c, release)
	}
	return bc, sel, err
}

// reachCurrent reaches the session's current tab in sel's context, under
// its lease (no_tab when there is none).
func (s *Stage) reachCurrent(ctx context.Context, c *stage.Call, sel Selection) error {
	id, ok := s.current.Get(c.Req.Session, sel.Key)
	if !ok {
		return target.Refuse(target.CodeNoTab, "no current tab in %s: run open <url> first (or tab select <id>, from tab list)", where(sel)).With("profile", sel.Prof.ID)
	}
	return s.reach(ctx, c, sel, id, true)
}

// reach reaches tab id of sel's context for the session, under its lease.
// known says id came from the daemon (the session's current tab), so a
// tab that is not there has closed; a handle the caller gave that names no
// tab this daemon ever had is unknown_target, not tab_gone (and one of the
// old form, tab:<CDP id>, is told the tab's handle: CDPHandle).
func (s *Stage) reach(ctx context.Context, c *stage.Call, sel Selection, id target.ID, known bool) error {
	if key, ok := s.host.Tab(id); ok {
		if seen, _ := s.env.Sees(c.Req.Session, id); !seen || key.String() != sel.Key.String() {
			return target.Refuse(target.CodeNotYourTab, "tab %s belongs to another session or profile", id).With("target", string(id))
		}
		if _, err := s.host.Refresh(ctx, id); err != nil {
			return err
		}
		return s.host.Lease(c, id)
	}
	if !known {
		if err := s.CDPHandle(id); err != nil {
			return err
		}
	}
	if !known && !s.host.Closed(id) {
		return target.Refuse(target.CodeUnknownTarget, "there is no tab %s (tab list shows yours)", id).With("target", string(id))
	}
	s.current.Forget(id)
	return target.Refuse(target.CodeTabGone, "tab %s has closed (run open <url> for a new one)", id).With("target", string(id))
}

// newTab opens a blank tab in bc and makes it a target of the session
// (Host.AddTab: its handle is the next tab:N), leased to it and its
// current tab in sel's context.
func (s *Stage) newTab(ctx context.Context, c *stage.Call, sel Selection, bc kind.BrowserContext) error {
	kt, err := bc.NewTab(ctx)
	if err != nil {
		return err
	}
	info, err := kt.Info(ctx)
	if err != nil {
		kt.Close(context.WithoutCancel(ctx))
		return err
	}
	id := s.host.AddTab(c, kt, info, sel.Key, sel.Prof)
	s.current.Set(c.Req.Session, sel.Key, id)
	return s.host.Lease(c, id)
}

// noCDP is the refusal of a page verb on a desktop app's profile: it names
// the window it runs as and the verbs that drive it, or, when it does not
// run, how to start it.
func (s *Stage) noCDP(session string, sel Selection) error {
	label := sel.Prof.Label
	id, ok := s.host.AppWindow(sel.Key.Profile)
	if !ok {
		start := "vibespace-browser new " + target.ShellWord(label) + " --backend desktop-app"
		return target.Refuse(target.CodeNoCDPOnThisBackend,
			"profile %s (%s) is a desktop app, which has no DevTools, and it is not running: start it with %s, then drive its window with vibespace-window (snapshot win:N -i, click win:N @eN, type, key, screenshot)",
			label, sel.Key.Profile, start).
			With("profile", sel.Key.Profile).With("backend", profile.BackendDesktopApp).With("start", start)
	}
	r := target.Refuse(target.CodeNoCDPOnThisBackend,
		"profile %s runs as a desktop app (%s), which has no DevTools: use %s",
		label, id, strings.Join(target.WindowVerbs(id), ", ")).
		With("profile", sel.Key.Profile).With("backend", profile.BackendDesktopApp).With("target", string(id)).With("verbs", target.WindowVerbs(id))
	if seen, _ := s.env.Sees(session, id); !seen {
		r.Message += fmt.Sprintf(" — once its opener shares it with you (share %s --with %s)", id, session)
	}
	return r
}

// CDPHandle refuses a tab's handle of the old form, tab:<CDP target id>
// (before tab handles were short), naming the handle of the tab it meant
// when there is one: a target has one name, which every answer, audit row,
// lease and note uses. Whoever holds a tab's CDP id learns nothing more
// from its number. nil when id is not of that form. The core asks it too,
// of a handle its table does not have.
func (s *Stage) CDPHandle(id target.ID) error {
	key, ok := id.TabKey()
	if !ok {
		return nil
	}
	short, _ := s.host.TabKeyed(key)
	given := target.Echo(string(id))
	if short == "" {
		return target.Refuse(target.CodeUnknownTarget, "%s is not a tab handle: a tab's handle is tab:N, as tab list or open prints", given).With("target", target.Clip(string(id)))
	}
	return target.Refuse(target.CodeUnknownTarget, "%s names a tab by its CDP target id, not its handle: use %s", given, short).
		With("target", target.Clip(string(id))).With("handle", string(short))
}
