package args

// The arguments of the words that reach no node: opening, the lease and
// the operator's words, the user's desktop, the browser's profiles and
// tabs, the trace, the budget, the provider keys and the desktop pool. Most hold no rule of
// their own: what they refuse needs the daemon's state.

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Open is a window's open: a program and its arguments, the display it
// opens on ("" the default) and its mode ("" auto).
type Open struct {
	App     string   `json:"app" jsonschema:"a program on PATH, or a path"`
	Args    []string `json:"args,omitempty" jsonschema:"its arguments"`
	Display string   `json:"display,omitempty" jsonschema:"xvfb (default), xpra (a person can attach) or your borrowed deskN"`
	Mode    string   `json:"mode,omitempty" jsonschema:"auto (the default), tree or pixels"`
}

func (a Open) Validate() error {
	if a.Mode == "" {
		return nil
	}
	_, err := target.ParseMode(a.Mode)
	return err
}

// MaxBorrowWait bounds how long a borrow queues (--wait); the daemon's
// verb timeout bounds it too.
const MaxBorrowWait = 10 * time.Minute

// Borrow is borrow's: the display kind of the desktop wanted ("" any)
// and how long to queue for one when every desktop is lent (a duration,
// "30s"; "" not at all).
type Borrow struct {
	Kind string `json:"kind,omitempty" jsonschema:"xvfb or xpra (default any)"`
	Wait string `json:"wait,omitempty" jsonschema:"how long to queue, e.g. 30s"`
}

// Validate refuses a wait that is no duration, negative or past
// MaxBorrowWait.
func (a Borrow) Validate() error {
	_, err := a.WaitFor()
	return err
}

// WaitFor is the wait as a duration (0 for none).
func (a Borrow) WaitFor() (time.Duration, error) { return waitArg(a.Wait, 0, MaxBorrowWait, "30s") }

// waitArg reads a --wait: "" is 0; else a duration from least (0, or
// above 0 when least is 1ns) to most, refused bad_request naming an
// example like.
func waitArg(s string, least, most time.Duration, like string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < least || d > most {
		from := "from 0"
		if least > 0 {
			from = "above 0 and"
		}
		return 0, badRequest("--wait takes a duration %s up to %v, like %s; got %s", from, most, like, target.Echo(s)).With("wait", target.Clip(s))
	}
	return d, nil
}

// MaxHandoffWait bounds how long a hand-off waits for a person (--wait),
// DefaultHandoffWait is its wait when none is given: a person needs
// minutes, not a verb's usual seconds (Bound). MaxReason bounds its reason.
const (
	MaxHandoffWait     = 30 * time.Minute
	DefaultHandoffWait = 5 * time.Minute
	MaxReason          = 300
)

// boundGrace is what a verb that waits as long as its arguments say gets
// beyond that wait: its answer's time.
const boundGrace = 15 * time.Second

// Bound is how long a verb with arguments a may run: def (the daemon's
// verb timeout), or, for a verb that waits as long as its arguments say
// (a hand-off waits for a person), that wait and a little more when it is
// longer.
func Bound(a any, def time.Duration) time.Duration {
	if w, ok := a.(interface{ waits() time.Duration }); ok {
		return max(def, w.waits()+boundGrace)
	}
	return def
}

// Handoff is handoff's: why the agent asks a person (shown in the live
// view beside "needs you") and how long to wait for them ("":
// DefaultHandoffWait).
type Handoff struct {
	Reason string `json:"reason" jsonschema:"what they should do"`
	Wait   string `json:"wait,omitempty" jsonschema:"e.g. 2m"`
}

// Validate refuses no reason, one too long, and a wait that is no
// duration, not positive or past MaxHandoffWait.
func (a Handoff) Validate() error {
	if strings.TrimSpace(a.Reason) == "" {
		return badRequest("handoff needs --reason: what the person should do there, e.g. --reason \"log in\"")
	}
	if n := utf8.RuneCountInString(a.Reason); n > MaxReason {
		return badRequest("--reason is %d characters; at most %d: a line for a person", n, MaxReason).With("chars", n)
	}
	_, err := a.WaitFor()
	return err
}

// WaitFor is the wait as a duration (DefaultHandoffWait for none).
func (a Handoff) WaitFor() (time.Duration, error) {
	if a.Wait == "" {
		return DefaultHandoffWait, nil
	}
	return waitArg(a.Wait, time.Nanosecond, MaxHandoffWait, "2m")
}

// waits is the wait the verb's bound must hold (Bound); 0 for a wait
// Validate refuses.
func (a Handoff) waits() time.Duration {
	d, _ := a.WaitFor()
	return d
}

// Mode is the mode verb's: the window's new mode.
type Mode struct {
	Mode string `json:"mode"`
}

// Validate refuses no mode word, or one that is not a mode.
func (a Mode) Validate() error {
	_, err := target.ParseMode(a.Mode)
	return err
}

// Share is share's: the session the window is shared with.
type Share struct {
	With string `json:"with"`
}

func (a Share) Validate() error { return nil }

// Operator is takeover's and handback's: who takes over or hands back,
// and handback's override.
type Operator struct {
	User  string `json:"user,omitempty"`
	Force bool   `json:"force,omitempty"`
}

func (a Operator) Validate() error { return nil }

// Watch is watch's: xpra's own client instead of the live view, and how
// a remote person reaches this machine (user@host, the command line's
// --ssh).
type Watch struct {
	Xpra bool   `json:"xpra,omitempty" jsonschema:"for a window on xpra: how a person attaches xpra's client"`
	Host string `json:"ssh,omitempty" jsonschema:"with xpra: the user@host a person reaches us at"`
}

func (a Watch) Validate() error { return nil }

// Reach is reach's: the address, and the goal ("click <name>": the
// control the flow goes through; else words to find).
type Reach struct {
	URL  string `json:"url" jsonschema:"the address"`
	Goal string `json:"goal,omitempty" jsonschema:"words to find, or click <name>"`
}

// waits is the bound a reach needs beyond one verb's (Bound): its fifth
// rung waits for a person as a hand-off does; each rung's verbs keep the
// daemon's verb timeout.
func (a Reach) waits() time.Duration { return DefaultHandoffWait }

func (a Reach) Validate() error {
	if strings.TrimSpace(a.URL) == "" {
		return badRequest("reach needs an address: reach https://example.org/")
	}
	return nil
}

// Desktop is the operator's desktop verb: its word (status, on, off,
// pixels, no-pixels) and the caller's own desktop session. Which words
// take a handle is the desktop's gate's to say.
type Desktop struct {
	Action string           `json:"action,omitempty"`
	Env    *wire.DesktopEnv `json:"desktop,omitempty"`
}

func (a Desktop) Validate() error { return nil }

// Doctor is doctor's: the caller's own desktop session, as its
// environment has it.
type Doctor struct {
	Env *wire.DesktopEnv `json:"desktop,omitempty"`
}

func (a Doctor) Validate() error { return nil }

// OpenURL is a tab's open: the address to load.
type OpenURL struct {
	URL string `json:"url" jsonschema:"the address to load"`
}

func (a OpenURL) Validate() error { return nil }

// Nav is back's, forward's and reload's: whether to watch for the effect.
type Nav struct {
	NoVerify bool `json:"no_verify,omitempty" jsonschema:"no effect check"`
}

func (a Nav) Validate() error { return nil }

// Tab is the tab verb's: list, new (at URL), close or select (the tab is
// the request's target).
type Tab struct {
	Action string `json:"action,omitempty"`
	URL    string `json:"url,omitempty"`
}

func (a Tab) Validate() error { return nil }

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

func (a New) Validate() error { return nil }

// Close is a tab's close: the desktop app's profile (label or id).
type Close struct {
	Label string `json:"label"`
}

func (a Close) Validate() error {
	if isBlank(a.Label) {
		return badRequest("close needs a desktop app's profile: close <label|id> (a tab closes with tab close)")
	}
	return nil
}

// Use is use's: the profile attached (label or id; "profile" as a tool
// names it), under an alias.
type Use struct {
	Label string `json:"profile" jsonschema:"the profile's label or id (browser_profiles)"`
	Alias string `json:"alias,omitempty" jsonschema:"the handle your session names it by"`
}

func (a Use) Validate() error { return nil }

// Pin is pin's: the profile a session's default is pinned to, or None.
type Pin struct {
	Profile string `json:"profile,omitempty"`
	None    bool   `json:"none,omitempty"`
}

func (a Pin) Validate() error { return nil }

// Child is new-child's: what the helper is for, as the live view names
// its tabs.
type Child struct {
	Task string `json:"task,omitempty"`
}

func (a Child) Validate() error { return nil }

// Trace is trace's: the steps answered (0: the default), or pictures on
// or off (Action "pictures-on", "pictures-off").
type Trace struct {
	Last   int    `json:"last,omitempty"`
	Action string `json:"action,omitempty"`
}

// Validate refuses nothing: the trace's stage reads its own words.
func (a Trace) Validate() error { return nil }

// Budget is budget's: acting verbs allowed (-1: no bound), minutes
// allowed from now (-1: no bound), or a reset.
type Budget struct {
	Steps   int  `json:"steps,omitempty"`
	Minutes int  `json:"minutes,omitempty"`
	Reset   bool `json:"reset,omitempty"`
}

// Validate refuses nothing: the budget's stage reads its own bounds.
func (a Budget) Validate() error { return nil }

// KeySet is key set's: the provider and its key. The key is read from
// stdin, never argv or the environment; the daemon never answers, logs
// or audits it. Which providers take a key is the daemon's to say.
type KeySet struct {
	Provider string `json:"provider"`
	Secret   string `json:"secret"`
}

func (a KeySet) Validate() error { return nil }

// KeyNamed is key clear's and key list's: the provider ("" every one, for
// list).
type KeyNamed struct {
	Provider string `json:"provider,omitempty"`
}

func (a KeyNamed) Validate() error { return nil }

// MaxBatchSteps bounds one batch's steps.
const MaxBatchSteps = 50

// Batch is batch's: steps run in order on the session's targets, each
// through the verb path as if sent alone, the batch stopping at the first
// step refused or whose expectation did not hold (daemon/batch).
type Batch struct {
	Steps []Step `json:"steps" jsonschema:"run in order"`
}

// Step is one step of a batch: a verb as its command line names it
// (click, type, fill, key, scroll, select, snapshot, find, get), its
// target (a window's; default the batch's own), its arguments as its own
// request carries them, and what must hold after it (Expect).
type Step struct {
	Verb   string         `json:"verb" jsonschema:"click, type, fill, key, scroll, select, snapshot, find, get…"`
	Target string         `json:"target,omitempty" jsonschema:"a step's window (default: handle)"`
	Args   map[string]any `json:"args,omitempty" jsonschema:"the arguments its tool takes"`
	Expect string         `json:"expect,omitempty" jsonschema:"after it: changed, text:<words> or window[:<title>]"`
}

func (a Batch) Validate() error {
	if len(a.Steps) == 0 {
		return badRequest("batch needs at least one step")
	}
	if len(a.Steps) > MaxBatchSteps {
		return badRequest("a batch takes at most %d steps, not %d (split it)", MaxBatchSteps, len(a.Steps))
	}
	for i, s := range a.Steps {
		if s.Verb == "" {
			return badRequest("batch step %d names no verb", i+1).With("step", i+1)
		}
		if _, err := ParseExpect(s.Expect); err != nil {
			return badRequest("batch step %d (%s): %s", i+1, target.Echo(s.Verb), err.Error()).With("step", i+1)
		}
	}
	return nil
}

// The expectations a batch step may carry.
const (
	ExpectChanged = "changed" // its effect: confirmed or changed_elsewhere
	ExpectText    = "text"    // text:<words>: a snapshot of the step's target holds them
	ExpectWindow  = "window"  // window[:<title>]: a new target opened (its title holding <title>)
)

// Expect is a step's expectation, parsed: its kind ("" none) and its
// words (text's, window's title).
type Expect struct {
	Kind, Words string
}

// ParseExpect reads an expectation: "", changed, text:<words>, window or
// window:<title>; quotes around the words are dropped.
func ParseExpect(s string) (Expect, error) {
	kind, words, has := strings.Cut(strings.TrimSpace(s), ":")
	words = strings.TrimSpace(words)
	if len(words) >= 2 && (words[0] == '"' && words[len(words)-1] == '"' || words[0] == '\'' && words[len(words)-1] == '\'') {
		words = words[1 : len(words)-1]
	}
	switch {
	case kind == "" && !has:
		return Expect{}, nil
	case kind == ExpectChanged && !has:
		return Expect{Kind: kind}, nil
	case kind == ExpectText && words != "":
		return Expect{Kind: kind, Words: words}, nil
	case kind == ExpectWindow && (!has || words != ""):
		return Expect{Kind: kind, Words: words}, nil
	}
	return Expect{}, errors.New(`--expect takes changed, text:"<words>", window or window:"<title>", not ` + target.Echo(s))
}
