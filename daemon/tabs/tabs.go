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
// choice of the context, the current tab, the tab's lease — is this
// package's too (reach.go), and the core asks it for every shared verb on
// a tab (snapshot, click, …: Reach); the core lends the package the
// primitives of its target table and the rest of its hands as the daemon
// makes it (Host, which it asserts stage.Env.Hands to). The profile words it chooses and names
// profiles with are the stage daemon/browsing's, which the program hands
// it as it makes it (Profiles). The package never imports the core
// (layout_test.go).
package tabs

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"maps"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon/current"
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
// how answers name it (Prof). Package daemon/browsing, which chooses it,
// spells the same type (browsing.Selection).
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
	// Choose resolves req's profile choice (--profile or
	// VIBESPACE_BROWSER) to a browser context; Gate refuses what its
	// provider row cannot do and fills a remote row's connect URL.
	Choose(req wire.Request) (Selection, error)
	Gate(req wire.Request, a args.Args, sel *Selection) error
	// RowOf is a profile's provider row.
	RowOf(p profile.Profile) provider.Row
	// Attached is how an answer shows an attachment, Known a profile as a
	// session sees it.
	Attached(a profile.Attachment, count int) wire.ProfileInfo
	Known(reg *profile.Registry, session string, p profile.Profile) wire.ProfileInfo
	// New registers the profile of a new that is no desktop app.
	New(req wire.Request, a args.New) (wire.Response, error)
}

// Host is what the core lends the tabs: the primitives of its target
// table (look a tab up, add one, re-read one, take a target's lease), the
// reach of a window, the lock a verb runs under, and the verb path's own
// finish where open and close of a window write their audit row. A method
// that takes the stages' view of a call works on the call the core is
// answering; one that reaches or drops a target leaves the call's Target
// the one the call reaches now (nil for none). Whether a session may
// address a target is stage.Env.Sees. The core lends it as
// stage.Env.Hands.
type Host interface {
	// Rows is the provider table the daemon reads.
	Rows() []provider.Row
	// Browser is the browser backend, nil when the daemon has none.
	Browser() kind.Browser
	// Named has c's answer name the profile prof (the one c chose).
	Named(c *stage.Call, prof wire.ProfileInfo)
	// Hold keeps release (what reaching a browser context took) until c's
	// call ends, and runs it then.
	Hold(c *stage.Call, release func())
	// HeadedDisplay names the display a headed browser shows on, started
	// when it does not run.
	HeadedDisplay(ctx context.Context) (string, error)
	// Tab is the browser context tab id lives in; ok false when the table
	// has no tab id.
	Tab(id target.ID) (key kind.BrowserKey, ok bool)
	// Closed reports whether id named a tab that has closed: a tab:N the
	// daemon's tab counter passed (this daemon's, or one before it on this
	// state directory: tabs die with a daemon) and no tab has now.
	Closed(id target.ID) bool
	// TabKeyed is the tab whose backend key (its CDP target id) is key;
	// ok false when the table has none.
	TabKeyed(key string) (id target.ID, ok bool)
	// Refresh re-reads target id from its backend, as a verb does (a tab
	// after it navigated: its title and URL now), and answers what it
	// read; the address of a tab kept in state.json is persisted when it
	// changed (a daemon killed next names the tab lost by where it was).
	// One that went is dropped and refused by its kind's gone code.
	Refresh(ctx context.Context, id target.ID) (kind.Info, error)
	// AddTab adds kt, a tab opened in key's context and read as info, to
	// the table: a target of c's session, leased to it, and the target c
	// reaches. Its handle is tab:N, the next number of the daemon's tab
	// counter (apart from the windows'): never minted twice, across
	// restarts too (the counter is persisted), so a handle an agent kept,
	// or an audit row names, never means another tab.
	AddTab(c *stage.Call, kt kind.Target, info kind.Info, key kind.BrowserKey, prof wire.ProfileInfo) target.ID
	// Lease makes target id the one c reaches and takes its lease for c's
	// session (reads take it too; browser_paused while the user drives),
	// persisting a lease it acquired; a target that left the table is
	// refused by its kind's gone code.
	Lease(c *stage.Call, id target.ID) error
	// Reached is the backend of the target c reached, nil when none.
	Reached(c *stage.Call) kind.Target
	// Locked runs f on c's target under its lock and the flight map a
	// takeover cancels; a failure is as the takeover cut it.
	Locked(ctx context.Context, c *stage.Call, f func(ctx context.Context) (wire.Response, error)) (wire.Response, error)
	// Relist re-reads the facts of c's target as the page has them now;
	// Seen is what was last read of it.
	Relist(ctx context.Context, c *stage.Call) (kind.Info, error)
	Seen(c *stage.Call) kind.Info
	// NodeText answers the text of the node ref of c's target.
	NodeText(ctx context.Context, c *stage.Call, ref string) (wire.Response, error)
	// CloseTab closes c's tab and forgets it; gone is how an answer names
	// it now.
	CloseTab(ctx context.Context, c *stage.Call) (gone *wire.TargetInfo, err error)
	// TabsOf is the tabs in key's context, of every session, in tab
	// order; Listed re-reads target id afresh, as list does, and names it
	// as an answer does (a tab that went is refused tab_gone).
	TabsOf(key kind.BrowserKey) []target.ID
	Listed(ctx context.Context, id target.ID) (*wire.TargetInfo, error)
	// Display refuses a display this daemon cannot open windows on.
	Display(name string) error
	// AppWindow is the window a desktop app's profile runs as, as last
	// read (ok false when it does not run).
	AppWindow(profileID string) (target.ID, bool)
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
	current current.Tabs  // each session's current tab per context (reach.go)
	appSlot chan struct{} // one slot: one desktop app starting at a time (desktopapp.go)
}

// New makes the stage, which chooses and names profiles with profs, with
// the core's hands (env.Hands, a Host; nil lends none).
func New(env stage.Env, profs Profiles) (stage.Stage, error) {
	s := &Stage{env: env, profs: profs, appSlot: make(chan struct{}, 1)}
	if env.Hands != nil {
		h, ok := env.Hands.(Host)
		if !ok {
			return nil, fmt.Errorf("the core's hands (%T) are not what the tab words need (tabs.Host)", env.Hands)
		}
		s.host = h
	}
	return s, nil
}

func (s *Stage) Name() string { return Name }

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

// where names a selection's context in words.
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
