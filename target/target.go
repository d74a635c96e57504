package target

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is what a target is: a native window or a browser tab.
type Kind string

// The kinds of target.
const (
	KindWindow Kind = "window"
	KindTab    Kind = "tab"
)

// KindWords are how handles, answers and refusals name the targets of one
// kind. Every kind has one row in the kinds table below; code elsewhere
// reads the row instead of switching on the kind.
type KindWords struct {
	Kind   Kind
	Prefix string // of its handles: "win" in win:3
	Noun   string // what --at's pixels are of, in answers: "window", "page"
	CLI    string // the command line whose words address it
	Paused Code   // the refusal of an agent verb while a person drives it
	Gone   Code   // the refusal of a verb on it once it is gone
	// Handles says what a handle of the kind looks like, for refusals.
	Handles string
}

var kinds = []KindWords{
	{Kind: KindWindow, Prefix: "win", Noun: "window", CLI: "vibespace-window", Paused: CodeWindowPaused, Gone: CodeWindowGone, Handles: "win:N, as list or open prints"},
	{Kind: KindTab, Prefix: "tab", Noun: "page", CLI: "vibespace-browser", Paused: CodeBrowserPaused, Gone: CodeTabGone, Handles: "tab:N, as tab list or open prints"},
}

// Words is the row of kind k; an unknown kind has an empty row.
func (k Kind) Words() KindWords {
	for _, w := range kinds {
		if w.Kind == k {
			return w
		}
	}
	return KindWords{Kind: k}
}

// ID names a target: "win:3" or "tab:3". It is stable for the target's
// life and is what agents pass as the handle of every verb. The daemon
// numbers windows and tabs apart (win:1 and tab:1 are two targets), and
// never mints a number twice.
type ID string

// WindowID is the ID of the n-th window target.
func WindowID(n int) ID { return ID("win:" + strconv.Itoa(n)) }

// TabID is the ID of the n-th tab target.
func TabID(n int) ID { return ID("tab:" + strconv.Itoa(n)) }

// ParseID checks that s is a target handle ("win:N" with N ≥ 1, or "tab:N",
// or a tab's handle of the old form "tab:<its CDP target id>": anything
// without spaces and without a second kind prefix). A handle that is not
// one is an unknown_target refusal naming what was given.
func ParseID(s string) (ID, error) {
	prefix, rest, ok := strings.Cut(s, ":")
	switch {
	case ok && prefix == "win":
		n, err := strconv.Atoi(rest)
		if err == nil && n >= 1 && strconv.Itoa(n) == rest {
			return ID(s), nil
		}
	case ok && prefix == "tab" && rest != "" && !strings.ContainsAny(rest, " \t\r\n") && ID(rest).Kind() == "":
		return ID(s), nil
	}
	return "", Refuse(CodeUnknownTarget, "%s is not a target handle (expected win:N, as list or open prints, or tab:N, as tab list or open prints)", Echo(s)).With("handle", Clip(s))
}

// Kind is the kind the ID names, or "" for an ID that is neither.
func (id ID) Kind() Kind {
	prefix, _, ok := strings.Cut(string(id), ":")
	if !ok {
		return ""
	}
	for _, w := range kinds {
		if w.Prefix == prefix {
			return w.Kind
		}
	}
	return ""
}

// Number is N of "win:N", or 0 if id is not a window handle.
func (id ID) Number() int {
	s, ok := strings.CutPrefix(string(id), "win:")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// TabNumber is N of "tab:N", or 0 if id is not a tab's short handle.
func (id ID) TabNumber() int {
	s, ok := strings.CutPrefix(string(id), "tab:")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0
	}
	return n
}

// TabKey is the backend key (a CDP target id) a tab handle of the old form
// "tab:<key>" names: a tab's handle that is not "tab:N". ok is false for
// any other ID.
func (id ID) TabKey() (key string, ok bool) {
	key, ok = strings.CutPrefix(string(id), "tab:")
	if !ok || key == "" || id.TabNumber() != 0 {
		return "", false
	}
	return key, true
}

func (id ID) String() string { return string(id) }

// WrongKind refuses a handle of another kind than the command line's own
// (cli names it): the refusal names the command line whose words address
// id, so an agent knows where to go.
func WrongKind(id ID, cli string) *Refusal {
	w := id.Kind().Words()
	return Refuse(CodeWrongKind, "%s is a %s target: %s does not address it; use %s (its handles: %s)", id, w.Kind, cli, w.CLI, w.Handles).
		With("target", string(id)).With("kind", string(w.Kind)).With("use", w.CLI)
}

// Target is one thing an agent can address. Windows we started are
// addressable by the session that opened them (Origin) and by the sessions it
// was shared with; Exposure holds them all, the opener first.
type Target struct {
	ID     ID        `json:"id"`
	Kind   Kind      `json:"kind"`
	Title  string    `json:"title"`
	App    string    `json:"app,omitempty"`   // what was opened (argv[0])
	Origin string    `json:"origin"`          // the session that opened it
	Opened time.Time `json:"opened,omitzero"` // when it was opened
	PID    int       `json:"pid,omitempty"`   // the process that owns the window
	// Key is the backend's own name of the target, opaque here: a window's
	// on its display, a tab's CDP target id.
	Key string `json:"key,omitempty"`
	// Display names the display a window lives on (the daemon's name of
	// it); "" for a tab.
	Display string `json:"display,omitempty"`
	// From is the target a window was found from (a dialog of its
	// application, a window of a process it started): it shares its
	// exposure, and closing it closes that window alone. "" for a window
	// open started.
	From ID `json:"from,omitempty"`
	// Exposure is the set of sessions that may address the target: the
	// opener and everyone it was shared with. Sessions of one uid are
	// cooperative; this is bookkeeping, not a security boundary.
	Exposure []string `json:"exposure"`
	// Mode is a window's mode (auto, tree, pixels); "" for a tab. Under
	// auto, Resolved is what it resolved to (tree, pixels) and ModeWhy
	// why, as last resolved.
	Mode     Mode   `json:"mode,omitempty"`
	Resolved Mode   `json:"mode_resolved,omitempty"`
	ModeWhy  string `json:"mode_why,omitempty"`
	// Profile is the browser profile (its id) whose desktop app this
	// window is; "" for any other window and for a tab.
	Profile string `json:"profile,omitempty"`
	// Desktop marks a window of the user's own desktop: nobody opened it
	// (Origin is ""), every session may address it while the operator has
	// the desktop open to agents (the daemon forgets every such target
	// when they close it), and every answer about it says "your desktop".
	Desktop bool `json:"desktop,omitempty"`
	// Pixels is the operator's grant, for a window of the user's desktop,
	// of the point verbs (click --at, scroll --at) on it.
	Pixels bool `json:"pixels,omitempty"`
	// Browser names the web browser a window of the user's desktop is
	// (their own Chromium or Firefox): driven through its accessibility
	// tree alone — never CDP, never an automation flag.
	Browser string `json:"browser,omitempty"`
}

// ExposedTo reports whether session may address t.
func (t *Target) ExposedTo(session string) bool {
	return t.Desktop || slices.Contains(t.Exposure, session)
}

// Share adds session to t's exposure. It reports whether anything changed.
func (t *Target) Share(session string) bool {
	if session == "" || t.ExposedTo(session) {
		return false
	}
	t.Exposure = append(t.Exposure, session)
	return true
}

// CheckExposed refuses not_exposed when session may not address t. The
// refusal names the target but not its title: a session that may not see the
// window learns nothing about it.
func (t *Target) CheckExposed(session string) error {
	if t.ExposedTo(session) {
		return nil
	}
	return Refuse(CodeNotExposed, "%s is not shared with session %q (ask its opener to run: share %s --with %s)", t.ID, session, t.ID, session).
		With("target", string(t.ID)).With("session", session)
}

// Label is "win:3 “Title”", how answers name a target.
func (t *Target) Label() string {
	if t.Title == "" {
		return fmt.Sprintf("%s (untitled)", t.ID)
	}
	return fmt.Sprintf("%s %q", t.ID, t.Title)
}
