package kind

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
)

// DesktopEnv names the user's own desktop session: what their terminal's
// environment says (DISPLAY, XAUTHORITY, the session bus, WAYLAND_DISPLAY).
// None of it is a secret (Xauthority is a path; the cookie stays in it).
type DesktopEnv = wire.DesktopEnv

// DesktopProvider is the road to the user's own desktop: windows nobody
// opened through us, the person's, which are listed and addressable only
// while the operator has opted in. It is a DisplayProvider so a restarted
// daemon reattaches it from its record, but it starts nothing: Start is
// refused your_desktop (no application is started on the person's desktop
// by us), and a display it connects never stops what runs there.
type DesktopProvider interface {
	DisplayProvider
	// Connect reaches the desktop env names, for the operator's opt-in.
	// What it cannot reach is an error saying why (no X server at
	// DISPLAY, no portal on the session bus, …).
	Connect(ctx context.Context, env DesktopEnv) (Display, error)
	// DoctorEnv says which road env offers on this machine (X11, Wayland
	// and the portal's version, or neither) and why, connecting nothing a
	// person would notice.
	DoctorEnv(ctx context.Context, env DesktopEnv) []Check
}

// Lister is a display whose every window is a target as it is (the user's
// desktop): the core lists each window it finds, nobody's, exposed to every
// session.
type Lister interface {
	// Windows lists the desktop's top-level windows now that are not
	// among known (by Info.Key), each with its target (Found.App names its
	// program; Found.Root is unused).
	Windows(ctx context.Context, known map[string]bool) ([]Found, error)
}

// PersonWatcher is a display whose person's own input we can notice: the
// moment they type or move their pointer, the core pauses every agent on
// the display's windows (user_active) until an explicit handback.
type PersonWatcher interface {
	// WatchPerson calls touched (from one goroutine, until the display
	// closes) whenever the person uses a keyboard or pointer of theirs —
	// never for input we injected — and lost, once, if the watch stops
	// before the display closes (its connection failed), saying why. An
	// error means their input cannot be observed on this display, and
	// says why (for doctor and the answers).
	WatchPerson(touched func(Touch), lost func(error)) error
}

// Touch is one use of the person's own input.
type Touch struct {
	What   string // "key", "button", "motion", "touch"
	Device string // the device's name
	At     time.Time
}

// Roader is a display that says which road it is on (the user's desktop:
// "x11", "wayland"), and what of the person it can and cannot observe.
type Roader interface {
	Road() (road, observes string)
}

// Caller is whom a backend call is made for: the session and the verb
// (and its target), so that what a backend reports back to the core
// during the call (a portal restore token used, TokenWatcher) is audited
// as theirs.
type Caller struct {
	Session string
	Verb    string
	Target  string
}

type callerKey struct{}

// WithCaller is ctx carrying c (the core sets it on every verb).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf is the caller ctx carries, if any.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// TokenWatcher is a display that keeps a standing grant of the person's
// (the portal's restore token, kept server-side): the core hears, for
// the audit, each time one is used, replaced by a newer one or forgotten
// — never the token itself. ctx is the verb's (CallerOf says whose).
type TokenWatcher interface {
	OnToken(heard func(ctx context.Context, event string))
}
