package kind

import (
	"context"
	"encoding/json"

	"github.com/vibespace/vibespace/target"
)

// NoBrowser is the refusal of every browser word on a daemon without a
// browser backend (no Browser configured): the core's, the profile words'
// and the live view's alike.
func NoBrowser() error {
	return target.Refuse(target.CodeNoBrowser, "this daemon has no browser backend (Chromium was not configured or not found; see doctor)")
}

// Browser runs the browsers that tabs live in (package daemon/chromium): one
// shared browser holding an ephemeral browser context per session, and one
// browser per persistent profile.
type Browser interface {
	// Context returns the browser context key names, starting the browser
	// it lives in when it is not running (lazily, and again after a
	// crash). Starting one more browser than the ceiling allows is refused
	// browser_limit. The browser counts as in use (never stopped as idle)
	// until release is called.
	Context(ctx context.Context, key BrowserKey) (c BrowserContext, release func(), err error)
	// Release disposes of an ephemeral context (its tabs close, its
	// cookies are gone). A profile's context is left alone: its browser
	// stops when idle.
	Release(ctx context.Context, key BrowserKey) error
	// Running reports whether the browser of profile id is up ("" is the
	// shared browser).
	Running(profile string) bool
	// Observe registers f, called (outside the backend's locks) whenever a
	// browser started or stopped, so the daemon persists Record.
	Observe(f func())
	// Record names the browsers running now, for a restarted daemon's
	// Reap.
	Record() json.RawMessage
	// Reap stops the browsers an earlier daemon left running, from its
	// Record.
	Reap(ctx context.Context, record json.RawMessage)
	// Doctor says what this machine offers for browsers.
	Doctor(ctx context.Context) []Check
	// Close stops every browser and reaps its processes.
	Close() error
}

// BrowserUsage is what a Browser may also tell and do for the live view's
// strip: which browsers run, for whom, under which ceiling, and stopping one
// a person chose (package daemon/chromium's Pool is one).
type BrowserUsage interface {
	// Usage is every browser running now and the ceiling on them.
	Usage() Usage
	// Stop stops the browser of profile id ("" is the shared browser, which
	// holds every session's own context, and is refused bad_request). A
	// browser a verb is using now is refused browser_in_use; one not running
	// is bad_request.
	Stop(ctx context.Context, profile string) error
}

// Usage is the browsers running and the ceiling on them.
type Usage struct {
	Max      int           `json:"max"` // the most that may run at once
	Browsers []BrowserUsed `json:"browsers"`
}

// BrowserUsed is one running browser.
type BrowserUsed struct {
	Profile string   `json:"profile,omitempty"` // "" the shared browser
	Label   string   `json:"label,omitempty"`
	Users   []string `json:"users"` // the sessions that used it, sorted
	Busy    bool     `json:"busy"`  // a verb uses it now
}

// BrowserContext is one browser context: its own cookies, storage and tabs.
type BrowserContext interface {
	// NewTab opens a blank tab.
	NewTab(ctx context.Context) (Target, error)
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
	Headed  bool   `json:"headed,omitempty"`  // on one of our displays instead of headless
	Display string `json:"display,omitempty"` // that display (":N") when Headed
	// Provider is the profile's provider row when its browser is somebody
	// else's (cdp, cloud:<name>); "" is the daemon's own Chromium. Such a
	// browser is connected to at Endpoint (shown in messages; never a key)
	// by dialling Connect (the URL the row builds, which may carry the
	// key: never marshalled, logged or answered), never launched or killed.
	Provider string `json:"provider,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Connect  string `json:"-"`
}

// String is the key's identity: "p:<id>" or "e:<owner>".
func (k BrowserKey) String() string {
	if k.Profile != "" {
		return "p:" + k.Profile
	}
	return "e:" + k.Owner
}
