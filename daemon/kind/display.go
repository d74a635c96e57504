package kind

import (
	"context"
	"encoding/json"
	"time"
)

// DisplayProvider is one sort of display where windows live (our own Xvfb;
// later an Xpra display, the user's desktop), registered with the daemon
// once. A new sort of display is a package that implements it and one line
// where the daemon is put together.
type DisplayProvider interface {
	// Name is the word that picks it (open --display <name>) and names it
	// in doctor and in answers ("xvfb").
	Name() string
	// Start brings up a new display. Its processes must outlive the
	// daemon (a daemon killed with -9 finds them again through Reattach).
	Start(ctx context.Context) (Display, error)
	// Reattach finds a display an earlier daemon started, from the record
	// it persisted. An error means the display is gone (and whatever was
	// left of it has been stopped).
	Reattach(ctx context.Context, record json.RawMessage) (Display, error)
	// Doctor probes what this machine offers for such displays, started
	// or not.
	Doctor(ctx context.Context) []Check
}

// Sweeper is a DisplayProvider that can find and stop the displays it
// started for this daemon (its state directory) that the daemon no longer
// has records of — its state file was lost — so none runs on out of
// everyone's reach. It answers what it stopped, in words, one a display.
// The daemon calls it only while it holds none of the provider's displays.
type Sweeper interface {
	Sweep(ctx context.Context) ([]string, error)
}

// Display is one running display.
type Display interface {
	// Name is the display's name for people (":7").
	Name() string
	// Record is what the daemon persists to Reattach it and to stop it
	// later.
	Record() json.RawMessage
	// Launch starts argv and returns its first mapped window. A program
	// that does not exist is an app_not_found refusal with nothing left
	// running.
	Launch(ctx context.Context, argv []string) (Target, error)
	// Window finds a window of this display again by its key (Info.Key),
	// after a restart. A window that is gone, or whose application is, is
	// window_gone.
	Window(ctx context.Context, key string, pid int) (Target, error)
	// Doctor probes the display: its server, its input and accessibility
	// roads.
	Doctor(ctx context.Context) []Check
	// Healthy checks that the display's server and buses still answer.
	Healthy(ctx context.Context) error
	// Close stops the display and everything started on it.
	Close() error
}

// Stacker is a display whose windows overlap with nobody to manage them: a
// pointer event lands in the window on top at its point, and a grab shows
// what is on screen, whoever drew it. The core raises a window (Raiser)
// and checks it is on top before it acts there.
type Stacker interface {
	// Stack lists the top-level windows, bottom first.
	Stack(ctx context.Context) ([]Info, error)
}

// OwnPixels is a Stacker display whose windows' grabs read each window's
// own pixels even where another covers it (X Composite): a screenshot or
// a frame needs no raise and takes no stacking slot. Pointer input still
// goes to whatever is on top at its point.
type OwnPixels interface {
	KeepsOwnPixels() bool
}

// Discoverer is a display that finds the windows its applications show
// beside the one they were opened with: a dialog or a second window of an
// application, a window of a process an application started. The core
// makes each a target of the session of the window it came from.
type Discoverer interface {
	// Discover scans the display once, cheaply (one look at its windows
	// and at which process made each): it answers each mapped, managed
	// top-level window not among known whose process is one of roots or
	// descends from one.
	Discover(ctx context.Context, roots []int, known map[string]bool) ([]Found, error)
}

// Found is a window a scan found.
type Found struct {
	Target Target
	Info   Info   // Info.PID is the process that made the window
	Root   int    // the root (of Discover's) the process is or descends from
	App    string // the process's program, for a window of another process than Root
	// Browser names the web browser a window of the user's desktop is
	// (their own running Chromium or Firefox: tier 3), "" for any other:
	// it is driven through its accessibility tree alone, never CDP.
	Browser string
}

// WindowCloser is a window that can be asked to close alone, its
// application going on (ICCCM WM_DELETE_WINDOW, as a window manager's
// close button asks).
type WindowCloser interface {
	// CloseWindow asks the window to close and waits, bounded by ctx, for
	// it to go; gone is false when it is still there (its application may
	// be asking something first). A window that cannot be asked is
	// refused no_close.
	CloseWindow(ctx context.Context) (gone bool, err error)
}

// PerSession is a display provider whose displays are each one session's:
// whoever watches such a display sees every window on it (a person
// attached to an Xpra display with Xpra's own client), so nothing of one
// session's may be on another's. The core starts a session's display on
// its first open there and stops it once it has had no window for a while
// (Config.DisplayIdleStop); a daemon runs at most
// Config.MaxSessionDisplays of them at once. A provider that does not
// implement it, or answers false, has one display shared by every session.
type PerSession interface {
	PerSession() bool
}

// Watched is a display that a person can watch and drive from outside the
// daemon (an Xpra client attached to it). Every answer about a window on
// it says so while someone is attached.
type Watched interface {
	// Watchers says who is attached now. It is cheap (no subprocess, no
	// round trip to a server: a file read at most): the core asks it for
	// every answer about a window of the display.
	Watchers(ctx context.Context) (Watchers, error)
}

// Watchers is who is attached to a Watched display.
type Watchers struct {
	// Count is how many clients are attached now; 0 means nobody.
	Count int
	// Since is when the earliest of them attached (zero if unknown).
	Since time.Time
	// How names what is attached, counted, for an answer: "an xpra
	// client", "2 xpra clients".
	How string
}
