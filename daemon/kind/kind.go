// Package kind is the seam between the daemon's core and the backends of its
// targets: what a kind of target provides (a window on a display, a tab of a
// browser), what a display provides, and what a browser provides. The core
// (package daemon) declares nothing of its backends but these interfaces; a
// backend imports this package and package target, never the daemon.
//
// One target, one Target value: the core asks it for its facts (Info,
// Probe), reads it (Snapshot, Node, Screenshot), acts on it (Act, Focus,
// InsertText, ClickAt, Scroll, Key, Type, ReleaseAll), shows it (Frames,
// Input) and ends it (Close). What only some kinds have is a small
// interface of its own, found by a type assertion: Raiser and Stacker
// (windows that overlap on a display nobody manages), Settler (input an
// application reads later), Refresher (facts kept between reads), OnceActor
// (a node read once per acting verb, and acted on as read), Filler and
// OnceFiller (a page's fields, a window's on the node as read),
// Navigator, Evaluator, Waiter and PageReader (pages).
//
// The capability law (target.Decide) is the core's: a backend says which
// roads exist (Probe) and what a node is (Node); it never decides a verb's
// road itself: a OnceActor is handed the road's means
// (target.Capability.Means) and says which it went through. Every method
// honours its context: a cancelled one stops and releases what it holds.
package kind

import (
	"context"
	"encoding/json"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Check is one row of doctor's matrix.
type Check = wire.Check

// Point is a pixel of a target's own picture (its screenshot, its live
// frames): (0,0) is the top left.
type Point = wire.Point

// Node names a node of a target's tree: its ref, for messages, and the
// backend's key the ref was minted for (target.Node.Key).
type Node struct {
	Ref string
	Key string
}

// Info is what a target is now.
type Info struct {
	// Key is the backend's own name of the target, stable for its life and
	// opaque to the core: a window's on its display, a tab's CDP target id.
	Key   string
	Title string
	App   string // what runs in it: a window's program, a tab's URL
	PID   int    // the process that owns a window; 0 for a tab
	// Bounds is where a window is on its display's screen; zero for a tab
	// (its pictures are its viewport's).
	Bounds   target.Rect
	Viewable bool // mapped and not iconified (a tab always is)
}

// Target is one target of a kind, as its backend drives it. Every method
// is safe to call from several goroutines; the core never calls two that
// act on one target at once.
type Target interface {
	Reader
	Actor
	Live
	// Close ends the target: stops a window's application, closes a tab.
	// A target already gone is not an error.
	Close(ctx context.Context) error
}

// Reader reads a target.
type Reader interface {
	// Info reads the target's facts, cheaply (no round trip to an
	// application that may be slow; where a fact is kept from an earlier
	// read, the target is a Refresher). A target that is gone is refused
	// by its kind's gone code (window_gone, tab_gone).
	Info(ctx context.Context) (Info, error)
	// Probe says which roads exist for this target now.
	Probe(ctx context.Context) target.Probe
	// Snapshot reads the target's accessibility tree, every node with a
	// Key. refs is the target's ref table: a backend may mint refs first
	// for the nodes an agent acts on (the core assigns the rest). A
	// subtree the application did not answer in time is marked
	// unreadable; the snapshot still answers.
	Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error)
	// Node reads one node's traits, fresh. A node that is gone is
	// stale_ref.
	Node(ctx context.Context, n Node) (target.NodeTraits, error)
	// Screenshot answers the target's own pixels as PNG: what --at's
	// pixels are of.
	Screenshot(ctx context.Context) ([]byte, error)
}

// Actor acts on a target. The core has decided the road (target.Decide)
// and checked the lease before it calls.
type Actor interface {
	// Act does a node's click: its accessibility action on the tree road
	// (never a coordinate click), or input at the node where the probe
	// says NodeInput (after the backend checked it visible, enabled and
	// uncovered).
	Act(ctx context.Context, n Node) error
	// Focus gives a node the keyboard focus before keys are typed into it.
	Focus(ctx context.Context, n Node) error
	// InsertText appends text to a node's text (EditableText, the tree
	// road).
	InsertText(ctx context.Context, n Node, text string) error
	// ClickAt clicks the left button at a pixel of the target's picture.
	ClickAt(ctx context.Context, p Point) error
	// Scroll turns the wheel steps times in dir (up, down, left, right) at
	// a pixel of the target's picture (nil: its centre).
	Scroll(ctx context.Context, at *Point, dir string, steps int) error
	// Key presses a chord in the focused node.
	Key(ctx context.Context, c target.Chord) error
	// Type types text as keys into the focused node; a cancelled ctx stops
	// it between characters, holding nothing.
	Type(ctx context.Context, text string) error
	// ReleaseAll releases every key and button the target's input road
	// holds. On a display that is the display's one keyboard and pointer.
	ReleaseAll(ctx context.Context) error
}

// Live is what the live view needs of a target.
type Live interface {
	// Frames opens a stream of the target's pictures.
	Frames(ctx context.Context, o FrameOptions) (target.FrameSource, error)
	// Input delivers one event a person sent from the live view. The core
	// has checked that this person drives the target, and raised it where
	// it is a Raiser.
	Input(ctx context.Context, ev Input) error
}

// FrameOptions configure a target's frame source.
type FrameOptions struct {
	FPS int // frames a second at most; 0 means the source's default
}

// InputType is the kind of an Input event.
type InputType string

// The events a person sends from the live view.
const (
	InputMove  InputType = "move"
	InputDown  InputType = "down"
	InputUp    InputType = "up"
	InputClick InputType = "click"
	InputWheel InputType = "wheel"
	InputKey   InputType = "key"
	InputText  InputType = "text"
)

// Input is one event from the live view. X and Y are in the pixels of the
// picture the person saw, PictureW × PictureH (0 when unknown: the
// target's own pixels).
type Input struct {
	Type               InputType
	X, Y               float64
	PictureW, PictureH int
	Button             int     // 1 left, 2 middle, 3 right
	Count              int     // click count
	DX, DY             float64 // wheel steps; positive is down and right
	Chord              target.Chord
	Text               string
}

// Refresher is a target whose Info answers what it last read where that is
// cheaper than asking (a tab: its title and URL as of its last
// navigation). Refresh asks afresh; listings use it.
type Refresher interface {
	Refresh(ctx context.Context) (Info, error)
}

// Raiser is a target that must be on top of its display to be acted on by
// a pointer or keys, or grabbed: a window on a display with no window
// manager and no compositing.
type Raiser interface {
	// Raise puts the window on top of its display's stack and gives it
	// the keyboard focus.
	Raise(ctx context.Context) error
}

// Settler is a target whose application reads injected input later than
// it is sent (an X client reads its events from the server's queue).
type Settler interface {
	// Settle waits until the application with the keyboard focus has read
	// the input sent so far; false when it cannot tell (the input is
	// still on its way). Only a cancelled ctx or a lost display is an
	// error.
	Settle(ctx context.Context) (bool, error)
}

// Filler is a target whose text fields can be filled at once, as a paste
// would.
type Filler interface {
	Fill(ctx context.Context, n Node, text string) error
}

// Navigator is a target that loads addresses (a tab).
type Navigator interface {
	Navigate(ctx context.Context, url string) error
	Back(ctx context.Context) error
	Forward(ctx context.Context) error
	Reload(ctx context.Context) error
}

// Evaluator is a target that evaluates script (a tab).
type Evaluator interface {
	// Eval evaluates an expression and answers its value as JSON; a
	// thrown error is script_error.
	Eval(ctx context.Context, expr string) (json.RawMessage, error)
}

// Wait is what a Waiter waits for: any one field set.
type Wait struct {
	Selector string
	Text     string
	URL      string
}

// Waiter is a target that can wait for a state of its page.
type Waiter interface {
	Wait(ctx context.Context, w Wait) error
}

// PageReader reads a page's text (a tab).
type PageReader interface {
	Text(ctx context.Context) (string, error)
}

// Selector is a target whose choice controls (a page's <select>, a list
// box, a combo box, a notebook's page tabs) are set to options by their
// label, as a person picks them, and read back.
type Selector interface {
	// Select makes opts (labels, or a page option's value) exactly the
	// chosen options of node n — one for a single choice — and answers
	// the labels n holds chosen afterwards, read back from the control.
	// An option n does not have is refused by code, naming the ones it
	// has.
	Select(ctx context.Context, n Node, opts []string) ([]string, error)
}
