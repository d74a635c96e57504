package args

// The arguments of the words that reach no node: opening, the lease and
// the operator's words, the user's desktop, the browser's profiles and
// tabs, the trace, the budget and the provider keys. Most hold no rule of
// their own: what they refuse needs the daemon's state.

import (
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Open is a window's open: a program and its arguments, the display it
// opens on ("" the default) and its mode ("" auto).
type Open struct {
	App     string   `json:"app" jsonschema:"a program on PATH, or a path"`
	Args    []string `json:"args,omitempty" jsonschema:"arguments for the application"`
	Display string   `json:"display,omitempty" jsonschema:"xvfb (the default, our own display) or xpra (your session's own display a person can attach)"`
	Mode    string   `json:"mode,omitempty" jsonschema:"auto (the default), tree or pixels"`
}

// OpenOf reads open's arguments from req.
func OpenOf(req wire.Request) Open {
	a := Open{Display: req.Display, Mode: req.Mode}
	if len(req.Argv) > 0 {
		a.App, a.Args = req.Argv[0], req.Argv[1:]
	}
	return a
}

func (a Open) Validate() error {
	if a.Mode == "" {
		return nil
	}
	_, err := target.ParseMode(a.Mode)
	return err
}

func (a Open) Into(req *wire.Request) {
	req.Argv = nil
	if a.App != "" || len(a.Args) > 0 {
		req.Argv = append([]string{a.App}, a.Args...)
	}
	req.Display, req.Mode = a.Display, a.Mode
}

// Mode is the mode verb's: the window's new mode.
type Mode struct {
	Mode string `json:"mode"`
}

// ModeOf reads the mode verb's arguments from req.
func ModeOf(req wire.Request) Mode { return Mode{Mode: req.Mode} }

// Validate refuses no mode word, or one that is not a mode.
func (a Mode) Validate() error {
	_, err := target.ParseMode(a.Mode)
	return err
}

func (a Mode) Into(req *wire.Request) { req.Mode = a.Mode }

// Share is share's: the session the window is shared with.
type Share struct {
	With string `json:"with"`
}

// ShareOf reads share's arguments from req.
func ShareOf(req wire.Request) Share { return Share{With: req.With} }

func (a Share) Validate() error { return nil }

func (a Share) Into(req *wire.Request) { req.With = a.With }

// Operator is takeover's and handback's: who takes over or hands back,
// and handback's override.
type Operator struct {
	User  string `json:"user,omitempty"`
	Force bool   `json:"force,omitempty"`
}

// OperatorOf reads takeover's or handback's arguments from req.
func OperatorOf(req wire.Request) Operator { return Operator{User: req.User, Force: req.Force} }

func (a Operator) Validate() error { return nil }

func (a Operator) Into(req *wire.Request) { req.User, req.Force = a.User, a.Force }

// Watch is watch's: xpra's own client instead of the live view, and how
// a remote person reaches this machine (user@host, the command line's
// --ssh).
type Watch struct {
	Xpra bool   `json:"xpra,omitempty" jsonschema:"for a window on an xpra display: the commands a person runs to attach xpra's own client"`
	Host string `json:"ssh,omitempty" jsonschema:"with xpra: how a remote person reaches this machine (user@host)"`
}

// WatchOf reads watch's arguments from req.
func WatchOf(req wire.Request) Watch { return Watch{Xpra: req.Xpra, Host: req.Host} }

func (a Watch) Validate() error { return nil }

func (a Watch) Into(req *wire.Request) { req.Xpra, req.Host = a.Xpra, a.Host }

// Desktop is the operator's desktop verb: its word (status, on, off,
// pixels, no-pixels) and the caller's own desktop session. Which words
// take a handle is the desktop's gate's to say.
type Desktop struct {
	Action string           `json:"action,omitempty"`
	Env    *wire.DesktopEnv `json:"desktop,omitempty"`
}

// DesktopOf reads the desktop verb's arguments from req.
func DesktopOf(req wire.Request) Desktop { return Desktop{Action: req.Action, Env: req.Desktop} }

func (a Desktop) Validate() error { return nil }

func (a Desktop) Into(req *wire.Request) { req.Action, req.Desktop = a.Action, a.Env }

// Doctor is doctor's: the caller's own desktop session, as its
// environment has it.
type Doctor struct {
	Env *wire.DesktopEnv `json:"desktop,omitempty"`
}

// DoctorOf reads doctor's arguments from req.
func DoctorOf(req wire.Request) Doctor { return Doctor{Env: req.Desktop} }

func (a Doctor) Validate() error { return nil }

func (a Doctor) Into(req *wire.Request) { req.Desktop = a.Env }

// OpenURL is a tab's open: the address to load.
type OpenURL struct {
	URL string `json:"url" jsonschema:"the address to load"`
}

// OpenURLOf reads a tab's open's arguments from req.
func OpenURLOf(req wire.Request) OpenURL { return OpenURL{URL: req.URL} }

func (a OpenURL) Validate() error { return nil }

func (a OpenURL) Into(req *wire.Request) { req.URL = a.URL }

// Nav is back's, forward's and reload's: whether to watch for the effect.
type Nav struct {
	NoVerify bool `json:"no_verify,omitempty"`
}

// NavOf reads a navigation's arguments from req.
func NavOf(req wire.Request) Nav { return Nav{NoVerify: req.NoVerify} }

func (a Nav) Validate() error { return nil }

func (a Nav) Into(req *wire.Request) { req.NoVerify = a.NoVerify }

// Tab is the tab verb's: list, new (at URL), close or select (the tab is
// the request's target).
type Tab struct {
	Action string `json:"action,omitempty"`
	URL    string `json:"url,omitempty"`
}

// TabOf reads the tab verb's arguments from req.
func TabOf(req wire.Request) Tab { return Tab{Action: req.Action, URL: req.URL} }

func (a Tab) Validate() error { return nil }

func (a Tab) Into(req *wire.Request) { req.Action, req.URL = a.Action, a.URL }

// New is new's: a profile's label, where its browser comes from (a
// provider, a backend, a remote endpoint) and, for a desktop app, its
// URL, size and mode; Headed runs a profile's browser on our display.
// Which providers exist and what each takes is the daemon's provider
// rows' to say.
type New struct {
	Label    string `json:"label"`
	Provider string `json:"provider,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Backend  string `json:"backend,omitempty"`
	URL      string `json:"url,omitempty"`
	Size     string `json:"size,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Headed   bool   `json:"headed,omitempty"`
}

// NewOf reads new's arguments from req.
func NewOf(req wire.Request) New {
	return New{Label: req.Label, Provider: req.Provider, Endpoint: req.Endpoint, Backend: req.Backend,
		URL: req.URL, Size: req.Size, Mode: req.Mode, Headed: req.Headed}
}

func (a New) Validate() error { return nil }

func (a New) Into(req *wire.Request) {
	req.Label, req.Provider, req.Endpoint, req.Backend = a.Label, a.Provider, a.Endpoint, a.Backend
	req.URL, req.Size, req.Mode, req.Headed = a.URL, a.Size, a.Mode, a.Headed
}

// Close is a tab's close: the desktop app's profile (label or id).
type Close struct {
	Label string `json:"label"`
}

// CloseOf reads close's arguments from req.
func CloseOf(req wire.Request) Close { return Close{Label: req.Label} }

func (a Close) Validate() error {
	if isBlank(a.Label) {
		return badRequest("close needs a desktop app's profile: close <label|id> (a tab closes with tab close)")
	}
	return nil
}

func (a Close) Into(req *wire.Request) { req.Label = a.Label }

// Use is use's: the profile attached (label or id; "profile" as a tool
// names it), under an alias.
type Use struct {
	Label string `json:"profile" jsonschema:"the profile's label or id (browser_profiles)"`
	Alias string `json:"alias,omitempty" jsonschema:"the handle your session names it by"`
}

// UseOf reads use's arguments from req.
func UseOf(req wire.Request) Use { return Use{Label: req.Label, Alias: req.Alias} }

func (a Use) Validate() error { return nil }

func (a Use) Into(req *wire.Request) { req.Label, req.Alias = a.Label, a.Alias }

// Pin is pin's: the profile a session's default is pinned to, or None.
type Pin struct {
	Profile string `json:"profile,omitempty"`
	None    bool   `json:"none,omitempty"`
}

// PinOf reads pin's arguments from req.
func PinOf(req wire.Request) Pin { return Pin{Profile: req.Profile, None: req.None} }

func (a Pin) Validate() error { return nil }

func (a Pin) Into(req *wire.Request) { req.Profile, req.None = a.Profile, a.None }

// Child is new-child's: what the helper is for, as the live view names
// its tabs.
type Child struct {
	Task string `json:"task,omitempty"`
}

// ChildOf reads new-child's arguments from req.
func ChildOf(req wire.Request) Child { return Child{Task: req.Task} }

func (a Child) Validate() error { return nil }

func (a Child) Into(req *wire.Request) { req.Task = a.Task }

// Trace is trace's: the steps answered (0: the default), or pictures on
// or off (Action "pictures-on", "pictures-off").
type Trace struct {
	Last   int    `json:"last,omitempty"`
	Action string `json:"action,omitempty"`
}

// TraceOf reads trace's arguments from req.
func TraceOf(req wire.Request) Trace { return Trace{Last: req.Last, Action: req.Action} }

// Validate refuses nothing: the trace's stage reads its own words.
func (a Trace) Validate() error { return nil }

func (a Trace) Into(req *wire.Request) { req.Last, req.Action = a.Last, a.Action }

// Budget is budget's: acting verbs allowed (-1: no bound), minutes
// allowed from now (-1: no bound), or a reset.
type Budget struct {
	Steps   int  `json:"steps,omitempty"`
	Minutes int  `json:"minutes,omitempty"`
	Reset   bool `json:"reset,omitempty"`
}

// BudgetOf reads budget's arguments from req.
func BudgetOf(req wire.Request) Budget {
	return Budget{Steps: req.Steps, Minutes: req.Minutes, Reset: req.Reset}
}

// Validate refuses nothing: the budget's stage reads its own bounds.
func (a Budget) Validate() error { return nil }

func (a Budget) Into(req *wire.Request) {
	req.Steps, req.Minutes, req.Reset = a.Steps, a.Minutes, a.Reset
}

// KeySet is key set's: the provider and its key. The key is read from
// stdin, never argv or the environment; the daemon never answers, logs
// or audits it. Which providers take a key is the daemon's to say.
type KeySet struct {
	Provider string `json:"provider"`
	Secret   string `json:"secret"`
}

// KeySetOf reads key set's arguments from req.
func KeySetOf(req wire.Request) KeySet { return KeySet{Provider: req.Provider, Secret: req.Secret} }

func (a KeySet) Validate() error { return nil }

func (a KeySet) Into(req *wire.Request) { req.Provider, req.Secret = a.Provider, a.Secret }

// KeyNamed is key clear's and key list's: the provider ("" every one, for
// list).
type KeyNamed struct {
	Provider string `json:"provider,omitempty"`
}

// KeyNamedOf reads key clear's or key list's arguments from req.
func KeyNamedOf(req wire.Request) KeyNamed { return KeyNamed{Provider: req.Provider} }

func (a KeyNamed) Validate() error { return nil }

func (a KeyNamed) Into(req *wire.Request) { req.Provider = a.Provider }
