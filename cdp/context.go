package cdp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	proto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/storage"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/vibespace/vibespace/target"
)

// Context is one browser context (Target.createBrowserContext): its own
// cookies, storage, cache and tabs, like an incognito profile. Everything a
// Context lists, reaches or closes is fenced to its own browser context; an
// agent session holds one. Safe for concurrent use.
type Context struct {
	b       *Browser
	id      string
	builtin bool // the browser's default context: Close closes its tabs, it cannot be disposed

	mu     sync.Mutex
	tabs   map[string]*Tab // attached tabs by target id
	seen   map[string]bool // every tab id this context ever owned
	opened map[string]bool // the tabs NewTab created and nobody closed through us yet
}

// TabInfo describes one tab of a context.
type TabInfo struct {
	ID     string `json:"id"` // the CDP target id
	Title  string `json:"title"`
	URL    string `json:"url"`
	Opener string `json:"opener,omitempty"` // the tab that opened it (window.open), if any
}

// NewContext creates a fresh browser context. It outlives the CDP
// connection's sessions (disposeOnDetach is false); Close disposes it.
func (b *Browser) NewContext(ctx context.Context) (*Context, error) {
	return newContext(ctx, b)
}

func newContext(ctx context.Context, b *Browser) (*Context, error) {
	var res cdptarget.CreateBrowserContextResult
	err := b.conn.Call(ctx, cdptarget.CommandCreateBrowserContext, &cdptarget.CreateBrowserContextParams{DisposeOnDetach: new(false)}, &res)
	if err != nil {
		return nil, err
	}
	return &Context{b: b, id: string(res.BrowserContextID), tabs: make(map[string]*Tab), seen: make(map[string]bool), opened: make(map[string]bool)}, nil
}

// DefaultContext is the browser's own default context: the one whose
// cookies and storage live in the user-data dir and survive a restart (a
// profile). NewContext's contexts are in-memory and die with the browser.
// Close on the default context closes its tabs but keeps its data.
func (b *Browser) DefaultContext(ctx context.Context) (*Context, error) {
	var contexts cdptarget.GetBrowserContextsResult
	if err := b.conn.Call(ctx, cdptarget.CommandGetBrowserContexts, nil, &contexts); err != nil {
		return nil, err
	}
	if contexts.DefaultBrowserContextID != "" {
		return b.builtinContext(string(contexts.DefaultBrowserContextID)), nil
	}
	// Older browsers do not name it: it is the context of a page that no
	// createBrowserContext made (Launch opens one).
	created := make(map[proto.BrowserContextID]bool, len(contexts.BrowserContextIDs))
	for _, id := range contexts.BrowserContextIDs {
		created[id] = true
	}
	var res cdptarget.GetTargetsResult
	if err := b.conn.Call(ctx, cdptarget.CommandGetTargets, &cdptarget.GetTargetsParams{}, &res); err != nil {
		return nil, err
	}
	for _, ti := range res.TargetInfos {
		if ti.BrowserContextID != "" && !created[ti.BrowserContextID] {
			return b.builtinContext(string(ti.BrowserContextID)), nil
		}
	}
	return nil, fmt.Errorf("cdp: the browser's default context has no target to name it")
}

func (b *Browser) builtinContext(id string) *Context {
	return &Context{b: b, id: id, builtin: true, tabs: make(map[string]*Tab), seen: make(map[string]bool), opened: make(map[string]bool)}
}

// ID is the CDP browserContextId.
func (c *Context) ID() string { return c.id }

// Browser is the browser the context lives in.
func (c *Context) Browser() *Browser { return c.b }

// NewTab opens a tab in this context, attaches to it and, when url is not
// empty, navigates to it and waits for its load event. In a headed browser
// the tab opens in a window of its own.
func (c *Context) NewTab(ctx context.Context, url string) (*Tab, error) {
	var res cdptarget.CreateTargetResult
	p := &cdptarget.CreateTargetParams{
		URL:              "about:blank",
		BrowserContextID: proto.BrowserContextID(c.id),
	}
	if c.b.display != "" {
		// A headed browser's tab gets a window of its own, not a place in
		// another tab's strip: the window shows this tab alone, always, so
		// that it can be read as the tab's picture (the live view's window
		// road). Still one command.
		yes := true
		p.NewWindow = &yes
	}
	err := c.b.conn.Call(ctx, cdptarget.CommandCreateTarget, p, &res)
	if err != nil {
		return nil, err
	}
	id := string(res.TargetID)
	c.mu.Lock()
	c.seen[id] = true
	c.opened[id] = true
	c.mu.Unlock()
	t, err := c.attach(ctx, id)
	if err != nil {
		c.closeTarget(id)
		return nil, err
	}
	if url != "" {
		if err := t.Navigate(ctx, url); err != nil {
			return t, err
		}
	}
	return t, nil
}

// Tabs lists this context's page targets, and only this context's.
func (c *Context) Tabs(ctx context.Context) ([]TabInfo, error) {
	infos, err := c.pages(ctx)
	if err != nil {
		return nil, err
	}
	var out []TabInfo
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ti := range infos {
		if string(ti.BrowserContextID) != c.id {
			continue
		}
		c.seen[string(ti.TargetID)] = true
		out = append(out, TabInfo{ID: string(ti.TargetID), Title: ti.Title, URL: ti.URL, Opener: string(ti.OpenerID)})
	}
	return out, nil
}

// Tab reaches the tab with the given id, attaching to it on first use. A tab
// of another context is refused not_your_tab, a tab that closed tab_gone, an
// id no context has unknown_target.
func (c *Context) Tab(ctx context.Context, id string) (*Tab, error) {
	// A tab this context attached to is its own (a tab never changes
	// context), and its session says when it goes: no Target.getTargets
	// round trip on every verb. A tab that closes before the session hears
	// of it fails its next call with tab_gone (Tab.fail).
	c.mu.Lock()
	t := c.tabs[id]
	c.mu.Unlock()
	if t != nil && !t.closed() {
		return t, nil
	}
	if err := c.own(ctx, id); err != nil {
		return nil, err
	}
	return c.attach(ctx, id)
}

// CloseTab closes one of this context's tabs (Target.closeTarget), with the
// same refusals as Tab.
func (c *Context) CloseTab(ctx context.Context, id string) error {
	if err := c.own(ctx, id); err != nil {
		return err
	}
	var res struct{}
	if err := c.b.conn.Call(ctx, cdptarget.CommandCloseTarget, &cdptarget.CloseTargetParams{TargetID: cdptarget.ID(id)}, &res); err != nil {
		return c.tabErr(id, err)
	}
	c.forget(id)
	return nil
}

// forget drops a tab closed through us: it is no longer attached, nor one
// we opened, and its session is gone.
func (c *Context) forget(id string) {
	c.mu.Lock()
	t := c.tabs[id]
	delete(c.tabs, id)
	delete(c.opened, id)
	c.mu.Unlock()
	if t != nil {
		t.sess.markGone()
	}
}

// CloseOpened closes the tabs this Context opened (NewTab) that are still
// pages of its browser context, and no other tab: in a browser's default
// context, what somebody else has open there is left alone.
func (c *Context) CloseOpened(ctx context.Context) error {
	infos, err := c.pages(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	var ids []string
	for _, ti := range infos {
		if id := string(ti.TargetID); c.opened[id] && string(ti.BrowserContextID) == c.id {
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	var errs []error
	for _, id := range ids {
		if err := c.b.conn.Call(ctx, cdptarget.CommandCloseTarget, &cdptarget.CloseTargetParams{TargetID: cdptarget.ID(id)}, nil); err != nil {
			errs = append(errs, c.tabErr(id, err))
			continue
		}
		c.forget(id)
	}
	return errors.Join(errs...)
}

// Close disposes the browser context: its tabs close (without beforeunload)
// and its cookies and storage are gone.
func (c *Context) Close(ctx context.Context) error {
	var err error
	if c.builtin {
		err = c.closeAllTabs(ctx)
	} else {
		err = c.b.conn.Call(ctx, cdptarget.CommandDisposeBrowserContext, &cdptarget.DisposeBrowserContextParams{BrowserContextID: proto.BrowserContextID(c.id)}, nil)
	}
	c.mu.Lock()
	tabs := c.tabs
	c.tabs = make(map[string]*Tab)
	c.mu.Unlock()
	for _, t := range tabs {
		t.sess.markGone()
	}
	return err
}

// Holds says what the context holds that its disposal would lose: its
// pages (tabs) and its cookies (Storage.getCookies), counted; both zero is
// an empty context. Two commands. Web storage and caches are not counted:
// the browser has no call that lists them for a whole context.
func (c *Context) Holds(ctx context.Context) (tabs, cookies int, err error) {
	infos, err := c.pages(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, ti := range infos {
		if string(ti.BrowserContextID) == c.id {
			tabs++
		}
	}
	var res storage.GetCookiesResult
	if err := c.b.conn.Call(ctx, storage.CommandGetCookies, &storage.GetCookiesParams{BrowserContextID: proto.BrowserContextID(c.id)}, &res); err != nil {
		return tabs, 0, err
	}
	return tabs, len(res.Cookies), nil
}

func (c *Context) closeAllTabs(ctx context.Context) error {
	tabs, err := c.Tabs(ctx)
	if err != nil {
		return err
	}
	for _, ti := range tabs {
		if err := c.b.conn.Call(ctx, cdptarget.CommandCloseTarget, &cdptarget.CloseTargetParams{TargetID: cdptarget.ID(ti.ID)}, nil); err != nil {
			return err
		}
	}
	return nil
}

// own checks that id is a live page of this context.
func (c *Context) own(ctx context.Context, id string) error {
	infos, err := c.pages(ctx)
	if err != nil {
		return err
	}
	for _, ti := range infos {
		if string(ti.TargetID) != id {
			continue
		}
		if string(ti.BrowserContextID) == c.id {
			c.mu.Lock()
			c.seen[id] = true
			c.mu.Unlock()
			return nil
		}
		// Say nothing about the other tab: not its title, not its URL.
		return target.Refuse(target.CodeNotYourTab, "tab %s belongs to another session", id).With("tab", id)
	}
	c.mu.Lock()
	seen := c.seen[id]
	c.mu.Unlock()
	if seen {
		return target.Refuse(target.CodeTabGone, "tab %s has closed", id).With("tab", id)
	}
	return target.Refuse(target.CodeUnknownTarget, "no tab %s (list this session's tabs with: tab list)", id).With("tab", id)
}

// pages is Target.getTargets narrowed to pages (every context's: callers
// filter by browserContextId).
func (c *Context) pages(ctx context.Context) ([]*cdptarget.Info, error) {
	var res cdptarget.GetTargetsResult
	err := c.b.conn.Call(ctx, cdptarget.CommandGetTargets, &cdptarget.GetTargetsParams{
		Filter: cdptarget.Filter{{Type: "page"}},
	}, &res)
	if err != nil {
		return nil, err
	}
	return res.TargetInfos, nil
}

func (c *Context) attach(ctx context.Context, id string) (*Tab, error) {
	sess, err := c.b.conn.Attach(ctx, id)
	if err != nil {
		return nil, c.tabErr(id, err)
	}
	t := newTab(c, sess)
	if err := t.setup(ctx); err != nil {
		_ = sess.Detach(context.WithoutCancel(ctx))
		return nil, t.fail(err)
	}
	c.mu.Lock()
	if old := c.tabs[id]; old != nil && !old.closed() {
		c.mu.Unlock()
		_ = sess.Detach(context.WithoutCancel(ctx))
		return old, nil
	}
	c.tabs[id] = t
	c.mu.Unlock()
	return t, nil
}

// tabErr turns "no such target" from the browser into tab_gone.
func (c *Context) tabErr(id string, err error) error {
	if e, ok := asError(err); ok && (e.Code == codeServerError || e.Code == codeInvalidParams) {
		return target.Refuse(target.CodeTabGone, "tab %s has closed", id).With("tab", id).Wrap(err)
	}
	return err
}

func (c *Context) closeTarget(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.b.conn.Call(ctx, cdptarget.CommandCloseTarget, &cdptarget.CloseTargetParams{TargetID: cdptarget.ID(id)}, nil)
}

func (c *Context) String() string { return fmt.Sprintf("context %s", c.id) }
