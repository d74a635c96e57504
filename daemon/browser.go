package daemon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/current"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// The browser's words: a session's tabs live in browser contexts (its own
// ephemeral one, or the profiles it attached); each command acts on the
// session's current tab of the context its profile choice names.

// browserState is the daemon's side of the browser words: each session's
// current tab per context.
type browserState struct {
	current current.Tabs  // each session's current tab per context
	appSlot chan struct{} // one slot: one desktop app starting at a time (desktopapp.go)
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

func (h browsingHands) Rows() []provider.Row                   { return h.d.rows() }
func (h browsingHands) Key(scope string) (string, bool, error) { return h.d.keys.Get(scope) }
func (h browsingHands) Browser() kind.Browser                  { return h.d.cfg.Browser }

func (h browsingHands) AppWindow(profileID string) (target.ID, bool) {
	if e := h.d.appWindow(profileID); e != nil {
		return e.id, true
	}
	return "", false
}

func (h browsingHands) CloseTabs(ctx context.Context, session string, key kind.BrowserKey) {
	h.d.closeSessionTabs(ctx, session, key)
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
// its browser is a window (desktopapp.go). Row is the profile's provider
// row (chromium for an ephemeral context): the verbs it cannot do are
// refused before anything runs. Package daemon/browsing spells the same
// type (browsing.Selection).
type selection = struct {
	Key  kind.BrowserKey
	Prof ProfileInfo
	App  bool
	Row  provider.Row
}

func (bs *browserState) init() {
	bs.appSlot = make(chan struct{}, 1)
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

// noBrowser is the refusal of every browser verb on a daemon without a
// browser backend.
func noBrowser() error {
	return target.Refuse(target.CodeNoBrowser, "this daemon has no browser backend (Chromium was not configured or not found; see doctor)")
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
		return nil, noBrowser()
	}
	if err := d.browsing.Gate(c.Req, &sel); err != nil {
		return nil, err
	}
	c.sel = &sel
	if sel.Key.Headed {
		p, err := d.providerFor("")
		if err != nil {
			return nil, err
		}
		disp, err := d.ensureDisplay(ctx, p)
		if err != nil {
			return nil, err
		}
		sel.Key.Display = disp.d.Name()
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

// where names a selection's context in words.
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

// navigated re-reads a tab's title and URL after it navigated; a tab that
// went meanwhile is its gone refusal.
func (d *Daemon) navigated(ctx context.Context, e *entry) (title, url string, err error) {
	info, err := d.refreshTab(ctx, e)
	return info.Title, info.App, err
}

// refreshTab re-reads a tab (refresh) and, when the address state.json
// keeps of it (bareURL) changed, persists it: a daemon killed next names
// the tab lost by where it was (lostTabs), not where it was opened.
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

// browserOpen navigates the session's current tab to URL, or opens a tab
// when it has none.
func (d *Daemon) browserOpen(ctx context.Context, c *call) Response {
	req := c.Req
	if strings.TrimSpace(req.URL) == "" {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "open needs a URL"))
	}
	bc, err := d.browserContext(ctx, c)
	if err != nil {
		return d.fail(c, err)
	}
	verb := "opened %s (%q) in tab %s"
	if id, ok := d.br.current.Get(req.Session, c.sel.Key); ok {
		err = d.reachTabID(ctx, c, id, true)
		if target.CodeOf(err) == target.CodeTabGone {
			err, c.e = nil, nil
		}
		if err != nil {
			return d.fail(c, err)
		}
	}
	if c.e == nil {
		if err := d.newTab(ctx, c, bc); err != nil {
			return d.fail(c, err)
		}
		verb = "opened %s (%q) in a new tab %s; you hold its lease"
	}
	nav, ok := c.e.t.(kind.Navigator)
	if !ok {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "%s loads no addresses", c.e.id))
	}
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
		if err := nav.Navigate(ctx, req.URL); err != nil {
			return Response{}, err
		}
		title, u, err := d.navigated(ctx, c.e)
		return Response{URL: u, Did: fmt.Sprintf(verb, u, title, c.e.id)}, err
	})
}

// browserTab lists, opens, closes or selects the session's tabs in the
// chosen context. Only the session's own tabs are shown; others are
// counted.
func (d *Daemon) browserTab(ctx context.Context, c *call) Response {
	req := c.Req
	action := req.Action
	if action == "" {
		action = "list"
	}
	switch action {
	case "list", "new", "close", "select":
	default:
		return d.fail(c, target.Refuse(target.CodeBadRequest, "tab %s: use list, new, close or select", target.Echo(action)))
	}
	var id target.ID
	if action == "select" || action == "close" && req.Target != "" {
		var err error
		if id, err = target.ParseID(req.Target); err != nil {
			return d.fail(c, err)
		}
		if id.Kind() != target.KindTab {
			return d.fail(c, target.WrongKind(id, target.KindTab.Words().CLI))
		}
	}
	bc, err := d.browserContext(ctx, c)
	if err != nil {
		return d.fail(c, err)
	}
	switch action {
	case "list":
		return d.tabList(ctx, c)
	case "new":
		if err := d.newTab(ctx, c, bc); err != nil {
			return d.fail(c, err)
		}
		return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
			if req.URL != "" {
				nav, ok := c.e.t.(kind.Navigator)
				if !ok {
					return Response{}, target.Refuse(target.CodeBadRequest, "%s loads no addresses", c.e.id)
				}
				if err := nav.Navigate(ctx, req.URL); err != nil {
					return Response{}, err
				}
			}
			_, u, err := d.navigated(ctx, c.e)
			return Response{URL: u, Did: fmt.Sprintf("opened tab %s; it is your current tab", c.e.id)}, err
		})
	case "select":
		if err := d.reachTabID(ctx, c, id, false); err != nil {
			return d.fail(c, err)
		}
		d.br.current.Set(req.Session, c.sel.Key, id)
		return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
			info := d.seen(c.e)
			return Response{URL: info.App, Did: fmt.Sprintf("tab %s (%q) is your current tab", id, info.Title)}, nil
		})
	}
	// close: the tab named, else the current one
	var reach error
	if req.Target == "" {
		reach = d.reachTab(ctx, c)
		if c.e != nil {
			id = c.e.id
		}
	} else {
		reach = d.reachTabID(ctx, c, id, false)
	}
	if reach != nil {
		return d.fail(c, reach)
	}
	c.Req.Target = string(id) // the audit row names the tab closed, as for a bare close
	info := d.info(c.e)
	if err := c.e.t.Close(ctx); err != nil {
		return d.fail(c, err)
	}
	d.drop(id)
	c.e = nil
	return d.finish(c, Response{Target: d.gone(info), Did: fmt.Sprintf("closed tab %s", id)}, nil)
}

// tabList answers the session's own tabs in the context, and how many other
// tabs there are, never what they are.
func (d *Daemon) tabList(ctx context.Context, c *call) Response {
	req, sel := c.Req, c.sel
	cur, _ := d.br.current.Get(req.Session, sel.Key)
	tabs := d.entries(func(e *entry) bool { return e.tab != nil && e.tab.key.String() == sel.Key.String() })
	slices.SortFunc(tabs, func(a, b *entry) int { return a.id.TabNumber() - b.id.TabNumber() })
	resp := Response{Targets: []TargetInfo{}}
	others := 0
	var lines []string
	for _, e := range tabs {
		if !d.exposedTo(e, req.Session) {
			others++
			continue
		}
		if _, err := d.relist(ctx, e); target.CodeOf(err) == target.CodeTabGone {
			continue
		}
		ti := *d.info(e)
		resp.Targets = append(resp.Targets, ti)
		mark := " "
		if e.id == cur {
			mark = "*"
		}
		lines = append(lines, fmt.Sprintf("%s %s %q %s", mark, e.id, ti.Title, ti.App))
	}
	resp.Text = strings.Join(lines, "\n")
	resp.Did = fmt.Sprintf("%d tab(s) of yours in %s", len(resp.Targets), where(*sel))
	if others > 0 {
		resp.Did += fmt.Sprintf("; %d other session(s)' tab(s) there are not shown", others)
	}
	return d.finish(c, resp, nil)
}

// closeSessionTabs closes and forgets the session's tabs in key's context.
func (d *Daemon) closeSessionTabs(ctx context.Context, session string, key kind.BrowserKey) {
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

// browserGet answers the page's text (or, with a ref, that node's), URL
// or title.
func checkGet(d *Daemon, req Request) error { return args.GetOf(req).Validate() }

func (d *Daemon) browserGet(ctx context.Context, c *call) Response {
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
		switch c.Req.Action {
		case "url", "title":
			// As the page has them now (a page may retitle itself).
			info, err := d.relist(ctx, c.e)
			if err != nil {
				return Response{}, err
			}
			if c.Req.Action == "url" {
				return Response{URL: info.App, Text: info.App}, nil
			}
			return Response{Text: info.Title}, nil
		}
		if c.Req.Ref != "" {
			return d.nodeText(ctx, c, c.Req.Ref) // get text @ref: that node's (verb_find.go)
		}
		pr, ok := c.e.t.(kind.PageReader)
		if !ok {
			return Response{}, target.Refuse(target.CodeNoText, "%s has no page text to read", c.e.id)
		}
		s, err := pr.Text(ctx)
		return Response{Text: s}, err
	})
}

func checkEval(d *Daemon, req Request) error { return args.EvalOf(req).Validate() }

// browserEval evaluates an expression in the page and answers its value as
// JSON; a thrown error is script_error.
func (d *Daemon) browserEval(ctx context.Context, c *call) Response {
	ev, ok := c.e.t.(kind.Evaluator)
	if !ok {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "%s evaluates no script", c.e.id))
	}
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
		v, err := ev.Eval(ctx, c.Req.Expr)
		if err != nil {
			return Response{}, err
		}
		return Response{Value: v}, nil
	})
}

func (d *Daemon) browserBack(ctx context.Context, c *call) Response {
	return d.navVerb(ctx, c, "went back", kind.Navigator.Back)
}

func (d *Daemon) browserForward(ctx context.Context, c *call) Response {
	return d.navVerb(ctx, c, "went forward", kind.Navigator.Forward)
}

func (d *Daemon) browserReload(ctx context.Context, c *call) Response {
	return d.navVerb(ctx, c, "reloaded", kind.Navigator.Reload)
}

// navVerb runs a navigation and answers where the tab is now.
func (d *Daemon) navVerb(ctx context.Context, c *call, did string, nav func(kind.Navigator, context.Context) error) Response {
	n, ok := c.e.t.(kind.Navigator)
	if !ok {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "%s has no history", c.e.id))
	}
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
		if err := nav(n, ctx); err != nil {
			return Response{}, err
		}
		title, u, err := d.navigated(ctx, c.e)
		return Response{URL: u, Did: fmt.Sprintf("%s: %s (%q)", did, u, title)}, err
	})
}

// browserWait waits for a selector, a text or a URL, within the verb's time.
func (d *Daemon) browserWait(ctx context.Context, c *call) Response {
	w, ok := c.e.t.(kind.Waiter)
	if !ok {
		return d.fail(c, target.Refuse(target.CodeBadRequest, "%s cannot be waited on", c.e.id))
	}
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) {
		if err := w.Wait(ctx, kind.Wait{Selector: c.Req.Selector, Text: c.Req.Text, URL: c.Req.URL}); err != nil {
			return Response{}, err
		}
		return Response{Did: "the page shows what was awaited"}, nil
	})
}

// browsersChanged persists the browser backend's record after a browser
// started or stopped. Once the daemon is closed or detached it writes
// nothing: the state directory may already be another daemon's.
func (d *Daemon) browsersChanged() {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if !closed {
		d.persist()
	}
}

// lostTabs owes each session the tabs it could address that an earlier
// daemon had open when it was killed: they died with its browser, and
// nothing else would say so (tab list would just be shorter). One notice a
// session, naming each tab and its address as state.json kept it (scheme,
// host and path: bareURL), told once on its next browser answer. A daemon
// stopped on purpose closed its tabs and kept none, so it owes nothing.
func (d *Daemon) lostTabs(lost []target.Target) {
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
	for _, s := range slices.Sorted(maps.Keys(by)) {
		ts := by[s]
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
		d.owe(notice.Notice{Session: s, Target: ts[0].ID, Text: text})
	}
}
