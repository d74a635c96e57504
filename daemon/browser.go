package daemon

import (
	"context"
	"errors"
	"slices"

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
// desktop apps (new, close), and the reach of the current tab, which every
// verb on a tab shares (the shared verbs, snapshot, click, …, ask it:
// Tabs.Reach), are the registered stage daemon/tabs's; what stays here is
// the hands the core lends the two browser stages (browsingHands,
// tabsHands): the target table's primitives.

// Browsing is the browser's profile words as the core asks them: the
// profile registry, and how an answer names a profile. Package
// daemon/browsing is the one the program registers, a stage that also
// chooses a session's browser context for the tab words (daemon/tabs) and
// answers the profile words that reach no tab (browser.profiles, use,
// attachments, detach, pin, new-child, status); the core finds it among
// the stages it was given and lends it its hands (BrowsingHost).
type Browsing interface {
	Bind(BrowsingHost)
	Registry() (*profile.Registry, error)
	// Describe fills what an answer says of a profile's browser now.
	Describe(p *ProfileInfo)
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

func (h browsingHands) Rows() []provider.Row                   { return h.d.rows() }
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

// Tabs is the words on a session's tabs and its desktop apps as the core
// asks them: package daemon/tabs is the one the program registers, a
// stage that answers open, tab, get, eval, back, forward, reload, wait,
// new and close; the core finds it among the stages it was given, lends
// it its hands (TabsHost), has it reach the session's current tab for
// every other verb on a tab (Reach), tells it a target left the table
// (Forget: it keeps each session's current tab), and has it tell the tabs
// an earlier daemon lost (Lost).
type Tabs interface {
	Bind(TabsHost)
	Reach(ctx context.Context, c *stage.Call) error
	Forget(id target.ID)
	Lost(lost []target.Target)
}

// TabsHost is what the core lends the tab words; package daemon/tabs
// spells the same interface (tabs.Host), where each method is said.
type TabsHost = interface {
	Rows() []provider.Row
	Browser() kind.Browser
	Named(c *stage.Call, prof ProfileInfo)
	Hold(c *stage.Call, release func())
	HeadedDisplay(ctx context.Context) (string, error)
	Tab(id target.ID) (key kind.BrowserKey, ok bool)
	Closed(id target.ID) bool
	CDPHandle(id target.ID) error
	Refresh(ctx context.Context, id target.ID) error
	AddTab(c *stage.Call, kt kind.Target, info kind.Info, key kind.BrowserKey, prof ProfileInfo) target.ID
	Lease(c *stage.Call, id target.ID) error
	Reached(c *stage.Call) kind.Target
	Locked(ctx context.Context, c *stage.Call, f func(ctx context.Context) (Response, error)) (Response, error)
	Navigated(ctx context.Context, c *stage.Call) (title, url string, err error)
	Relist(ctx context.Context, c *stage.Call) (kind.Info, error)
	Seen(c *stage.Call) kind.Info
	NodeText(ctx context.Context, c *stage.Call, ref string) (Response, error)
	CloseTab(ctx context.Context, c *stage.Call) (gone *TargetInfo, err error)
	TabsIn(ctx context.Context, session string, key kind.BrowserKey) (mine []TargetInfo, others int)
	Display(name string) error
	RunsAs(profileID string) (target.ID, bool)
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

func (h tabsHands) Rows() []provider.Row  { return h.d.rows() }
func (h tabsHands) Browser() kind.Browser { return h.d.cfg.Browser }

func (h tabsHands) Named(sc *stage.Call, prof ProfileInfo) { callOf(sc).prof = &prof }

func (h tabsHands) Hold(sc *stage.Call, release func()) { callOf(sc).done = release }

// HeadedDisplay is the first registered display, started when it is not
// running: a headed browser shows on it.
func (h tabsHands) HeadedDisplay(ctx context.Context) (string, error) {
	p, err := h.d.reg.ProviderFor("")
	if err != nil {
		return "", err
	}
	disp, err := h.d.reg.Ensure(ctx, p)
	if err != nil {
		return "", err
	}
	return disp.Kind().Name(), nil
}

func (h tabsHands) Tab(id target.ID) (kind.BrowserKey, bool) {
	if e := h.d.entryOf(id); e != nil && e.tab != nil {
		return e.tab.key, true
	}
	return kind.BrowserKey{}, false
}

// Closed: a tab:N the daemon's tab counter passed and no tab has now.
func (h tabsHands) Closed(id target.ID) bool {
	n := id.TabNumber()
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	return n > 0 && n <= h.d.nextTab && h.d.targets[id] == nil
}

func (h tabsHands) CDPHandle(id target.ID) error { return h.d.cdpHandle(id) }

func (h tabsHands) Refresh(ctx context.Context, id target.ID) error {
	e := h.d.entryOf(id)
	if e == nil {
		return goneNow(id)
	}
	_, err := h.d.refreshTab(ctx, e)
	return err
}

// AddTab mints the tab's handle, tab:N, from the daemon's tab counter,
// which is persisted.
func (h tabsHands) AddTab(sc *stage.Call, kt kind.Target, info kind.Info, key kind.BrowserKey, prof ProfileInfo) target.ID {
	d, c := h.d, callOf(sc)
	defer c.reached(d)
	d.mu.Lock()
	d.nextTab++
	id := target.TabID(d.nextTab)
	d.mu.Unlock()
	rec := target.Target{
		ID: id, Kind: target.KindTab, Title: info.Title, App: info.App, Origin: c.Req.Session,
		Opened: d.cfg.Now().UTC(), Key: info.Key, Exposure: []string{c.Req.Session},
	}
	c.e = d.add(rec, kt, nil, &tabState{key: key, prof: prof}, info)
	return id
}

func (h tabsHands) Lease(sc *stage.Call, id target.ID) error {
	d, c := h.d, callOf(sc)
	defer c.reached(d)
	if c.e = d.entryOf(id); c.e == nil {
		return goneNow(id)
	}
	return d.take(c)
}

// goneNow refuses a target that left the table since a stage looked it up.
func goneNow(id target.ID) error {
	return target.Refuse(id.Kind().Words().Gone, "%s is gone", id).With("target", string(id))
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

func (h tabsHands) RunsAs(profileID string) (target.ID, bool) {
	return browsingHands(h).AppWindow(profileID)
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
