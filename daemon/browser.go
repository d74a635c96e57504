package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
)

// BrowserBackend runs the browsers behind the browser.* verbs. The real one
// is package daemon/chromium: one shared headless Chromium holding an
// ephemeral browser context per session, and one Chromium per persistent
// profile. nil in Config.Browser means this daemon has no browser road:
// every browser.* verb is refused no_browser.
type BrowserBackend interface {
	// Context returns the browser context key names, starting the browser
	// it lives in when it is not running (lazily, and again after a crash).
	// Starting one more browser than the ceiling allows is refused
	// browser_limit. The browser counts as in use (never stopped as idle)
	// until release is called.
	Context(ctx context.Context, key BrowserKey) (c *cdp.Context, release func(), err error)
	// Release disposes of an ephemeral context (its tabs close, its cookies
	// are gone). A profile's context is left alone: its browser stops when
	// idle.
	Release(ctx context.Context, key BrowserKey) error
	// Running reports whether the browser of profile id is up ("" is the
	// shared browser).
	Running(profile string) bool
	// Observe registers f, called (outside the backend's locks) whenever a
	// browser started or stopped, so the daemon persists Record.
	Observe(f func())
	// Record names the browsers running now, for a restarted daemon's Reap.
	Record() json.RawMessage
	// Reap stops the browsers an earlier daemon left running, from its
	// Record.
	Reap(ctx context.Context, record json.RawMessage)
	// Doctor says what this machine offers for browsers.
	Doctor(ctx context.Context) []Check
	// Close stops every browser and reaps its processes.
	Close() error
}

// BrowserKey names one browser context: an ephemeral one of a session (in
// the shared browser), or a persistent profile's own.
type BrowserKey struct {
	Session string `json:"session"` // who asks (the ceiling's refusal names this session's own)
	// Owner names an ephemeral context: the session, or session/handle for
	// a child or own attachment. "" for a profile.
	Owner   string `json:"owner,omitempty"`
	Profile string `json:"profile,omitempty"` // a persistent profile's id (bp-…)
	Label   string `json:"label,omitempty"`   // its label, for messages only
	Dir     string `json:"dir,omitempty"`     // its user-data-dir
	Headed  bool   `json:"headed,omitempty"`  // on our display instead of headless
	Display string `json:"display,omitempty"` // our display (":N") when Headed
}

// String is the key's identity: "p:<id>" or "e:<owner>".
func (k BrowserKey) String() string {
	if k.Profile != "" {
		return "p:" + k.Profile
	}
	return "e:" + k.Owner
}

// browserRecordKey is the key of lease.State.Backends holding the browser
// backend's Record.
const browserRecordKey = "browsers"

// browserState is the daemon's side of tabs: which browser context each
// tab target lives in, and each session's current tab per context.
type browserState struct {
	mu      sync.Mutex
	tabs    map[target.ID]*tabState
	current map[string]target.ID // session + "\x00" + context key → its current tab

	regOnce sync.Once
	reg     *profile.Registry // the profile registry, opened on first use
	regErr  error
}

// tabState is what the daemon keeps beside a tab target.
type tabState struct {
	key   BrowserKey
	cdpID string
	tab   *cdp.Tab // last reached; nil until then
	prof  ProfileInfo
}

func (bs *browserState) init() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.tabs == nil {
		bs.tabs = make(map[target.ID]*tabState)
		bs.current = make(map[string]target.ID)
	}
}

func currentKey(session string, k BrowserKey) string { return session + "\x00" + k.String() }

// tabProbe is what a tab offers: the accessibility tree through CDP,
// input through CDP Input, pixels through Page.captureScreenshot.
var tabProbe = target.Probe{Tree: true, Injection: "cdp", Capture: true}

// TabID is the target ID of the tab with CDP target id cdpID.
func TabID(cdpID string) target.ID { return target.ID("tab:" + cdpID) }

// liveTab is the seam for the live view: the tab of a tab: target, as last
// reached by a verb. A tab that closed is tab_gone; an id that is no tab
// the daemon knows is unknown_target.
func (d *Daemon) liveTab(id target.ID) (*cdp.Tab, error) {
	d.br.init()
	d.br.mu.Lock()
	ts := d.br.tabs[id]
	var tab *cdp.Tab
	if ts != nil {
		tab = ts.tab
	}
	d.br.mu.Unlock()
	if ts == nil {
		return nil, target.Refuse(target.CodeUnknownTarget, "there is no tab %s", id).With("target", string(id))
	}
	if tab == nil || isGone(tab) {
		return nil, target.Refuse(target.CodeTabGone, "tab %s has closed", id).With("target", string(id))
	}
	return tab, nil
}

func isGone(t *cdp.Tab) bool {
	select {
	case <-t.Gone():
		return true
	default:
		return false
	}
}

// noBrowser is the refusal of every browser verb on a daemon without a
// browser backend.
func noBrowser() error {
	return target.Refuse(target.CodeNoBrowser, "this daemon has no browser backend (Chromium was not configured or not found; see doctor)")
}

// dropTab forgets a tab target (closed, crashed, or its context went).
func (d *Daemon) dropTab(id target.ID) {
	d.br.init()
	d.br.mu.Lock()
	delete(d.br.tabs, id)
	for k, v := range d.br.current {
		if v == id {
			delete(d.br.current, k)
		}
	}
	d.br.mu.Unlock()
	d.drop(id)
}

// refreshTab re-reads a tab target's title and URL; a tab that closed is
// dropped and refused tab_gone.
func (d *Daemon) refreshTab(ctx context.Context, e *entry) error {
	d.br.init()
	d.br.mu.Lock()
	ts := d.br.tabs[e.t.ID]
	var tab *cdp.Tab
	if ts != nil {
		tab = ts.tab
	}
	d.br.mu.Unlock()
	if ts == nil || (tab != nil && isGone(tab)) {
		d.dropTab(e.t.ID)
		return target.Refuse(target.CodeTabGone, "tab %s has closed", e.t.ID).With("target", string(e.t.ID))
	}
	if tab == nil {
		return nil
	}
	title, err := tab.Title(ctx)
	if target.CodeOf(err) == target.CodeTabGone {
		d.dropTab(e.t.ID)
		return err
	}
	u, _ := tab.URL(ctx)
	if err == nil {
		d.mu.Lock()
		e.t.Title, e.t.App = title, u
		d.mu.Unlock()
	}
	return nil
}

// closeTab is close on a tab: target (the kind-agnostic verb): the caller
// must be exposed to it and get its lease, as for a window.
func (d *Daemon) closeTab(ctx context.Context, req Request, id target.ID) Response {
	e, g, err := d.use(ctx, req)
	if err != nil {
		return d.finish(req, e, g, "", Response{}, err)
	}
	if d.cfg.Browser == nil {
		return d.finish(req, e, g, "", Response{}, noBrowser())
	}
	d.br.init()
	d.br.mu.Lock()
	ts := d.br.tabs[id]
	d.br.mu.Unlock()
	info := d.info(e)
	if ts != nil {
		cctx, release, err := d.cfg.Browser.Context(ctx, ts.key)
		if err == nil {
			err = cctx.CloseTab(ctx, ts.cdpID)
			release()
		}
		if err != nil && target.CodeOf(err) != target.CodeTabGone && target.CodeOf(err) != target.CodeUnknownTarget {
			return d.finish(req, e, g, "", Response{}, err)
		}
	}
	d.dropTab(id)
	resp := d.finish(req, nil, g, "", Response{Did: fmt.Sprintf("closed tab %s", id)}, nil)
	info.Lease, info.Holder = "gone", ""
	resp.Target = info
	return resp
}

// tabCapabilities is the capability law's answer for a tab, per verb: the
// tree through CDP's accessibility domain, input through CDP Input.
func tabCapabilities() []target.Capability {
	out := capabilities(tabProbe)
	why := map[target.Verb]string{
		target.VerbSnapshot:   "the page's accessibility tree, through CDP",
		target.VerbScreenshot: "the page's viewport, through Page.captureScreenshot",
		target.VerbClickRef:   "per node: CDP Input at the node's centre, once it is visible, enabled and uncovered",
		target.VerbTypeRef:    "per node: focus the field, then CDP key events (fill: Input.insertText)",
	}
	for i := range out {
		if w, ok := why[out[i].Verb]; ok {
			out[i].Why = w
		}
		switch out[i].Verb {
		case target.VerbClickRef:
			out[i].Road = target.RoadPoint
		case target.VerbTypeRef:
			out[i].Road = target.RoadKeys
		}
	}
	return out
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
