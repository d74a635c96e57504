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

// ID names a target: "win:3" or "tab:<id>". It is stable for the target's
// life and is what agents pass as the handle of every verb.
type ID string

// WindowID is the ID of the n-th window target.
func WindowID(n int) ID { return ID("win:" + strconv.Itoa(n)) }

// ParseID checks that s is a target handle ("win:N" with N ≥ 1, or
// "tab:<something>"). A handle that is not one is an unknown_target refusal
// naming what was given.
func ParseID(s string) (ID, error) {
	kind, rest, ok := strings.Cut(s, ":")
	switch {
	case ok && kind == "win":
		n, err := strconv.Atoi(rest)
		if err == nil && n >= 1 && strconv.Itoa(n) == rest {
			return ID(s), nil
		}
	case ok && kind == "tab" && rest != "" && !strings.ContainsAny(rest, " \t\r\n"):
		return ID(s), nil
	}
	return "", Refuse(CodeUnknownTarget, "%q is not a target handle (expected win:N, as printed by list or open)", s).With("handle", s)
}

// Kind is the kind the ID names, or "" for an ID that is neither.
func (id ID) Kind() Kind {
	switch {
	case strings.HasPrefix(string(id), "win:"):
		return KindWindow
	case strings.HasPrefix(string(id), "tab:"):
		return KindTab
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

func (id ID) String() string { return string(id) }

// Target is one thing an agent can address. Windows we started are
// addressable by the session that opened them (Origin) and by the sessions it
// was shared with; Exposure holds them all, the opener first.
type Target struct {
	ID      ID        `json:"id"`
	Kind    Kind      `json:"kind"`
	Title   string    `json:"title"`
	App     string    `json:"app,omitempty"`     // what was opened (argv[0])
	Origin  string    `json:"origin"`            // the session that opened it
	Opened  time.Time `json:"opened,omitzero"`   // when it was opened
	PID     int       `json:"pid,omitempty"`     // the process that owns the window
	XID     uint32    `json:"xid,omitempty"`     // the X window id of a window target
	Display string    `json:"display,omitempty"` // the X display it lives on (":N")
	// Exposure is the set of sessions that may address the target: the
	// opener and everyone it was shared with. Sessions of one uid are
	// cooperative; this is bookkeeping, not a security boundary.
	Exposure []string `json:"exposure"`
}

// ExposedTo reports whether session may address t.
func (t *Target) ExposedTo(session string) bool {
	return slices.Contains(t.Exposure, session)
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
