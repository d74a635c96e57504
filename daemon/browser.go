package daemon

import (
	"context"
	"errors"

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
// the hands the core lends the two browser stages (browserHands): the
// target table's primitives.

// Browsing is the browser's profile words as the core asks them: the
// profile registry, and how an answer names a profile. Package
// daemon/browsing is the one the program registers, a stage that also
// chooses a session's browser context for the tab words (daemon/tabs) and
// answers the profile words that reach no tab (browser.profiles, use,
// attachments, detach, pin, new-child, status); the core finds it among
// the stages it was given and lends it its hands (browserHands).
type Browsing interface {
	Registry() (*profile.Registry, error)
	// Describe fills what an answer says of a profile's browser now.
	Describe(p *ProfileInfo)
}

// stageAs finds the registered stage that is a T: what says what it does,
// in the error when none is.
func stageAs[T any](ch *stage.Chain, what string) (T, error) {
	for _, s := range ch.Stages() {
		if t, ok := s.(T); ok {
			return t, nil
		}
	}
	var none T
	return none, errors.New("daemon: no registered stage " + what)
}

// browserHands is the core as the browser's two stages see it: what
// package daemon/browsing needs of it (browsing.Host) and what package
// daemon/tabs does (tabs.Host), each said there, where each stage asserts
// stage.Env.Hands to its own. A method handed the stages' view of a call
// the core is answering (guarded) works on the core's call behind it
// (callOf).
type browserHands struct{ d *Daemon }

// callKey keeps, in the stages' view of a call, the core's call behind it.
type callKey struct{}

// callOf is the core's call behind the stages' view of it.
func callOf(sc *stage.Call) *call { return sc.Get(callKey{}).(*call) }

func (h browserHands) Rows() []provider.Row                   { return h.d.law.Rows() }
func (h browserHands) Key(scope string) (string, bool, error) { return h.d.keys.Get(scope) }
func (h browserHands) Browser() kind.Browser                  { return h.d.cfg.Browser }

// Handle is the verb path, as the batch stage (daemon/batch) runs its steps.
func (h browserHands) Handle(ctx context.Context, req Request) Response { return h.d.Handle(ctx, req) }

// AppWindow is the window a desktop app's profile runs as, as last read.
func (h browserHands) AppWindow(profileID string) (target.ID, bool) {
	if profileID == "" {
		return "", false
	}
	es := h.d.entries(func(e *entry) bool { return e.rec.Profile == profileID && e.rec.From == "" })
	if len(es) == 0 {
		return "", false
	}
	return es[0].id, true
}

// CloseTabs closes and forgets the session's tabs in key's context.
func (h browserHands) CloseTabs(ctx context.Context, session string, key kind.BrowserKey) {
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

func (h browserHands) Tabs(session string) []TargetInfo {
	var out []TargetInfo
	for _, e := range h.d.entries(func(e *entry) bool { return e.tab != nil && e.rec.ExposedTo(session) }) {
		out = append(out, *h.d.info(e))
	}
	return out
}

func (h browserHands) Status(ctx context.Context, session string) *Status {
	return h.d.status(ctx, &call{Call: stage.Call{Req: Request{Session: session}}}).Status
}

// tabState is what the browser words keep beside a tab target: the
// context it lives in and how answers name its profile. It does not change.
type tabState struct {
	key  kind.BrowserKey
	prof ProfileInfo
}

// locked runs f on c's target under its lock and the flight map a takeover
// cancels (browserHands.Locked), and answers.
func (d *Daemon) locked(ctx context.Context, c *call, f func(ctx context.Context) (Response, error)) Response {
	resp, err := browserHands{d}.Locked(ctx, &c.Call, f)
	return d.finish(c, resp, err)
}

// Tabs is the words on a session's tabs and its desktop apps as the core
// asks them: package daemon/tabs is the one the program registers, a
// stage that answers open, tab, get, eval, back, forward, reload, wait,
// new and close; the core finds it among the stages it was given, lends
// it its hands (browserHands), has it reach the session's current tab for
// every other verb on a tab (Reach) and explain a tab handle of the old
// form its table does not have (CDPHandle), tells it a target left the table
// (Forget: it keeps each session's current tab), and has it tell the tabs
// an earlier daemon lost (Lost).
type Tabs interface {
	Reach(ctx context.Context, c *stage.Call) error
	CDPHandle(id target.ID) error
	Forget(id target.ID)
	Lost(lost []target.Target)
}

func (h browserHands) Named(sc *stage.Call, prof ProfileInfo) { callOf(sc).prof = &prof }

func (h browserHands) Hold(sc *stage.Call, release func()) { callOf(sc).done = release }

// HeadedDisplay is the first registered display, started when it is not
// running: a headed browser shows on it.
func (h browserHands) HeadedDisplay(ctx context.Context) (string, error) {
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

func (h browserHands) Tab(id target.ID) (kind.BrowserKey, bool) {
	if e := h.d.entryOf(id); e != nil && e.tab != nil {
		return e.tab.key, true
	}
	return kind.BrowserKey{}, false
}

// Closed: a tab:N the daemon's tab counter passed and no tab has now.
func (h browserHands) Closed(id target.ID) bool {
	n := id.TabNumber()
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	return n > 0 && n <= h.d.nextTab && h.d.targets[id] == nil
}

func (h browserHands) TabKeyed(key string) (target.ID, bool) {
	if es := h.d.entries(func(e *entry) bool { return e.tab != nil && e.rec.Key == key }); len(es) > 0 {
		return es[0].id, true
	}
	return "", false
}

// Refresh re-reads target id (refresh) and, when the address state.json
// keeps of it (bareURL) changed, persists it: a daemon killed next names
// the tab lost by where it was (the tabs' Lost), not where it was opened.
func (h browserHands) Refresh(ctx context.Context, id target.ID) (kind.Info, error) {
	d, e := h.d, h.d.entryOf(id)
	if e == nil {
		return kind.Info{}, goneNow(id)
	}
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

// AddTab mints the tab's handle, tab:N, from the daemon's tab counter,
// which is persisted.
func (h browserHands) AddTab(sc *stage.Call, kt kind.Target, info kind.Info, key kind.BrowserKey, prof ProfileInfo) target.ID {
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

func (h browserHands) Lease(sc *stage.Call, id target.ID) error {
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

func (h browserHands) Reached(sc *stage.Call) kind.Target {
	if c := callOf(sc); c.e != nil {
		return c.e.t
	}
	return nil
}

// Locked is locked without the answer: the verb path finishes it. A
// failure is as the takeover cut it.
func (h browserHands) Locked(ctx context.Context, sc *stage.Call, f func(ctx context.Context) (Response, error)) (Response, error) {
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

func (h browserHands) Relist(ctx context.Context, sc *stage.Call) (kind.Info, error) {
	return h.d.relist(ctx, callOf(sc).e)
}

func (h browserHands) Seen(sc *stage.Call) kind.Info { return h.d.seen(callOf(sc).e) }

func (h browserHands) NodeText(ctx context.Context, sc *stage.Call, ref string) (Response, error) {
	return h.d.nodeText(ctx, callOf(sc), ref) // verb_find.go
}

func (h browserHands) CloseTab(ctx context.Context, sc *stage.Call) (*TargetInfo, error) {
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

func (h browserHands) TabsOf(key kind.BrowserKey) []target.ID {
	var ids []target.ID
	for _, e := range h.d.entries(func(e *entry) bool { return e.tab != nil && e.tab.key.String() == key.String() }) {
		ids = append(ids, e.id)
	}
	return ids
}

func (h browserHands) Listed(ctx context.Context, id target.ID) (*TargetInfo, error) {
	e := h.d.entryOf(id)
	if e == nil {
		return nil, goneNow(id)
	}
	_, err := h.d.relist(ctx, e)
	return h.d.info(e), err
}

func (h browserHands) Display(name string) error {
	_, err := h.d.reg.ProviderFor(name)
	return err
}

func (h browserHands) Open(ctx context.Context, sc *stage.Call, profileID string) Response {
	return h.d.openAs(ctx, callOf(sc), profileID)
}

func (h browserHands) Stop(ctx context.Context, sc *stage.Call) error {
	c := callOf(sc)
	err := c.e.t.Close(context.WithoutCancel(ctx))
	h.d.drop(c.e.id)
	c.e = nil
	c.reached(h.d)
	return err
}

func (h browserHands) ReachWindow(ctx context.Context, sc *stage.Call) error {
	c := callOf(sc)
	defer c.reached(h.d)
	return h.d.reachHandle(ctx, c)
}

func (h browserHands) CloseWindow(ctx context.Context, sc *stage.Call) Response {
	return h.d.closeTarget(ctx, callOf(sc))
}
