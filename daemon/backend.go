package daemon

import (
	"context"
	"encoding/json"

	"github.com/vibespace/vibespace/target"
)

// Backend brings up our display, or finds it again after a restart. The
// real one (package daemon/native) runs testenv's Xvfb + session bus +
// AT-SPI; tests use a fake.
type Backend interface {
	// Start brings up a new display. Its processes must outlive the daemon
	// (a daemon killed with -9 finds them again through Reattach).
	Start(ctx context.Context) (Display, error)
	// Reattach finds a display an earlier daemon started, from the record
	// it persisted. An error means the display is gone (and whatever was
	// left of it has been stopped).
	Reattach(ctx context.Context, record json.RawMessage) (Display, error)
	// Doctor probes what this machine offers, display or not.
	Doctor(ctx context.Context) []Check
}

// Window is a top-level window of our display.
type Window struct {
	XID      uint32      `json:"xid"`
	PID      int         `json:"pid"`
	Title    string      `json:"title"`
	Bounds   target.Rect `json:"bounds"` // root coordinates
	Viewable bool        `json:"viewable"`
}

// Display is our display once it is up.
type Display interface {
	// Record is what the daemon persists to Reattach and to stop it later.
	Record() json.RawMessage
	// Name is the display's name for people (":7").
	Name() string
	// Probe says which roads exist on this display for the app of pid.
	Probe(ctx context.Context, pid int) target.Probe
	// Launch starts argv and returns its first mapped window. A program
	// that does not exist is an app_not_found refusal with nothing left
	// running.
	Launch(ctx context.Context, argv []string) (Window, error)
	// Window reads one window; a window that is gone is window_gone.
	Window(ctx context.Context, xid uint32) (Window, error)
	// Alive reports whether process pid still runs.
	Alive(pid int) bool
	// Stop ends an application we launched (by PID).
	Stop(ctx context.Context, pid int) error
	// Raise puts the window on top of the stack and gives it the keyboard
	// focus (with no window manager nobody else does).
	Raise(ctx context.Context, w Window) error
	// Stack lists the top-level windows in stacking order, bottom first.
	Stack(ctx context.Context) ([]Window, error)
	Tree() TreeReader // nil: no accessibility road
	Input() Injector  // nil: no injection road
	Capture() Capturer
	Doctor(ctx context.Context) []Check
	// Healthy checks that the display's X server and buses still answer.
	Healthy(ctx context.Context) error
	// Close stops the display and everything started on it.
	Close() error
}

// TreeReader reads and acts on a window's accessibility tree. Keys are the
// backend's identities of nodes (target.Node.Key).
type TreeReader interface {
	Snapshot(ctx context.Context, w Window) (*target.Snapshot, error)
	Node(ctx context.Context, w Window, key string) (target.NodeTraits, error)
	DoAction(ctx context.Context, w Window, key string) error
	InsertText(ctx context.Context, w Window, key, text string) error
	GrabFocus(ctx context.Context, w Window, key string) error
}

// Injector injects pointer and key input (XTEST). Every call honours ctx:
// a cancelled Type stops between characters.
type Injector interface {
	Click(ctx context.Context, x, y, button, count int) error
	Scroll(ctx context.Context, x, y int, dir string, steps int) error
	Key(ctx context.Context, c target.Chord) error
	Type(ctx context.Context, text string) error
	// ReleaseAll releases every key and button we hold.
	ReleaseAll(ctx context.Context) error
	// Settle waits until the application with the keyboard focus has read
	// the input sent so far; false when it cannot tell (the input is still
	// on its way). Only a cancelled ctx or a lost display is an error.
	Settle(ctx context.Context) (bool, error)
}

// Capturer reads a window's pixels as PNG.
type Capturer interface {
	PNG(ctx context.Context, w Window) ([]byte, error)
}
