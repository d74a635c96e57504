package native

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// window is one top-level window of our display as a target: its tree
// through AT-SPI, its input through XTEST (the display's one keyboard and
// pointer), its pixels through x11.
type window struct {
	d   *display
	id  x11.WindowID
	pid int // the process that owns it
	// note is what Launch changed of the command line asked (a11y.go).
	note string

	mu     sync.Mutex
	last   x11.Window // as Info last read it
	known  known      // its nodes as its last snapshot and the events since said them (changes.go)
	before uint64     // the mark of the act being watched (changes.go)
}

var (
	_ kind.Target  = (*window)(nil)
	_ kind.Raiser  = (*window)(nil)
	_ kind.Settler = (*window)(nil)
)

func (w *window) set(xw x11.Window) {
	w.mu.Lock()
	w.last = xw
	w.mu.Unlock()
}

// seen is the window as Info last read it.
func (w *window) seen() x11.Window {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// Info reads the window from the X server; a window that is gone, or whose
// application exited, is window_gone.
func (w *window) Info(ctx context.Context) (kind.Info, error) {
	xw, err := w.d.x.Window(ctx, w.id)
	if err != nil {
		return kind.Info{}, err
	}
	if w.pid > 0 && !alive(w.pid) { // a window of no known process (a remote client's) lives as long as it does
		return kind.Info{}, target.Refuse(target.CodeWindowGone, "its application (pid %d) has exited", w.pid)
	}
	if xw.PID == 0 {
		xw.PID = w.pid
	}
	w.set(xw)
	inf := info(xw)
	if w.d.xp != nil && xw.Mapped {
		// Its application mapped it; xpra may hold it hidden, and it is
		// shown before a verb grabs it or sends it input (seamless.go).
		inf.Viewable = true
	}
	return inf, nil
}

func (w *window) Probe(ctx context.Context) target.Probe { return w.d.probe(ctx, w.pid) }

// frame finds (once) the AT-SPI frame of the window: its own, by its hint
// (framematch.go), or none.
func (w *window) frame(ctx context.Context) (atspi.Object, error) {
	d := w.d
	d.mu.Lock()
	o, ok := d.frames[w.id]
	d.mu.Unlock()
	if ok {
		return o, nil
	}
	f, err := d.bus.FindFrame(ctx, w.hint(ctx))
	if err != nil {
		return atspi.Object{}, err
	}
	d.mu.Lock()
	d.frames[w.id] = f.Object
	d.onBus[w.pid] = true
	d.mu.Unlock()
	return f.Object, nil
}

// frameWait bounds how long Launch waits for an application's window to
// appear on the accessibility bus.
const frameWait = 10 * time.Second

// offBusGrace is how long Launch waits for an application that is not on
// the accessibility bus at all once its window is mapped. Toolkits with a
// tree (GTK, Qt, Chromium) register while they start, before they map a
// window; one that has not registered by then (Tk, a plain X client)
// exposes no tree, and open need not wait the whole frameWait for it.
const offBusGrace = 3 * time.Second

// waitFrame waits (bounded) until the window's frame is on the
// accessibility bus, so that the first snapshot after open reads a whole
// tree. An application that never registers (no accessibility support) is
// not an error: its snapshot will say so.
func (w *window) waitFrame(ctx context.Context) {
	if w.d.bus == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, frameWait)
	defer cancel()
	t0 := time.Now()
	for {
		_, err := w.frame(ctx)
		if err == nil {
			return
		}
		if target.CodeOf(err) == target.CodeAppNotFound && time.Since(t0) > offBusGrace {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Snapshot walks the window's tree. An application that does not answer
// gives a snapshot whose root is marked unreadable, not an error; a window
// none of whose application's frames is its own is refused no_tree, saying
// why (never another window's tree).
func (w *window) Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error) {
	d := w.d
	if d.bus == nil {
		return nil, target.Refuse(target.CodeNoTree, "the accessibility bus did not answer: %v", d.busErr)
	}
	title := w.seen().Title
	wctx := ctx
	if d.walkTimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, d.walkTimeout)
		defer cancel()
	}
	root, err := w.frame(wctx)
	if target.CodeOf(err) == target.CodeNoFrame && ctx.Err() == nil {
		return nil, noFrame(w.id, err) // never another window's tree (framematch.go)
	}
	if err != nil {
		code := target.CodeOf(err)
		if code == target.CodeTimeout || errors.Is(err, context.DeadlineExceeded) || code == target.CodeAppNotFound {
			if ctx.Err() != nil {
				return nil, err
			}
			why := "the application did not answer in time"
			if code == target.CodeAppNotFound {
				why = "the application is not on the accessibility bus (yet)"
			}
			n := &target.Node{Role: "frame", Name: title, Unreadable: why}
			return &target.Snapshot{Title: title, Root: n, Census: n.Count()}, nil
		}
		return nil, err
	}
	// The walk uses Cache.GetItems where the bridge has it: it is tested to
	// give the same tree as asking every object, also right after launch
	// (atspi TestFirstWalkAfterLaunch).
	// Where the window is: a toolkit that answers window-relative extents
	// (GTK 4) has them moved by its origin.
	where := info(w.seen()).Bounds
	snap, err := w.walkFrame(wctx, root, atspi.WalkOptions{Timeout: d.walkTimeout, Window: &where})
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		n := &target.Node{Role: "frame", Name: title, Unreadable: "the application did not answer in time"}
		return &target.Snapshot{Title: title, Root: n, Census: n.Count()}, nil
	}
	if err != nil {
		return nil, err
	}
	snap.Title = title
	// Children in reading order where the toolkit lists them otherwise
	// (a GTK 3 grid, last attached first).
	atspi.ReadingOrder(snap.Root)
	w.remember(snap)
	return snap, nil
}

func (w *window) object(n kind.Node) (atspi.Object, error) {
	if w.d.bus == nil {
		return atspi.Object{}, target.Refuse(target.CodeNoTree, "the accessibility bus did not answer: %v", w.d.busErr)
	}
	return atspi.ParseKey(n.Key)
}

// Node reads one node's traits, fresh from the application.
func (w *window) Node(ctx context.Context, n kind.Node) (target.NodeTraits, error) {
	r, err := w.ReadForAct(ctx, n)
	return r.Traits, err
}

var _ kind.OnceActor = (*window)(nil)

// readOwn is what a read keeps for the act: the node's own fields, and
// the Selection parent that picks a node with no Action (chooser) with the
// node's index there.
type readOwn struct {
	node    *target.Node
	chooser atspi.Object
	index   int
}

// ReadForAct reads the node once (its own fields, and for a node with no
// Action whether a Selection parent picks it): its traits, its facts, and
// the parent found.
func (w *window) ReadForAct(ctx context.Context, n kind.Node) (kind.NodeRead, error) {
	o, err := w.object(n)
	if err != nil {
		return kind.NodeRead{}, err
	}
	node, err := w.d.bus.Node(ctx, o)
	if err != nil {
		return kind.NodeRead{}, err
	}
	own := readOwn{node: node}
	r := kind.NodeRead{Traits: target.TraitsOf(node), Facts: node}
	if !node.Implements("Action") || len(node.Actions) == 0 {
		// A page tab has no Action: its notebook's Selection picks it.
		own.chooser, own.index, r.Traits.InSelection, err = w.d.bus.SelectionParent(ctx, o)
		if err != nil {
			return kind.NodeRead{}, err
		}
	}
	r.Own = own
	return r, nil
}

// ActOn does the click the law decided on the node as read: its parent's
// SelectChild of it (target.MeansSelection), else its action, chosen among
// the actions the read saw.
func (w *window) ActOn(ctx context.Context, n kind.Node, a kind.ActOptions) (kind.Acted, error) {
	o, err := w.object(n)
	if err != nil {
		return kind.Acted{}, err
	}
	own, ok := a.Read.Own.(readOwn)
	if !ok {
		if own.node, err = w.d.bus.Node(ctx, o); err != nil {
			return kind.Acted{}, err
		}
	}
	if a.Means == target.MeansSelection && !own.chooser.IsNull() {
		if err := w.d.bus.SelectChild(ctx, own.chooser, own.index); err != nil {
			return kind.Acted{}, err
		}
		return kind.Acted{Means: target.MeansSelection}, nil
	}
	if _, err := w.d.bus.DoActionOn(ctx, o, own.node, ""); err != nil {
		return kind.Acted{}, err
	}
	return kind.Acted{Means: target.MeansAction}, nil
}

// InsertOn appends text at the end of the node's text as read
// (EditableText).
func (w *window) InsertOn(ctx context.Context, n kind.Node, text string, a kind.ActOptions) error {
	o, err := w.object(n)
	if err != nil {
		return err
	}
	own, ok := a.Read.Own.(readOwn)
	if !ok {
		return w.d.bus.InsertText(ctx, o, -1, text)
	}
	return w.d.bus.InsertTextOn(ctx, o, own.node, -1, text)
}

// Act does the node's click-like action (never a coordinate click), or,
// for a node with no Action in a Selection parent (a page tab), has the
// parent select it: the road the capability law chose from the node's
// traits (InSelection).
func (w *window) Act(ctx context.Context, n kind.Node) error {
	o, err := w.object(n)
	if err != nil {
		return err
	}
	_, err = w.d.bus.Click(ctx, o)
	return err
}

// InsertText appends text at the end of the node's text (EditableText).
func (w *window) InsertText(ctx context.Context, n kind.Node, text string) error {
	o, err := w.object(n)
	if err != nil {
		return err
	}
	return w.d.bus.InsertText(ctx, o, -1, text)
}

// Focus focuses the node (Component.GrabFocus).
func (w *window) Focus(ctx context.Context, n kind.Node) error {
	o, err := w.object(n)
	if err != nil {
		return err
	}
	return w.d.bus.GrabFocus(ctx, o)
}

// root is a pixel of the window's picture in root coordinates, from where
// Info last saw the window.
func (w *window) root(p kind.Point) (int, int) {
	g := w.seen().Geometry
	return g.X + p.X, g.Y + p.Y
}

func (w *window) ClickAt(ctx context.Context, p kind.Point) error {
	x, y := w.root(p)
	return w.d.x.Click(ctx, x, y, x11.ButtonLeft, 1)
}

func (w *window) Scroll(ctx context.Context, at *kind.Point, dir string, steps int) error {
	p := kind.Point{}
	if at != nil {
		p = *at
	} else {
		g := w.seen().Geometry
		p = kind.Point{X: g.Width / 2, Y: g.Height / 2}
	}
	dx, dy := 0, 0
	switch dir {
	case "up":
		dy = -steps
	case "down":
		dy = steps
	case "left":
		dx = -steps
	case "right":
		dx = steps
	default:
		return target.Refuse(target.CodeBadRequest, "scroll direction %q: use up, down, left or right", dir)
	}
	x, y := w.root(p)
	return w.d.x.Scroll(ctx, x, y, dx, dy)
}

func (w *window) Key(ctx context.Context, c target.Chord) error { return w.d.x.Key(ctx, c) }
func (w *window) Type(ctx context.Context, text string) error   { return w.d.x.Type(ctx, text) }

// ReleaseAll releases every key and button held on the display.
func (w *window) ReleaseAll(ctx context.Context) error { return w.d.x.ReleaseAll(ctx) }

// Settle waits until the focused client has read the input sent so far.
func (w *window) Settle(ctx context.Context) (bool, error) { return w.d.x.Settle(ctx) }

// Raise raises the window and gives it the focus (x11's Focus does both),
// showing it first where xpra holds it hidden (seamless.go).
func (w *window) Raise(ctx context.Context) error {
	if err := w.d.shown(ctx, w.id); err != nil {
		return err
	}
	if err := w.d.raiseSeamless(ctx, w.id); err != nil {
		return err
	}
	return w.d.x.Focus(ctx, w.id)
}

// Screenshot grabs the window's pixels as PNG (what is on screen there).
func (w *window) Screenshot(ctx context.Context) ([]byte, error) {
	if err := w.d.shown(ctx, w.id); err != nil {
		return nil, err
	}
	cp, err := w.d.x.Capture(ctx, w.id)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := x11.EncodePNG(&buf, cp.Image); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Frames is a capture of the window at a fixed rate (capture.Window), on
// the display's pixels connection.
func (w *window) Frames(ctx context.Context, o kind.FrameOptions) (target.FrameSource, error) {
	if err := w.d.shown(ctx, w.id); err != nil {
		return nil, err
	}
	x, err := w.d.pixelsConn(ctx)
	if err != nil {
		return nil, err
	}
	return capture.NewWindow(x, w.id, capture.WindowOptions{FPS: o.FPS}), nil
}

// Input injects a person's event: the picture's point is the window's
// origin plus the point (the picture is the window's own pixels); the core
// raised the window first where the event needs it.
func (w *window) Input(ctx context.Context, ev kind.Input) error {
	x, y := w.root(kind.Point{X: int(ev.X), Y: int(ev.Y)})
	xd := w.d.x
	switch ev.Type {
	case kind.InputMove:
		return xd.Move(ctx, x, y)
	case kind.InputDown:
		return xd.ButtonDown(ctx, x, y, x11.Button(ev.Button))
	case kind.InputUp:
		return xd.ButtonUp(ctx, x, y, x11.Button(ev.Button))
	case kind.InputClick:
		return xd.Click(ctx, x, y, x11.Button(ev.Button), ev.Count)
	case kind.InputWheel:
		if ev.DY != 0 {
			if err := xd.Scroll(ctx, x, y, 0, wheelSteps(ev.DY)); err != nil {
				return err
			}
		}
		if ev.DX != 0 {
			return xd.Scroll(ctx, x, y, wheelSteps(ev.DX), 0)
		}
		return nil
	case kind.InputKey:
		return xd.Key(ctx, ev.Chord)
	case kind.InputText:
		return xd.Type(ctx, ev.Text)
	}
	return target.Refuse(target.CodeBadRequest, "unknown input event %q", ev.Type)
}

// wheelSteps turns a wheel delta into 1..10 scroll steps, keeping its sign.
func wheelSteps(f float64) int {
	n := min(max(int(abs(f)+0.5), 1), 10)
	if f < 0 {
		return -n
	}
	return n
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// Close stops the window's application.
func (w *window) Close(ctx context.Context) error { return w.d.stop(ctx, w.pid) }

var _ kind.NodeReader = (*window)(nil)

// ReadNode reads one node's own fields (role, name, states, text length),
// fresh from the application.
func (w *window) ReadNode(ctx context.Context, n kind.Node) (*target.Node, error) {
	o, err := w.object(n)
	if err != nil {
		return nil, err
	}
	return w.d.bus.Node(ctx, o)
}
