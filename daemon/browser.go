package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon/current"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// The browser's words: a session's tabs live in browser contexts (its own
// ephemeral one, or the profiles it attached); each command acts on the
// session's current tab of the context its profile choice names. The words
// on a session's tabs (open, tab, get, eval, navigation, wait) and its
// desktop apps (new, close) are the registered stage daemon/tabs's; what
// stays here is reaching the current tab, which every verb on a tab shares
// (the shared verbs, snapshot, click, …, reach it as the tab words do),
// and the hands the core lends the two browser stages (browsingHands,
// tabsHands).

// browserState is the daemon's side of the browser words: each session's
// current tab per context.
type browserState struct {
	current current.Tabs // each session's current tab per context
}

// Browsing is the browser's profile words as the core asks them: the
// profile registry, the choice of a session's browser context and its
// provider's gate, how an answer names a profile. Package daemon/browsing
// is the one the program registers, a stage that also answers the profile
// words that reach no tab (browser.profiles, use, attachments, detach,
// pin, new-child, status); the core finds it among the stages it was
// given and lends it its hands (BrowsingHost).
type Browsing interface {
	Bind(BrowsingHost)
	Registry() (*profile.Registry, error)
	// Choose resolves req's profile choice (--profile or
	// VIBESPACE_BROWSER) to a browser context; Gate refuses what its
	// provider row cannot do and fills a remote row's connect URL.
	Choose(req Request) (selection, error)
	Gate(req Request, sel *selection) error
	// RowOf is a profile's provider row.
	RowOf(p profile.Profile) provider.Row
	// Describe fills what an answer says of a profile's browser now;
	// Attached is how an answer shows an attachment, Known a profile as a
	// session sees it.
	Describe(p *ProfileInfo)
	Attached(a profile.Attachment, count int) ProfileInfo
	Known(reg *profile.Registry, session string, p profile.Profile) ProfileInfo
	// New registers the profile of a new that is no desktop app.
	New(req Request) (Response, error)
}

// BrowsingHost is what the core lends the profile words; package
// daemon/browsing spells the same interface (browsing.Host), where each
// method is said.
type BrowsingHost = interface {
	Rows() []provider.Row
	Key(scope string) (value string, ok bool, err error)
	Browser() kind.Browser
	AppWindow(profileID string) (target.ID, bool)
	CloseTabs(ctx context.Context, session string, key kind.BrowserKey)
	Tabs(session string) []TargetInfo
	Status(ctx context.Context, session string) *Status
}

// browsingOf finds the stage that chooses a session's browser profile.
func browsingOf(ch *stage.Chain) (Browsing, error) {
	for _, s := range ch.Stages() {
		if b, ok := s.(Browsing); ok {
			return b, nil
		}
	}
	return nil, errors.New("daemon: no registered stage chooses a session's browser profile (package daemon/browsing)")
}

// browsingHands is the core as the profile words see it (BrowsingHost).
type browsingHands struct{ d *Daemon }

func (h browsingHands) Rows() []provider.Row                   { return h.d.law.Rows() }
func (h browsingHands) Key(scope string) (string, bool, error) { return h.d.keys.Get(scope) }
func (h browsingHands) Browser() kind.Browser                  { return h.d.cfg.Browser }

func (h browsingHands) AppWindow(profileID string) (target.ID, bool) {
	if e := h.d.appWindow(profileID); e != nil {
		return e.id, true
	}
	return "", false
}

// CloseTabs closes and forgets the session's tabs in key's context.
func (h browsingHands) CloseTabs(ctx context.Context, session string, key kind.BrowserKey) {
	d := h.d
	tabs := d.entries(func(e *entry) bool {
		return e.tab != nil && e.tab.key.String() == key.String() && e.rec.ExposedTo(session)
	})
	if len(tabs) > 0 && d.cfg.Browser != nil && d.cfg.Browser.Running(key.Profile) {
		for _, e := range tabs {
			e.t.Close(ctx)
		}
	}
	for _, e := range tabs {
		d.drop(e.id)
	}
}

func (h browsingHands) Tabs(session string) []TargetInfo {
	var out []TargetInfo
	for _, e := range h.d.entries(func(e *entry) bool { return e.tab != nil && e.rec.ExposedTo(session) }) {
		out = append(out, *h.d.info(e))
	}
	return out
}

func (h browsingHands) Status(ctx context.Context, session string) *Status {
	return h.d.status(ctx, &call{Call: stage.Call{Req: Request{Session: session}}}).Status
}

// tabState is what the browser words keep beside a tab target: the
// context it lives in and how answers name its profile. It does not change.
type tabState struct {
	key  kind.BrowserKey
	prof ProfileInfo
}

// selection is a resolved profile choice: which browser context, and how
// answers name it. A desktop app's profile (App) has no browser context:
// its browser is a window (package daemon/tabs). Row is the profile's provider
// row (chromium for an ephemeral context): the verbs it cannot do are
// refused before anything runs. Package daemon/browsing spells the same
// type (browsing.Selection).
type selection = struct {
	Key  kind.BrowserKey
	Prof ProfileInfo
	App  bool
	Row  provider.Row
}

// wasClosed reports whether id named a tab that has closed: a tab:N the
// daemon's tab counter passed (this daemon's, or one before it on this
// state directory: tabs die with a daemon) and no tab has now.
func (d *Daemon) wasClosed(id target.ID) bool {
	n := id.TabNumber()
	d.mu.Lock()
	defer d.mu.Unlock()
	return n > 0 && n <= d.nextTab && d.targets[id] == nil
}

// browserContext resolves req's profile and reaches its browser context,
// which counts as in use until c.done runs. The answer names the profile
// once one was chosen. A desktop app's profile has none: every page verb
// on it is refused no_cdp_on_this_backend, naming its window.
func (d *Daemon) browserContext(ctx context.Context, c *call) (kind.BrowserContext, error) {
	sel, err := d.browsing.Choose(c.Req)
	if err != nil {
		return nil, err
	}
	c.sel = &sel
	if sel.App {
		return nil, d.noCDP(c.Req.Session, sel)
	}
	if d.cfg.Browser == nil {
		return nil, kind.NoBrowser()
	}
	if err := d.browsing.Gate(c.Req, &sel); err != nil {
		return nil, err
	}
	c.sel = &sel
	if sel.Key.Headed {
		p, err := d.reg.ProviderFor("")
		if err != nil {
			return nil, err
		}
		disp, err := d.reg.Ensure(ctx, p)
		if err != nil {
			return nil, err
		}
		sel.Key.Display = disp.Kind().Name()
		c.sel = &sel
	}
	bc, release, err := d.cfg.Browser.Context(ctx, sel.Key)
	if release != nil {
		c.done = release
	}
	return bc, err
}

// reachTab reaches the session's current tab in the chosen context for a
// verb of vibespace-browser's, under its lease (reads take it too;
// browser_paused while the user drives).
func (d *Daemon) reachTab(ctx context.Context, c *call) error {
	if _, err := d.browserContext(ctx, c); err != nil {
		return err
	}
	id, ok := d.br.current.Get(c.Req.Session, c.sel.Key)
	if !ok {
		return target.Refuse(target.CodeNoTab, "no current tab in %s: run open <url> first (or tab select <id>, from tab list)", where(*c.sel)).With("profile", c.sel.Prof.ID)
	}
	return d.reachTabID(ctx, c, id, true)
}

// reachTabID reaches tab id of the chosen context for the session, under its
// lease. known says id came from the daemon (the session's current tab), so
// a tab that is not there has closed; a handle the caller gave that names no
// tab this daemon ever had is unknown_target, not tab_gone (and one of the
// old form, tab:<CDP id>, is told the tab's handle: cdpHandle).
func (d *Daemon) reachTabID(ctx context.Context, c *call, id target.ID, known bool) error {
	e := d.entryOf(id)
	if e == nil || e.tab == nil {
		if !known {
			if err := d.cdpHandle(id); err != nil {
				return err
			}
		}
		if !known && !d.wasClosed(id) {
			return target.Refuse(target.CodeUnknownTarget, "there is no tab %s (tab list shows yours)", id).With("target", string(id))
		}
		d.br.current.Forget(id)
		return target.Refuse(target.CodeTabGone, "tab %s has closed (run open <url> for a new one)", id).With("target", string(id))
	}
	if !d.exposedTo(e, c.Req.Session) || e.tab.key.String() != c.sel.Key.String() {
		return target.Refuse(target.CodeNotYourTab, "tab %s belongs to another session or profile", id).With("target", string(id))
	}
	if _, err := d.refreshTab(ctx, e); err != nil {
		return err
	}
	c.e = e
	return d.take(c)
}

// where names a selection's context in words (package daemon/tabs says it
// the same way in tab list).
func where(sel selection) string {
	if sel.Key.Profile != "" {
		return fmt.Sprintf("profile %s (%s)", sel.Prof.Label, sel.Key.Profile)
	}
	return "this session's own browser context"
}

// newTab opens a blank tab in bc and makes it a target of the session,
// leased to it and its current tab in the context. Its handle is tab:N, the
// next number of the daemon's tab counter (apart from the windows'): never
// minted twice, across restarts too (the counter is persisted), so a
// handle an agent kept, or an audit row names, never means another tab.
func (d *Daemon) newTab(ctx context.Context, c *call, bc kind.BrowserContext) error {
	kt, err := bc.NewTab(ctx)
	if err != nil {
		return err
	}
	info, err := kt.Info(ctx)
	if err != nil {
		kt.Close(context.WithoutCancel(ctx))
		return err
	}
	d.mu.Lock()
	d.nextTab++
	id := target.TabID(d.nextTab)
	d.mu.Unlock()
	rec := target.Target{
		ID: id, Kind: target.KindTab, Title: info.Title, App: info.App, Origin: c.Req.Session,
		Opened: d.cfg.Now().UTC(), Key: info.Key, Exposure: []string{c.Req.Session},
	}
	c.e = d.add(rec, kt, nil, &tabState{key: c.sel.Key, prof: c.sel.Prof}, info)
	d.br.current.Set(c.Req.Session, c.sel.Key, rec.ID)
	return d.take(c)
}

// locked runs f on c's target under its lock and the flight map a takeover
// cancels, and answers.
func (d *Daemon) locked(ctx context.Context, c *call, f func(ctx context.Context) (Response, error)) Response {
	ctx, end, err := d.begin(ctx, c.e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	resp, err := f(ctx)
	if err != nil {
		return d.fail(c, d.cut(ctx, c.e, c.Req.Session, err))
	}
	return d.finish(c, resp, nil)
}

// refreshTab re-reads a tab (refresh) and, when the address state.json
// keeps of it (bareURL) changed, persists it: a daemon killed next names
// the tab lost by where it was (the tabs' Lost), not where it was opened.
func (d *Daemon) refreshTab(ctx context.Context, e *entry) (kind.Info, error) {
	d.mu.Lock()
	was := bareURL(e.rec.App)
	d.mu.Unlock()
	info, err := d.refresh(ctx, e)
	d.mu.Lock()
	now := bareURL(e.rec.App)
	d.mu.Unlock()
	if err == nil && now != was {
		d.persist()
	}
	return info, err
}

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

// Tabs is the words on a session's tabs and its desktop apps as the core
// asks them: package daemon/tabs is the one the program registers, a
// stage that answers open, tab, get, eval, back, forward, reload, wait,
// new and close; the core finds it among the stages it was given, lends
// it its hands (TabsHost), and has it tell the tabs an earlier daemon
// lost (Lost).
type Tabs interface {
	Bind(TabsHost)
	Lost(lost []target.Target)
}

// TabsHost is what the core lends the tab words; package daemon/tabs
// spells the same interface (tabs.Host), where each method is said.
type TabsHost = interface {
	Rows() []provider.Row
	Browser() kind.Browser
	Context(ctx context.Context, c *stage.Call) (bc kind.BrowserContext, sel selection, err error)
	Current(session string, key kind.BrowserKey) (target.ID, bool)
	SetCurrent(session string, key kind.BrowserKey, id target.ID)
	ReachCurrent(ctx context.Context, c *stage.Call) error
	Reach(ctx context.Context, c *stage.Call, id target.ID, known bool) error
	NewTab(ctx context.Context, c *stage.Call, bc kind.BrowserContext) error
	Reached(c *stage.Call) kind.Target
	Locked(ctx context.Context, c *stage.Call, f func(ctx context.Context) (Response, error)) (Response, error)
	Navigated(ctx context.Context, c *stage.Call) (title, url string, err error)
	Relist(ctx context.Context, c *stage.Call) (kind.Info, error)
	Seen(c *stage.Call) kind.Info
	NodeText(ctx context.Context, c *stage.Call, ref string) (Response, error)
	CloseTab(ctx context.Context, c *stage.Call) (gone *TargetInfo, err error)
	TabsIn(ctx context.Context, session string, key kind.BrowserKey) (mine []TargetInfo, others int)
	Display(name string) error
	AppWindow(ctx context.Context, profileID string) (target.ID, bool)
	TakeApp(ctx context.Context, c *stage.Call, profileID string) (id target.ID, running bool, err error)
	Open(ctx context.Context, c *stage.Call, profileID string) Response
	Stop(ctx context.Context, c *stage.Call) error
	ReachWindow(ctx context.Context, c *stage.Call) error
	CloseWindow(ctx context.Context, c *stage.Call) Response
}

// tabsOf finds the stage that answers the words on a session's tabs.
func tabsOf(ch *stage.Chain) (Tabs, error) {
	for _, s := range ch.Stages() {
		if t, ok := s.(Tabs); ok {
			return t, nil
		}
	}
	return nil, errors.New("daemon: no registered stage answers the words on a session's tabs (package daemon/tabs)")
}

// tabsHands is the core as the tab words see it (TabsHost). Each method
// is handed the stage's view of a call the core is answering (guarded),
// and works on the core's call behind it (callOf).
type tabsHands struct{ d *Daemon }

// callKey keeps, in the stages' view of a call, the core's call behind it.
type callKey struct{}

// callOf is the core's call behind the stages' view of it.
func callOf(sc *stage.Call) *call { return sc.Get(callKey{}).(*call) }

func (h tabsHands) Rows() []provider.Row  { return h.d.law.Rows() }
func (h tabsHands) Browser() kind.Browser { return h.d.cfg.Browser }

func (h tabsHands) Context(ctx context.Context, sc *stage.Call) (kind.BrowserContext, selection, error) {
	c := callOf(sc)
	bc, err := h.d.browserContext(ctx, c)
	if err != nil {
		return nil, selection{}, err
	}
	return bc, *c.sel, nil
}

func (h tabsHands) Current(session string, key kind.BrowserKey) (target.ID, bool) {
	return h.d.br.current.Get(session, key)
}

func (h tabsHands) SetCurrent(session string, key kind.BrowserKey, id target.ID) {
	h.d.br.current.Set(session, key, id)
}

func (h tabsHands) ReachCurrent(ctx context.Context, sc *stage.Call) error {
	c := callOf(sc)
	defer c.reached(h.d)
	return h.d.reachTab(ctx, c)
}

func (h tabsHands) Reach(ctx context.Context, sc *stage.Call, id target.ID, known bool) error {
	c := callOf(sc)
	defer c.reached(h.d)
	return h.d.reachTabID(ctx, c, id, known)
}

func (h tabsHands) NewTab(ctx context.Context, sc *stage.Call, bc kind.BrowserContext) error {
	c := callOf(sc)
	defer c.reached(h.d)
	return h.d.newTab(ctx, c, bc)
}

func (h tabsHands) Reached(sc *stage.Call) kind.Target {
	if c := callOf(sc); c.e != nil {
		return c.e.t
	}
	return nil
}

// Locked is locked without the answer: the verb path finishes it.
func (h tabsHands) Locked(ctx context.Context, sc *stage.Call, f func(ctx context.Context) (Response, error)) (Response, error) {
	c := callOf(sc)
	ctx, end, err := h.d.begin(ctx, c.e)
	if err != nil {
		return Response{}, err
	}
	defer end()
	resp, err := f(ctx)
	if err != nil {
		return Response{}, h.d.cut(ctx, c.e, c.Req.Session, err)
	}
	return resp, nil
}

// Navigated re-reads a tab's title and URL after it navigated; a tab that
// went meanwhile is its gone refusal.
func (h tabsHands) Navigated(ctx context.Context, sc *stage.Call) (title, url string, err error) {
	info, err := h.d.refreshTab(ctx, callOf(sc).e)
	return info.Title, info.App, err
}

func (h tabsHands) Relist(ctx context.Context, sc *stage.Call) (kind.Info, error) {
	return h.d.relist(ctx, callOf(sc).e)
}

func (h tabsHands) Seen(sc *stage.Call) kind.Info { return h.d.seen(callOf(sc).e) }

func (h tabsHands) NodeText(ctx context.Context, sc *stage.Call, ref string) (Response, error) {
	return h.d.nodeText(ctx, callOf(sc), ref) // verb_find.go
}

func (h tabsHands) CloseTab(ctx context.Context, sc *stage.Call) (*TargetInfo, error) {
	c := callOf(sc)
	info := h.d.info(c.e)
	if err := c.e.t.Close(ctx); err != nil {
		return nil, err
	}
	h.d.drop(c.e.id)
	c.e = nil
	c.reached(h.d)
	return h.d.gone(info), nil
}

func (h tabsHands) TabsIn(ctx context.Context, session string, key kind.BrowserKey) ([]TargetInfo, int) {
	d := h.d
	tabs := d.entries(func(e *entry) bool { return e.tab != nil && e.tab.key.String() == key.String() })
	slices.SortFunc(tabs, func(a, b *entry) int { return a.id.TabNumber() - b.id.TabNumber() })
	var mine []TargetInfo
	others := 0
	for _, e := range tabs {
		if !d.exposedTo(e, session) {
			others++
			continue
		}
		if _, err := d.relist(ctx, e); target.CodeOf(err) == target.CodeTabGone {
			continue
		}
		mine = append(mine, *d.info(e))
	}
	return mine, others
}

func (h tabsHands) Display(name string) error {
	_, err := h.d.reg.ProviderFor(name)
	return err
}

// AppWindow is appWindow read afresh: a window whose Chromium has gone
// is dropped, and none.
func (h tabsHands) AppWindow(ctx context.Context, profileID string) (target.ID, bool) {
	if e := h.liveAppWindow(ctx, profileID); e != nil {
		return e.id, true
	}
	return "", false
}

func (h tabsHands) liveAppWindow(ctx context.Context, profileID string) *entry {
	e := h.d.appWindow(profileID)
	if e == nil {
		return nil
	}
	if _, err := h.d.refresh(ctx, e); target.CodeOf(err) == target.CodeWindowGone {
		return nil
	}
	return e
}

// TakeApp takes the lease of a desktop app's running window for new: the
// session must be exposed to it, and no other may hold it.
func (h tabsHands) TakeApp(ctx context.Context, sc *stage.Call, profileID string) (target.ID, bool, error) {
	e := h.liveAppWindow(ctx, profileID)
	if e == nil {
		return "", false, nil
	}
	d, c := h.d, callOf(sc)
	defer c.reached(d)
	d.mu.Lock()
	err := e.rec.CheckExposed(c.Req.Session)
	d.mu.Unlock()
	if err != nil {
		return e.id, true, err
	}
	c.e = e
	return e.id, true, d.take(c)
}

func (h tabsHands) Open(ctx context.Context, sc *stage.Call, profileID string) Response {
	return h.d.openAs(ctx, callOf(sc), profileID)
}

func (h tabsHands) Stop(ctx context.Context, sc *stage.Call) error {
	c := callOf(sc)
	err := c.e.t.Close(context.WithoutCancel(ctx))
	h.d.drop(c.e.id)
	c.e = nil
	c.reached(h.d)
	return err
}

func (h tabsHands) ReachWindow(ctx context.Context, sc *stage.Call) error {
	c := callOf(sc)
	defer c.reached(h.d)
	return h.d.reachHandle(ctx, c)
}

func (h tabsHands) CloseWindow(ctx context.Context, sc *stage.Call) Response {
	return h.d.closeTarget(ctx, callOf(sc))
}
