// Package provider is the table of where a browser comes from: one row a
// provider (chromium, cdp, cloud:browserless, desktop-app, local-window),
// each saying which kind of target it gives, its tier, how it starts, the
// DevTools URL it hands out, whether the directory is ours, whether it can
// be switched, which key it reads, and what it cannot do and why. The CLI,
// doctor, the daemon's gate and the capability law (a target's probe
// stamped with its row: Row.Stamp) read the rows; nothing branches on a
// provider's name outside this table. It is a leaf: it imports only the
// shared model.
package provider

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// Kind is the kind of target a provider gives.
type Kind string

// The kinds: a tab driven over DevTools, or a window driven by its tree
// and pixels.
const (
	KindTab    Kind = "tab"
	KindWindow Kind = "window"
)

// Tier is where the browser runs and who owns it.
type Tier string

// The tiers.
const (
	TierLocal  Tier = "local"  // started by the daemon on this machine
	TierRemote Tier = "remote" // somebody else's browser, reached by its DevTools endpoint
	TierCloud  Tier = "cloud"  // a hosted service, reached by its documented connect URL and a key
)

// The provider names.
const (
	Chromium    = "chromium"
	Firefox     = "firefox"
	CDP         = "cdp"
	Browserless = "cloud:browserless"
	DesktopApp  = "desktop-app"
	LocalWindow = "local-window"
)

// Features a row may lack: the verbs of the daemon ("browser.close"), the
// flags that change how a browser runs ("headed"), the groups of verbs a
// kind has not ("pages"), and the verbs of the capability law
// (target.LawVerbs: "screenshot", "click_at", …), which the law reads
// through the target's probe (Stamp) and refuses before any road.
const (
	FeatureHeaded = "headed"        // run the profile's browser headed on our display (a relaunch)
	FeatureClose  = "browser.close" // stop the profile's browser
	FeaturePages  = "pages"         // the page verbs over DevTools
)

// Cannot is one thing a provider cannot do, and why.
type Cannot struct {
	Feature string `json:"feature"`
	Why     string `json:"why"`
}

// Row is one provider.
type Row struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	Tier Tier   `json:"tier"`
	// Starts says how its browser starts, in words.
	Starts string `json:"starts"`
	// Hands is the DevTools URL it hands out, in words ("" for a window).
	Hands string `json:"hands,omitempty"`
	// OwnsDir: the browser's directory is ours (under the state dir), so
	// we make and keep it.
	OwnsDir bool `json:"owns_dir"`
	// CanSwitch: the daemon may start, stop and relaunch its browser
	// (headed, headless): it is ours.
	CanSwitch bool `json:"can_switch"`
	// KeyScope is the key name in the daemon's key store that its connect
	// URL carries; "" takes no key.
	KeyScope string `json:"key_scope,omitempty"`
	// LeaseKind is what a lease is taken on: a tab or a window.
	LeaseKind Kind `json:"lease_kind"`
	// Endpoint: "required" (cdp), "optional" (a cloud region host) or "".
	Endpoint string `json:"endpoint,omitempty"`
	// DefaultEndpoint is the endpoint used when none is given.
	DefaultEndpoint string `json:"default_endpoint,omitempty"`
	// Profile: the row is chosen for a profile by new --provider.
	Profile bool `json:"profile"`
	// Named: a profile of the row keeps the row's name, which its
	// browser key carries to the backend that runs it (a local browser
	// other than the daemon's Chromium: Firefox).
	Named bool `json:"named,omitempty"`
	// Cannot lists what it cannot do.
	Cannot []Cannot `json:"cannot,omitempty"`
}

// notOurs is why someone else's browser is never switched or stopped.
const notOurs = "it is somebody else's browser: the daemon did not start it, so it never relaunches or stops it (it only disconnects)"

var rows = []Row{
	{
		Name: Chromium, Kind: KindTab, Tier: TierLocal, Profile: true,
		Starts:  "the daemon starts a headless Chromium (headed on our display with --headed) with CDP on a pipe, a profile's directory under the state dir",
		Hands:   "none: CDP runs on the pipe the daemon holds; it listens on no port",
		OwnsDir: true, CanSwitch: true, LeaseKind: KindTab,
	},
	{
		Name: Firefox, Kind: KindTab, Tier: TierLocal, Profile: true, Named: true,
		Starts:    "the daemon starts a headless Firefox (firefox-esr) with a fresh profile, in a network namespace of its own, driven over WebDriver BiDi; each session its own user context",
		Hands:     "none: its Remote Agent listens only inside the browser's own network namespace, reached by the daemon's relay over an inherited socket",
		LeaseKind: KindTab,
		Cannot: []Cannot{
			{Feature: FeatureHeaded, Why: "a Firefox runs headless only, for now"},
			{Feature: FeatureClose, Why: "not built for Firefox yet: its browser stops with the daemon"},
		},
	},
	{
		Name: CDP, Kind: KindTab, Tier: TierRemote, Profile: true,
		Starts:    "never started by us: an existing DevTools endpoint (ws://host:port/devtools/browser/<id>, or http://host:port whose /json/version names it)",
		Hands:     "the endpoint as given",
		LeaseKind: KindTab, Endpoint: "required",
		Cannot: []Cannot{
			{Feature: FeatureHeaded, Why: notOurs},
			{Feature: FeatureClose, Why: notOurs},
		},
	},
	{
		Name: Browserless, Kind: KindTab, Tier: TierCloud, Profile: true,
		Starts:   "Browserless starts a fresh Chromium per connection (its hosted service; --endpoint names another region host)",
		Hands:    "wss://<region host>?token=<key> (the key added by the daemon at connect time, never shown)",
		KeyScope: Browserless, LeaseKind: KindTab, Endpoint: "optional",
		DefaultEndpoint: "wss://production-sfo.browserless.io",
		Cannot: []Cannot{
			{Feature: FeatureHeaded, Why: "it runs on the service's machines: there is no display of ours to show it on"},
			{Feature: FeatureClose, Why: "the service ends its browser when the connection ends; the daemon only disconnects"},
		},
	},
	{
		Name: DesktopApp, Kind: KindWindow, Tier: TierLocal, Profile: true,
		Starts:  "the daemon starts a headed Chromium as a window of the session's Xpra display, accessibility on, no DevTools",
		OwnsDir: true, CanSwitch: true, LeaseKind: KindWindow,
		Cannot: []Cannot{{Feature: FeaturePages, Why: "it has no DevTools: drive its window (win:N) with vibespace-window"}},
	},
	{
		Name: LocalWindow, Kind: KindWindow, Tier: TierLocal,
		Starts:    "vibespace-window open <program>: any program (a browser among them) as a window of a display of ours",
		LeaseKind: KindWindow,
		Cannot: []Cannot{
			{Feature: FeaturePages, Why: "a window has no DevTools: drive it with vibespace-window"},
			{Feature: "profile", Why: "it is no browser profile: open it with vibespace-window open"},
		},
	},
}

// All is every row, in the table's order.
func All() []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = r
		out[i].Cannot = slices.Clone(r.Cannot)
	}
	return out
}

// Names is every provider's name.
func Names() []string { return NamesOf(rows) }

// NamesOf is the name of each row of table, in its order.
func NamesOf(table []Row) []string {
	out := make([]string, 0, len(table))
	for _, r := range table {
		out = append(out, r.Name)
	}
	return out
}

// Keyed is the names of the providers that read a key.
func Keyed() []string {
	var out []string
	for _, r := range rows {
		if r.KeyScope != "" {
			out = append(out, r.Name)
		}
	}
	return out
}

// Lookup finds a row by name; "" is the built-in chromium.
func Lookup(name string) (Row, bool) { return LookupIn(rows, name) }

// LookupIn is Lookup in table (a table of rows changed for a test, say):
// the row, with a Cannot list of its own.
func LookupIn(table []Row, name string) (Row, bool) {
	if name == "" {
		name = Chromium
	}
	for _, r := range table {
		if r.Name == name {
			r.Cannot = slices.Clone(r.Cannot)
			return r, true
		}
	}
	return Row{}, false
}

// Remote reports whether the row's browser is somebody else's (not started
// by the daemon, reached by an endpoint).
func (r Row) Remote() bool { return r.Kind == KindTab && r.Tier != TierLocal }

// Why is why r cannot do feature, or "" if it can.
func (r Row) Why(feature string) string {
	for _, c := range r.Cannot {
		if c.Feature == feature {
			return c.Why
		}
	}
	return ""
}

// Refuse is nil when r can do feature, else not_on_this_provider naming
// the provider, the feature and why.
func (r Row) Refuse(feature string) error {
	why := r.Why(feature)
	if why == "" {
		return nil
	}
	return target.Refuse(target.CodeNotOnThisProvider, "%s is not done on provider %s: %s", feature, r.Name, why).
		With("provider", r.Name).With("feature", feature).With("reason", why)
}

// Stamp is p with r named as its provider and what r cannot do among the
// verbs of the capability law (target.Decide refuses those first,
// not_on_this_provider). The row's other features are not the law's: the
// daemon's gate refuses them (Refuse).
func (r Row) Stamp(p target.Probe) target.Probe {
	p.Provider = r.Name
	p.ProviderCannot = nil
	for _, c := range r.Cannot {
		if target.IsLawVerb(c.Feature) {
			if p.ProviderCannot == nil {
				p.ProviderCannot = map[target.Verb]string{}
			}
			p.ProviderCannot[target.Verb(c.Feature)] = c.Why
		}
	}
	return p
}

// CheckEndpoint validates an endpoint given for r, answering the one kept:
// for cdp a ws:// or wss:// DevTools URL or an http(s) base whose
// /json/version names one (required); for a cloud row a ws:// or wss://
// host (optional, the default region when ""), with no token in it (the
// key is the daemon's to add). Anything else is bad_request.
func (r Row) CheckEndpoint(endpoint string) (string, error) {
	bad := func(format string, args ...any) error {
		return target.Refuse(target.CodeBadRequest, format, args...).With("provider", r.Name)
	}
	if r.Endpoint == "" {
		if endpoint != "" {
			return "", bad("provider %s takes no --endpoint", r.Name)
		}
		return "", nil
	}
	if endpoint == "" {
		if r.Endpoint == "required" {
			return "", bad("provider %s needs --endpoint (ws://host:port/devtools/browser/<id>, or http://host:port)", r.Name)
		}
		return "", nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", bad("the endpoint %s is no URL with a host", target.Echo(endpoint))
	}
	if u.User != nil {
		return "", bad("the endpoint carries credentials: give the key with vibespace-browser key set %s", r.Name)
	}
	schemes := []string{"ws", "wss"}
	if r.Name == CDP {
		schemes = append(schemes, "http", "https")
	}
	if !slices.Contains(schemes, u.Scheme) {
		return "", bad("the endpoint of provider %s is %s, not %s://", r.Name, strings.Join(schemes, ":// or "), u.Scheme)
	}
	if r.KeyScope != "" {
		if u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
			return "", bad("the endpoint of provider %s is a host (wss://<region host>): its token is the daemon's key, never part of the endpoint", r.Name)
		}
		u.Path = ""
	}
	return u.String(), nil
}

// ConnectURL is the URL r's browser is dialled at: for cdp the endpoint
// (an http base is resolved through /json/version by the caller); for a
// cloud row the service's documented shape, the key as ?token=. The URL
// carries the key: it is dialled, never logged or answered.
func (r Row) ConnectURL(endpoint, key string) (string, error) {
	if endpoint == "" {
		endpoint = r.DefaultEndpoint
	}
	if endpoint == "" {
		return "", fmt.Errorf("provider %s: no endpoint", r.Name)
	}
	if r.KeyScope == "" {
		return endpoint, nil
	}
	if key == "" {
		return "", target.Refuse(target.CodeNoKey, "provider %s needs a key and none is set: vibespace-browser key set %s (reads it from stdin)", r.Name, r.Name).With("provider", r.Name)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("provider %s: endpoint: %w", r.Name, err)
	}
	q := u.Query()
	q.Set("token", key)
	u.RawQuery = q.Encode()
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), nil
}

// New is what new <label> asks of where a profile's browser comes from:
// its --provider, --backend and --endpoint, and whether a desktop app's
// flags (--url, --size, --mode) were given.
type New struct {
	Provider, Backend, Endpoint string
	App                         bool
}

// CheckNew checks new's words against table before anything is registered
// or started: the provider is a profile's row, --backend agrees with it,
// --endpoint is a remote row's (and checked: CheckEndpoint), and a desktop
// app's flags are a desktop app's. It answers whether the profile is a
// desktop app, whose flags the caller checks.
func CheckNew(table []Row, n New) (desktopApp bool, err error) {
	backend := n.Backend
	if n.Provider != "" {
		row, ok := LookupIn(table, n.Provider)
		if !ok || !row.Profile {
			var names []string
			for _, r := range table {
				if r.Profile {
					names = append(names, r.Name)
				}
			}
			why := ""
			if ok {
				why = ": " + row.Why("profile")
			}
			return false, target.Refuse(target.CodeBadRequest, "there is no profile provider %s%s (one of %s)", target.Echo(n.Provider), why, strings.Join(names, ", ")).
				With("providers", names)
		}
		if b := backend; b != "" && !(b == "cdp" && row.Name == Chromium || b == row.Name) {
			return false, target.Refuse(target.CodeBadRequest, "--backend %s and --provider %s disagree: give one", target.Echo(n.Backend), row.Name)
		}
		if row.Remote() {
			if n.App {
				return false, target.Refuse(target.CodeBadRequest, "--url, --size and --mode are a desktop app's, not provider %s's", row.Name)
			}
			_, err := row.CheckEndpoint(n.Endpoint)
			return false, err
		}
		if n.Endpoint != "" {
			return false, target.Refuse(target.CodeBadRequest, "provider %s takes no --endpoint", row.Name).With("provider", row.Name)
		}
		if row.Name == DesktopApp {
			backend = DesktopApp
		}
	} else if n.Endpoint != "" {
		return false, target.Refuse(target.CodeBadRequest, "--endpoint is a remote provider's: new <label> --provider cdp --endpoint ws://host:port/devtools/browser/<id>")
	}
	switch backend {
	case "", "cdp":
		if n.App {
			return false, target.Refuse(target.CodeBadRequest, "--url, --size and --mode are a desktop app's: new <label> --backend desktop-app [--url U] [--size WxH] [--mode auto|tree|pixels]")
		}
		return false, nil
	case DesktopApp:
		return true, nil
	}
	return false, target.Refuse(target.CodeBadRequest, "there is no backend %s: use cdp (the default) or desktop-app", target.Echo(n.Backend)).
		With("backends", []string{"cdp", DesktopApp})
}
