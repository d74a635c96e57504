package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// browserVerbs maps "browser.<word>" to its method.
var browserVerbs = map[string]verbFunc{
	"browser.open":        (*Daemon).browserOpen,
	"browser.snapshot":    (*Daemon).browserSnapshot,
	"browser.click":       (*Daemon).browserClick,
	"browser.fill":        (*Daemon).browserFill,
	"browser.type":        (*Daemon).browserType,
	"browser.key":         (*Daemon).browserKey,
	"browser.scroll":      (*Daemon).browserScroll,
	"browser.screenshot":  (*Daemon).browserScreenshot,
	"browser.get":         (*Daemon).browserGet,
	"browser.eval":        (*Daemon).browserEval,
	"browser.back":        (*Daemon).browserBack,
	"browser.forward":     (*Daemon).browserForward,
	"browser.reload":      (*Daemon).browserReload,
	"browser.wait":        (*Daemon).browserWait,
	"browser.tab":         (*Daemon).browserTab,
	"browser.profiles":    (*Daemon).browserProfiles,
	"browser.new":         (*Daemon).browserNew,
	"browser.use":         (*Daemon).browserUse,
	"browser.attachments": (*Daemon).browserAttachments,
	"browser.detach":      (*Daemon).browserDetach,
	"browser.pin":         (*Daemon).browserPin,
	"browser.new-child":   (*Daemon).browserNewChild,
	"browser.status":      (*Daemon).browserStatus,
}

// browserVerb returns the method answering a browser.* verb, or nil.
func browserVerb(name string) verbFunc {
	if !strings.HasPrefix(name, "browser.") {
		return nil
	}
	return browserVerbs[name]
}

// BrowserVerbs lists the browser.* verbs the daemon answers, sorted.
func BrowserVerbs() []string {
	out := make([]string, 0, len(browserVerbs))
	for v := range browserVerbs {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// selection is a resolved profile choice: which browser context, and how
// answers name it.
type selection struct {
	key  BrowserKey
	prof ProfileInfo
}

// tabCall is a page verb's hold on its tab: the target, the lease grant,
// the profile.
type tabCall struct {
	sel selection
	e   *entry
	tab *cdp.Tab
	g   lease.Grant
}

// bfinish is finish for browser verbs: it names the profile too.
func (d *Daemon) bfinish(req Request, sel *selection, e *entry, g lease.Grant, road target.Road, resp Response, err error) Response {
	resp = d.finish(req, e, g, road, resp, err)
	if sel != nil {
		p := sel.prof
		if sel.key.Profile != "" && d.cfg.Browser != nil {
			p.Running = d.cfg.Browser.Running(sel.key.Profile)
		}
		resp.Profile = &p
	}
	return resp
}

// context resolves req's profile and reaches its browser context.
// The browser counts as in use until release (never nil) is called.
func (d *Daemon) browserContext(ctx context.Context, req Request) (selection, *cdp.Context, func(), error) {
	nop := func() {}
	if d.cfg.Browser == nil {
		return selection{}, nil, nop, noBrowser()
	}
	sel, err := d.choose(ctx, req)
	if err != nil {
		return sel, nil, nop, err
	}
	if sel.key.Headed {
		disp, err := d.ensureDisplay(ctx)
		if err != nil {
			return sel, nil, nop, err
		}
		sel.key.Display = disp.Name()
	}
	c, release, err := d.cfg.Browser.Context(ctx, sel.key)
	if err != nil || release == nil {
		release = nop
	}
	return sel, c, release, err
}

// onTab runs f on the session's current tab of the chosen context, under
// the tab's lease (reads take it too; browser_paused while the user
// drives), its per-target gate and the flight map a takeover cancels.
func (d *Daemon) onTab(ctx context.Context, req Request, road target.Road, f func(ctx context.Context, tc *tabCall) (Response, error)) Response {
	sel, cctx, release, err := d.browserContext(ctx, req)
	defer release()
	if err != nil {
		return d.bfinish(req, selOrNil(sel, err), nil, lease.Grant{}, "", Response{}, err)
	}
	tc, err := d.currentTab(ctx, req, sel, cctx)
	if err != nil {
		return d.bfinish(req, &sel, nil, lease.Grant{}, "", Response{}, err)
	}
	return d.onTabReached(ctx, req, tc, road, f)
}

// selOrNil names the profile in a refusal only when one was chosen.
func selOrNil(sel selection, err error) *selection {
	if sel.key.String() == "e:" {
		return nil
	}
	return &sel
}

// currentTab finds the session's current tab in the context: no tab is a
// no_tab refusal telling to open a page first, a tab that closed under it
// tab_gone.
func (d *Daemon) currentTab(ctx context.Context, req Request, sel selection, cctx *cdp.Context) (*tabCall, error) {
	d.br.init()
	d.br.mu.Lock()
	id, ok := d.br.current[currentKey(req.Session, sel.key)]
	d.br.mu.Unlock()
	if !ok {
		return nil, target.Refuse(target.CodeNoTab, "no current tab in %s: run open <url> first (or tab select <id>, from tab list)", where(sel)).With("profile", sel.prof.ID)
	}
	return d.reachTab(ctx, req, sel, cctx, id)
}

// reachTab reaches tab id of the context for req's session.
func (d *Daemon) reachTab(ctx context.Context, req Request, sel selection, cctx *cdp.Context, id target.ID) (*tabCall, error) {
	d.mu.Lock()
	e := d.targets[id]
	d.mu.Unlock()
	d.br.mu.Lock()
	ts := d.br.tabs[id]
	d.br.mu.Unlock()
	if e == nil || ts == nil {
		d.dropTab(id)
		return nil, target.Refuse(target.CodeTabGone, "tab %s has closed", id).With("target", string(id))
	}
	d.mu.Lock()
	exposed := e.t.ExposedTo(req.Session)
	d.mu.Unlock()
	if !exposed || ts.key.String() != sel.key.String() {
		return nil, target.Refuse(target.CodeNotYourTab, "tab %s belongs to another session or profile", id).With("target", string(id))
	}
	tab, err := cctx.Tab(ctx, ts.cdpID)
	if err != nil {
		switch target.CodeOf(err) {
		case target.CodeTabGone, target.CodeUnknownTarget:
			// Its browser crashed or stopped, or it was closed in the page.
			d.dropTab(id)
			return nil, target.Refuse(target.CodeTabGone, "tab %s has closed (run open <url> for a new one)", id).With("target", string(id)).Wrap(err)
		}
		return nil, err
	}
	d.br.mu.Lock()
	ts.tab = tab
	d.br.mu.Unlock()
	return &tabCall{sel: sel, e: e, tab: tab}, nil
}

// where names a selection's context in words.
func where(sel selection) string {
	if sel.key.Profile != "" {
		return fmt.Sprintf("profile %s (%s)", sel.prof.Label, sel.key.Profile)
	}
	return "this session's own browser context"
}

// registerTab makes a new tab a target of the session, leased to it, and
// its current tab in the context.
func (d *Daemon) registerTab(req Request, sel selection, tab *cdp.Tab, url string) *entry {
	id := TabID(tab.ID())
	t := target.Target{
		ID: id, Kind: target.KindTab, Title: "", App: url, Origin: req.Session,
		Opened: d.cfg.Now().UTC(), Exposure: []string{req.Session},
	}
	e := newEntry(t, Window{})
	d.mu.Lock()
	d.targets[id] = e
	d.mu.Unlock()
	d.br.init()
	d.br.mu.Lock()
	d.br.tabs[id] = &tabState{key: sel.key, cdpID: tab.ID(), tab: tab, prof: sel.prof}
	d.br.current[currentKey(req.Session, sel.key)] = id
	d.br.mu.Unlock()
	d.leases.Acquire(id, req.Session)
	d.persist()
	return e
}

// noteTab records a tab's title and URL after a navigation.
func (d *Daemon) noteTab(ctx context.Context, e *entry, tab *cdp.Tab) (title, url string) {
	title, _ = tab.Title(ctx)
	url, _ = tab.URL(ctx)
	d.mu.Lock()
	e.t.Title, e.t.App = title, url
	d.mu.Unlock()
	return title, url
}

// browserOpen navigates the session's current tab to URL, or opens a tab
// when it has none.
func (d *Daemon) browserOpen(ctx context.Context, req Request) Response {
	if strings.TrimSpace(req.URL) == "" {
		return d.bfinish(req, nil, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "open needs a URL"))
	}
	sel, cctx, release, err := d.browserContext(ctx, req)
	defer release()
	if err != nil {
		return d.bfinish(req, selOrNil(sel, err), nil, lease.Grant{}, "", Response{}, err)
	}
	d.br.init()
	d.br.mu.Lock()
	_, has := d.br.current[currentKey(req.Session, sel.key)]
	d.br.mu.Unlock()
	if has {
		if tc, err := d.currentTab(ctx, req, sel, cctx); err == nil {
			return d.onTabReached(ctx, req, tc, "", func(ctx context.Context, tc *tabCall) (Response, error) {
				if err := tc.tab.Navigate(ctx, req.URL); err != nil {
					return Response{}, err
				}
				title, u := d.noteTab(ctx, tc.e, tc.tab)
				return Response{URL: u, Did: fmt.Sprintf("opened %s (%q) in tab %s", u, title, tc.e.t.ID)}, nil
			})
		} else if target.CodeOf(err) != target.CodeTabGone {
			return d.bfinish(req, &sel, nil, lease.Grant{}, "", Response{}, err)
		}
	}
	return d.onNewTab(ctx, req, sel, cctx, func(ctx context.Context, tc *tabCall) (Response, error) {
		if err := tc.tab.Navigate(ctx, req.URL); err != nil {
			return Response{}, err
		}
		title, u := d.noteTab(ctx, tc.e, tc.tab)
		return Response{URL: u, Did: fmt.Sprintf("opened %s (%q) in a new tab %s; you hold its lease", u, title, tc.e.t.ID)}, nil
	})
}

// newTab opens a blank tab in cctx. A tab that is gone before it was
// ever used (seen once on a heavily loaded machine) is replaced once.
func (d *Daemon) newTab(ctx context.Context, cctx *cdp.Context) (*cdp.Tab, error) {
	tab, err := cctx.NewTab(ctx, "")
	if target.CodeOf(err) == target.CodeTabGone {
		d.cfg.Logger.Warn("a new tab closed before its first use; opening another", "err", err)
		tab, err = cctx.NewTab(ctx, "")
	}
	return tab, err
}

// onNewTab opens a blank tab in cctx, the session's current one from now
// on, and runs f on it as onTabReached does.
func (d *Daemon) onNewTab(ctx context.Context, req Request, sel selection, cctx *cdp.Context, f func(ctx context.Context, tc *tabCall) (Response, error)) Response {
	tab, err := d.newTab(ctx, cctx)
	if err != nil {
		return d.bfinish(req, &sel, nil, lease.Grant{}, "", Response{}, err)
	}
	tc := &tabCall{sel: sel, e: d.registerTab(req, sel, tab, "about:blank"), tab: tab}
	return d.onTabReached(ctx, req, tc, "", f)
}

// onTabReached is the second half of onTab, for a tab already reached;
// road goes into the answer once the lease is held ("" for none).
func (d *Daemon) onTabReached(ctx context.Context, req Request, tc *tabCall, road target.Road, f func(ctx context.Context, tc *tabCall) (Response, error)) Response {
	var err error
	tc.g, err = d.leases.Use(tc.e.t.ID, req.Session)
	if err != nil {
		return d.bfinish(req, &tc.sel, tc.e, tc.g, "", Response{}, err)
	}
	if tc.g.Acquired {
		d.persist()
	}
	ctx, end, err := d.begin(ctx, tc.e)
	if err != nil {
		return d.bfinish(req, &tc.sel, tc.e, tc.g, road, Response{}, err)
	}
	defer end()
	resp, err := f(ctx, tc)
	if _, refused := target.AsRefusal(err); !refused {
		err = d.cut(ctx, tc.e, req.Session, err)
	}
	if target.CodeOf(err) == target.CodeTabGone {
		d.dropTab(tc.e.t.ID)
	}
	return d.bfinish(req, &tc.sel, tc.e, tc.g, road, resp, err)
}

// browserTab lists, opens, closes or selects the session's tabs in the
// chosen context. Only the session's own tabs are shown; others are
// counted.
func (d *Daemon) browserTab(ctx context.Context, req Request) Response {
	action := req.Action
	if action == "" {
		action = "list"
	}
	sel, cctx, release, err := d.browserContext(ctx, req)
	defer release()
	if err != nil {
		return d.bfinish(req, selOrNil(sel, err), nil, lease.Grant{}, "", Response{}, err)
	}
	switch action {
	case "list":
		return d.tabList(ctx, req, sel)
	case "new":
		return d.onNewTab(ctx, req, sel, cctx, func(ctx context.Context, tc *tabCall) (Response, error) {
			if req.URL != "" {
				if err := tc.tab.Navigate(ctx, req.URL); err != nil {
					return Response{}, err
				}
			}
			_, u := d.noteTab(ctx, tc.e, tc.tab)
			return Response{URL: u, Did: fmt.Sprintf("opened tab %s; it is your current tab", tc.e.t.ID)}, nil
		})
	case "close", "select":
		id, err := target.ParseID(req.Target)
		if err == nil && id.Kind() != target.KindTab {
			err = target.Refuse(target.CodeBadRequest, "tab %s needs a tab id (tab:…), as tab list prints", action)
		}
		if err != nil {
			return d.bfinish(req, &sel, nil, lease.Grant{}, "", Response{}, err)
		}
		tc, err := d.reachTab(ctx, req, sel, cctx, id)
		if err != nil {
			return d.bfinish(req, &sel, nil, lease.Grant{}, "", Response{}, err)
		}
		if action == "select" {
			d.br.mu.Lock()
			d.br.current[currentKey(req.Session, sel.key)] = id
			d.br.mu.Unlock()
			return d.onTabReached(ctx, req, tc, "", func(ctx context.Context, tc *tabCall) (Response, error) {
				title, u := d.noteTab(ctx, tc.e, tc.tab)
				return Response{URL: u, Did: fmt.Sprintf("tab %s (%q) is your current tab", id, title)}, nil
			})
		}
		g, err := d.leases.Use(id, req.Session)
		if err != nil {
			return d.bfinish(req, &sel, tc.e, g, "", Response{}, err)
		}
		info := d.info(tc.e)
		if err := cctx.CloseTab(ctx, tc.tab.ID()); err != nil && target.CodeOf(err) != target.CodeTabGone {
			return d.bfinish(req, &sel, tc.e, g, "", Response{}, err)
		}
		d.dropTab(id)
		resp := d.bfinish(req, &sel, nil, g, "", Response{Did: fmt.Sprintf("closed tab %s", id)}, nil)
		info.Lease, info.Holder = "gone", ""
		resp.Target = info
		return resp
	}
	return d.bfinish(req, &sel, nil, lease.Grant{}, "", Response{}, target.Refuse(target.CodeBadRequest, "tab %q: use list, new, close or select", action))
}

// tabList answers the session's own tabs in the context, and how many
// other tabs there are, never what they are.
func (d *Daemon) tabList(ctx context.Context, req Request, sel selection) Response {
	d.br.init()
	d.br.mu.Lock()
	cur := d.br.current[currentKey(req.Session, sel.key)]
	var ids []target.ID
	for id, ts := range d.br.tabs {
		if ts.key.String() == sel.key.String() {
			ids = append(ids, id)
		}
	}
	d.br.mu.Unlock()
	slices.Sort(ids)
	resp := Response{Targets: []TargetInfo{}}
	others := 0
	var lines []string
	for _, id := range ids {
		d.mu.Lock()
		e := d.targets[id]
		mine := e != nil && e.t.ExposedTo(req.Session)
		d.mu.Unlock()
		if e == nil {
			continue
		}
		if !mine {
			others++
			continue
		}
		if err := d.refreshTab(ctx, e); target.CodeOf(err) == target.CodeTabGone {
			continue
		}
		ti := *d.info(e)
		resp.Targets = append(resp.Targets, ti)
		mark := " "
		if id == cur {
			mark = "*"
		}
		lines = append(lines, fmt.Sprintf("%s %s %q %s", mark, id, ti.Title, ti.App))
	}
	resp.Text = strings.Join(lines, "\n")
	resp.Did = fmt.Sprintf("%d tab(s) of yours in %s", len(resp.Targets), where(sel))
	if others > 0 {
		resp.Did += fmt.Sprintf("; %d other session(s)' tab(s) there are not shown", others)
	}
	out := d.bfinish(req, &sel, nil, lease.Grant{}, "", resp, nil)
	out.Targets = resp.Targets
	return out
}
