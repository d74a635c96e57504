// Package tabs is a session's tabs, out of the daemon's core: opening,
// choosing, reading and closing them (vibespace-browser's open, tab, get,
// eval, back, forward, reload and wait), and the desktop app (new and
// close of a profile whose browser is a real Chromium run as a window),
// which it answers as a registered stage (stage.Answerer,
// cmd/vibespace-daemon/stages). It also tells each session the tabs an
// earlier daemon lost when it was killed (Lost).
//
// A session's tabs live in browser contexts (its own ephemeral one, or
// the profiles it attached); each command acts on the session's current
// tab of the context its profile choice names. Reaching that tab — the
// choice of the context, the current tab, the tab's lease — stays the
// core's, since every shared verb on a tab (snapshot, click, …) reaches it
// too; the core lends the package that and the rest of its hands once, as
// the daemon is made (Bind, Host). The profile words it names profiles
// with are the stage daemon/browsing's, which the program hands it as it
// makes it (Profiles). The package never imports the core (layout_test.go).
package tabs

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"maps"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "tabs"

// Selection is a resolved profile choice: which browser context (Key), and
// how answers name it (Prof). The core and package daemon/browsing spell
// the same type.
type Selection = struct {
	Key  kind.BrowserKey
	Prof wire.ProfileInfo
	App  bool
	Row  provider.Row
}

// Profiles is what the tabs ask of the profile words (the stage
// daemon/browsing, which the program hands New).
type Profiles interface {
	// Registry is the profile registry of the state directory.
	Registry() (*profile.Registry, error)
	// RowOf is a profile's provider row.
	RowOf(p profile.Profile) provider.Row
	// Attached is how an answer shows an attachment, Known a profile as a
	// session sees it.
	Attached(a profile.Attachment, count int) wire.ProfileInfo
	Known(reg *profile.Registry, session string, p profile.Profile) wire.ProfileInfo
	// New registers the profile of a new that is no desktop app.
	New(req wire.Request, a args.New) (wire.Response, error)
}

// Host is what the core lends the tabs: the reach of a tab (which every
// verb on a tab shares) and of a window, the lease, the target table, and
// the verb path's own finish where open and close of a window write their
// audit row. Each method takes the stages' view of a call the core is
// answering. A method that reaches or drops a target leaves the call's
// Target the one the call reaches now (nil for none). The core spells the
// same interface (daemon.TabsHost).
type Host = interface {
	// Rows is the provider table the daemon reads.
	Rows() []provider.Row
	// Browser is the browser backend, nil when the daemon has none.
	Browser() kind.Browser
	// Context resolves c's profile choice and reaches its browser
	// context, which counts as in use until the call ends; sel is the
	// choice (named by the answer once made). A desktop app's profile has
	// none: it is refused no_cdp_on_this_backend, naming its window.
	Context(ctx context.Context, c *stage.Call) (bc kind.BrowserContext, sel Selection, err error)
	// Current is the session's current tab in key's context; SetCurrent
	// makes id that tab.
	Current(session string, key kind.BrowserKey) (target.ID, bool)
	SetCurrent(session string, key kind.BrowserKey, id target.ID)
	// ReachCurrent reaches the session's current tab in the chosen context,
	// under its lease (no_tab when there is none).
	ReachCurrent(ctx context.Context, c *stage.Call) error
	// Reach reaches tab id of the chosen context under its lease; known
	// says id came from the daemon (a tab not there has closed), else a
	// handle no tab ever had is unknown_target.
	Reach(ctx context.Context, c *stage.Call, id target.ID, known bool) error
	// NewTab opens a blank tab in bc, a target of the session leased to it
	// and its current tab in the context.
	NewTab(ctx context.Context, c *stage.Call, bc kind.BrowserContext) error
	// Reached is the backend of the target c reached, nil when none.
	Reached(c *stage.Call) kind.Target
	// Locked runs f on c's target under its lock and the flight map a
	// takeover cancels; a failure is as the takeover cut it.
	Locked(ctx context.Context, c *stage.Call, f func(ctx context.Context) (wire.Response, error)) (wire.Response, error)
	// Navigated re-reads c's tab after it navigated (persisting the
	// address kept of it when it changed); Relist re-reads its facts as
	// the page has them now; Seen is what was last read of it.
	Navigated(ctx context.Context, c *stage.Call) (title, url string, err error)
	Relist(ctx context.Context, c *stage.Call) (kind.Info, error)
	Seen(c *stage.Call) kind.Info
	// NodeText answers the text of the node ref of c's target.
	NodeText(ctx context.Context, c *stage.Call, ref string) (wire.Response, error)
	// CloseTab closes c's tab and forgets it; gone is how an answer names
	// it now.
	CloseTab(ctx context.Context, c *stage.Call) (gone *wire.TargetInfo, err error)
	// TabsIn is the session's tabs in key's context, in tab order, each
	// read afresh (a tab that went meanwhile is left out), and how many
	// other sessions' tabs there are.
	TabsIn(ctx context.Context, session string, key kind.BrowserKey) (mine []wire.TargetInfo, others int)
	// Display refuses a display this daemon cannot open windows on.
	Display(name string) error
	// AppWindow is the window a desktop app's profile runs as, read
	// afresh (ok false when it does not run, or its Chromium has gone).
	AppWindow(ctx context.Context, profileID string) (target.ID, bool)
	// TakeApp reaches that window and takes its lease for c's session
	// (which must be exposed to it); running is false when none runs.
	TakeApp(ctx context.Context, c *stage.Call, profileID string) (id target.ID, running bool, err error)
	// Open is open of c's request for a window that is the browser of
	// profileID; it finishes the call (its audit row).
	Open(ctx context.Context, c *stage.Call, profileID string) wire.Response
	// Stop closes the window c opened and forgets it.
	Stop(ctx context.Context, c *stage.Call) error
	// ReachWindow reaches the window of c's request's handle under its
	// lease, as vibespace-window's verbs do; CloseWindow is close on it,
	// and finishes the call.
	ReachWindow(ctx context.Context, c *stage.Call) error
	CloseWindow(ctx context.Context, c *stage.Call) wire.Response
}

// Stage is the tabs' stage.
type Stage struct {
	env     stage.Env
	host    Host
	profs   Profiles
	appSlot chan struct{} // one slot: one desktop app starting at a time (desktopapp.go)
}

// New makes the stage, which names profiles with profs; the core binds it
// to its hands (Bind) once made.
func New(env stage.Env, profs Profiles) (stage.Stage, error) {
	return &Stage{env: env, profs: profs, appSlot: make(chan struct{}, 1)}, nil
}

func (s *Stage) Name() string { return Name }

// Bind lends the stage the core's hands, once, as the daemon is made.
func (s *Stage) Bind(h Host) { s.host = h }

// Verbs are the browser's words on a session's tabs and its desktop apps.
func (s *Stage) Verbs() []string {
	return []string{"browser.open", "browser.tab", "browser.get", "browser.eval", "browser.back",
		"browser.forward", "browser.reload", "browser.wait", "browser.new", "browser.close"}
}

// Check checks a request of Verbs, beyond its arguments' own rules,
// before it reaches anything (so a malformed request takes no lease):
// new's provider and a desktop app's settings.
func (s *Stage) Check(c *stage.Call) error {
	if a, ok := c.Args.(args.New); ok {
		return s.checkNew(a)
	}
	return nil
}

// Answer answers one of Verbs. The tab verbs that reach the current tab
// (get, eval, back, forward, reload, wait) find it reached.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	switch c.Req.Verb {
	case "browser.open":
		return s.open(ctx, c)
	case "browser.tab":
		return s.tab(ctx, c)
	case "browser.get":
		return s.get(ctx, c)
	case "browser.eval":
		return s.eval(ctx, c)
	case "browser.back":
		return s.navVerb(ctx, c, "went back", kind.Navigator.Back)
	case "browser.forward":
		return s.navVerb(ctx, c, "went forward", kind.Navigator.Forward)
	case "browser.reload":
		return s.navVerb(ctx, c, "reloaded", kind.Navigator.Reload)
	case "browser.wait":
		return s.wait(ctx, c)
	case "browser.new":
		return s.browserNew(ctx, c)
	case "browser.close":
		return s.browserClose(ctx, c)
	}
	return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s does not answer %s", Name, c.Req.Verb)
}

// where names a selection's context in words (the core's reach says it
// the same way).
func where(sel Selection) string {
	if sel.Key.Profile != "" {
		return fmt.Sprintf("profile %s (%s)", sel.Prof.Label, sel.Key.Profile)
	}
	return "this session's own browser context"
}

// Lost owes each session the tabs it could address that an earlier
// daemon had open when it was killed: they died with its browser, and
// nothing else would say so (tab list would just be shorter). One notice a
// session, naming each tab and its address as state.json kept it (scheme,
// host and path), told once on its next browser answer. A daemon stopped
// on purpose closed its tabs and kept none, so it owes nothing.
func (s *Stage) Lost(lost []target.Target) {
	by := map[string][]target.Target{}
	for _, t := range lost {
		ss := t.Exposure
		if len(ss) == 0 && t.Origin != "" {
			ss = []string{t.Origin}
		}
		for _, s := range ss {
			if s != "" && !slices.ContainsFunc(by[s], func(u target.Target) bool { return u.ID == t.ID }) {
				by[s] = append(by[s], t)
			}
		}
	}
	for _, sess := range slices.Sorted(maps.Keys(by)) {
		ts := by[sess]
		slices.SortFunc(ts, func(a, b target.Target) int { return a.ID.TabNumber() - b.ID.TabNumber() })
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = string(t.ID)
			if t.App != "" {
				names[i] += " (" + t.App + ")"
			}
		}
		text := names[0] + " was lost when the daemon restarted"
		if n := len(names); n > 1 {
			text = strings.Join(names[:n-1], ", ") + " and " + names[n-1] + " were lost when the daemon restarted"
		}
		s.env.Owe(notice.Notice{Session: sess, Target: ts[0].ID, Text: text})
	}
}
