package native

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"slices"
	"sync"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// wlWindow is one window of the person's Wayland desktop: an accessible
// frame of an application on their accessibility bus. Its tree, node
// actions and text go through t, the tree half of window.go (no X id: t's
// id is the frame's slot in the display's frame table); its keys, pointer
// and pixels through the portal.
type wlWindow struct {
	d     *wlDesktop
	frame atspi.Object
	pid   int
	t     *window

	mu   sync.Mutex
	last kind.Info // as the accessibility bus said
	geo  *geometry // its stream's, from the last frame seen (wayland_geometry.go)
}

var (
	_ kind.Target    = (*wlWindow)(nil)
	_ kind.Refresher = (*wlWindow)(nil)
)

// saw keeps the window's facts, for Info and for t (its title and extents
// find the frame again should the application replace it).
func (w *wlWindow) saw(i kind.Info) {
	w.mu.Lock()
	w.last = i
	w.mu.Unlock()
	b := i.Bounds
	w.t.set(x11.Window{ID: w.t.id, Title: i.Title, PID: i.PID, Geometry: x11.Geometry{X: b.X, Y: b.Y, Width: b.W, Height: b.H}, Mapped: i.Viewable, Viewable: i.Viewable})
}

func (w *wlWindow) seen() kind.Info {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// Info reads the frame afresh from its application (its name, states and
// extents); a frame that is gone, or whose application exited, is
// window_gone.
func (w *wlWindow) Info(ctx context.Context) (kind.Info, error) {
	bus := w.d.a11y.bus
	if bus == nil {
		return w.shown(w.seen()), nil
	}
	if w.pid > 0 && !alive(w.pid) {
		return kind.Info{}, target.Refuse(target.CodeWindowGone, "its application (pid %d) has exited", w.pid)
	}
	n, err := bus.Node(ctx, w.frame)
	if err != nil {
		if target.CodeOf(err) == target.CodeStaleRef {
			return kind.Info{}, target.Refuse(target.CodeWindowGone, "its accessible frame is gone from the accessibility bus").Wrap(err)
		}
		return kind.Info{}, err
	}
	i := kind.Info{Key: w.frame.Key(), Title: n.Name, PID: w.pid, Viewable: slices.Contains(n.States, "showing")}
	if n.Bounds != nil {
		i.Bounds = *n.Bounds
	} else {
		i.Bounds = w.seen().Bounds
	}
	w.saw(i)
	return w.shown(i), nil
}

// Refresh is Info: it always asks.
func (w *wlWindow) Refresh(ctx context.Context) (kind.Info, error) { return w.Info(ctx) }

// Probe says which roads exist: the tree (the accessibility bus), input
// through the portal (a session held, or one that will be asked for), and
// pixels over PipeWire where they are built in.
func (w *wlWindow) Probe(ctx context.Context) target.Probe {
	a := w.d.a11y
	p := target.Probe{Tree: a.bus != nil, TreeVia: "the AT-SPI tree"}
	if a.bus == nil {
		p.TreeWhy = fmt.Sprintf("the accessibility bus of your session did not answer: %v", a.busErr)
	} else if w.pid > 0 && !a.registered(ctx, w.pid) {
		p.Tree, p.TreeWhy = false, a.notOnBus(w.pid)
	}
	if why := w.d.road.injectionWhy(); why != "" {
		p.InjectionWhy = why
	} else {
		p.Injection = "portal"
	}
	switch {
	case !capture.PipeWireBuiltIn:
		p.CaptureWhy = noPixelsWhy
	case w.d.road.c == nil:
		p.CaptureWhy = w.d.road.why
	case w.d.road.screenCastWhy() != "":
		p.CaptureWhy = w.d.road.screenCastWhy()
	case w.d.road.source()&portal.Window == 0:
		p.CaptureWhy = "the portal offers no window source: a monitor's pixels are not this window's"
	default:
		p.Capture = true
		p.CaptureVia = "the window's ScreenCast stream over PipeWire (the portal's dialog asks the person first)"
	}
	return p
}

// The tree half is window.go's.

func (w *wlWindow) Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error) {
	return w.t.Snapshot(ctx, refs)
}
func (w *wlWindow) Node(ctx context.Context, n kind.Node) (target.NodeTraits, error) {
	return w.t.Node(ctx, n)
}
func (w *wlWindow) Act(ctx context.Context, n kind.Node) error { return w.t.Act(ctx, n) }

// ReadForAct is window.go's, without the facts: a window of the person's
// Wayland desktop gives the verifier none (it is no kind.NodeReader).
func (w *wlWindow) ReadForAct(ctx context.Context, n kind.Node) (kind.NodeRead, error) {
	r, err := w.t.ReadForAct(ctx, n)
	r.Facts = nil
	return r, err
}
func (w *wlWindow) ActOn(ctx context.Context, n kind.Node, o kind.ActOptions) (kind.Acted, error) {
	return w.t.ActOn(ctx, n, o)
}
func (w *wlWindow) InsertOn(ctx context.Context, n kind.Node, text string, o kind.ActOptions) error {
	return w.t.InsertOn(ctx, n, text, o)
}
func (w *wlWindow) Focus(ctx context.Context, n kind.Node) error { return w.t.Focus(ctx, n) }
func (w *wlWindow) InsertText(ctx context.Context, n kind.Node, text string) error {
	return w.t.InsertText(ctx, n, text)
}

// UsableTree is window.go's (what auto mode resolves by).
func (w *wlWindow) UsableTree(ctx context.Context) (bool, string) { return w.t.UsableTree(ctx) }

// focused refuses not_focused unless w's frame is the active one: on
// Wayland keys go to whatever window the compositor focused, and we cannot
// give a window the focus, so keys meant for w are never sent elsewhere.
func (w *wlWindow) focused(ctx context.Context) error {
	bus := w.d.a11y.bus
	if bus == nil {
		return target.Refuse(target.CodeNotFocused, "keys on Wayland go to the window your compositor focused, and without the accessibility bus we cannot tell whether that is this one: nothing was sent")
	}
	n, err := bus.Node(ctx, w.frame)
	if err != nil {
		return err
	}
	if !slices.Contains(n.States, "active") {
		return target.Refuse(target.CodeNotFocused, "keys on Wayland go to the window your compositor focused, and that is not %q (we cannot give it the focus): nothing was sent; click into it (@ref, or --at with the pixels grant), or ask the person to", n.Name).With("window", n.Name)
	}
	return nil
}

// refocusBudget bounds the wait, after the portal's dialog, for the
// compositor to give the focus back to the window that had it before.
const refocusBudget = 2 * time.Second

// refocused is focused, asked again (every 50 ms, within refocusBudget and
// ctx) while it says not_focused: the portal's dialog took the focus, and
// the compositor gives it back once the dialog has closed, a moment after
// Start answered (seen racing on bare mutter).
func (w *wlWindow) refocused(ctx context.Context) error {
	until := time.Now().Add(refocusBudget)
	for {
		err := w.focused(ctx)
		if err == nil || target.CodeOf(err) != target.CodeNotFocused || time.Now().After(until) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Key presses c in w, once it has the keyboard focus on the person's
// desktop (focused): asked before the portal's dialog, and again after it
// (the dialog took the focus, and the person may have moved it).
func (w *wlWindow) Key(ctx context.Context, c target.Chord) error {
	if err := w.focused(ctx); err != nil {
		return err
	}
	s, err := w.d.road.session(ctx)
	if err != nil {
		return err
	}
	if err := w.refocused(ctx); err != nil {
		return err
	}
	return w.d.road.chord(ctx, s, c)
}

// Type types text as keysyms into w while it has the keyboard focus
// (focused: before and after the portal's dialog, and again every
// focusEvery characters); a cancelled ctx stops between characters.
func (w *wlWindow) Type(ctx context.Context, text string) error {
	if err := w.focused(ctx); err != nil {
		return err
	}
	s, err := w.d.road.session(ctx)
	if err != nil {
		return err
	}
	if err := w.refocused(ctx); err != nil {
		return err
	}
	return w.d.road.typeText(ctx, s, text, func() error { return w.focused(ctx) })
}

// stream is the session's window stream for a point verb on w.
func (w *wlWindow) stream(ctx context.Context) (*portal.Session, portal.Stream, error) {
	if why := w.d.road.pointWhy(); why != "" && w.d.road.c != nil {
		return nil, portal.Stream{}, w.d.road.noInjection(why)
	}
	s, err := w.d.road.session(ctx)
	if err != nil {
		return nil, portal.Stream{}, err
	}
	b := w.seen().Bounds
	st, err := w.d.road.windowStream(s, b.W, b.H)
	return s, st, err
}

// ClickAt clicks the left button at pixel p of the window's screenshot
// (wayland_geometry.go maps it into the stream).
func (w *wlWindow) ClickAt(ctx context.Context, p kind.Point) error {
	s, st, err := w.stream(ctx)
	if err != nil {
		return err
	}
	g := w.geometry(ctx, s, st)
	x, y := g.point(float64(p.X), float64(p.Y))
	return w.d.road.click(ctx, s, st, x, y, btnLeft, 1)
}

// Scroll turns the wheel steps times at p (nil: the window's centre).
func (w *wlWindow) Scroll(ctx context.Context, at *kind.Point, dir string, steps int) error {
	var axis uint32
	n := int32(steps)
	switch dir {
	case "up":
		n = -n
	case "down":
	case "left":
		axis, n = 1, -n
	case "right":
		axis = 1
	default:
		return target.Refuse(target.CodeBadRequest, "scroll direction %q: use up, down, left or right", dir)
	}
	s, st, err := w.stream(ctx)
	if err != nil {
		return err
	}
	g := w.geometry(ctx, s, st)
	p := kind.Point{X: g.w / 2, Y: g.h / 2}
	if at != nil {
		p = *at
	}
	x, y := g.point(float64(p.X), float64(p.Y))
	if err := s.PointerMotionAbsolute(ctx, st.Node, x, y); err != nil {
		return err
	}
	return s.PointerAxisDiscrete(ctx, axis, n)
}

// ReleaseAll releases every key and button our session holds.
func (w *wlWindow) ReleaseAll(ctx context.Context) error { return w.d.road.releaseAll(ctx) }

// Screenshot is one frame of the window's ScreenCast stream, as PNG.
func (w *wlWindow) Screenshot(ctx context.Context) ([]byte, error) {
	src, err := w.Frames(ctx, kind.FrameOptions{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	f, err := src.Next(ctx)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := x11.EncodePNG(&buf, frameImage(f)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// frameImage is a frame as an RGBA image.
func frameImage(f target.Frame) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	for y := 0; y < f.Height; y++ {
		row := f.Pix[y*f.Stride:]
		out := img.Pix[y*img.Stride:]
		for x := 0; x < f.Width; x++ {
			px := row[4*x : 4*x+4]
			if f.Format == target.FormatBGRX {
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = px[2], px[1], px[0], 0xff
			} else {
				copy(out[4*x:4*x+4], px)
			}
		}
	}
	return img
}

// Frames opens the window's ScreenCast stream over PipeWire.
func (w *wlWindow) Frames(ctx context.Context, o kind.FrameOptions) (target.FrameSource, error) {
	if p := w.Probe(ctx); !p.Capture {
		return nil, target.Refuse(target.CodeNoCapture, "no pixels of this window on %s: %s", w.d.road.shell(), p.CaptureWhy).With("reason", p.CaptureWhy).With("shell", w.d.road.shell())
	}
	s, st, err := w.stream(ctx)
	if err != nil {
		return nil, target.Refuse(target.CodeNoCapture, "no pixels of this window: %v", err).Wrap(err)
	}
	return w.open(ctx, s, st)
}

// open opens stream st of session s: one PipeWire consumer of the stream
// for every reader (a pane, its thumbnail, a screenshot, a point's
// geometry), since mutter gives a consumer that joins a running stream no
// picture until the window changes. Each frame is cut by the stream's own
// crop (capture.Crop), which the stream's reader keeps for every reader
// of it (streamCrop); the window keeps the geometry of each frame it is
// given.
func (w *wlWindow) open(ctx context.Context, s *portal.Session, st portal.Stream) (target.FrameSource, error) {
	key := streamKey{s, st.Node}
	crop := w.d.road.cropOf(key)
	src, err := w.d.road.pixels.Open(ctx, key, fmt.Sprintf("the window's stream (PipeWire node %d)", st.Node), func(ctx context.Context) (capture.Source, error) {
		fd, err := s.OpenPipeWireRemote(ctx)
		if err != nil {
			return nil, target.Refuse(target.CodeNoCapture, "the portal gave no PipeWire remote: %v", err).Wrap(err)
		}
		ps, err := pixelsOverPipeWire(ctx, fd, st.Node)
		if err != nil {
			return nil, err
		}
		return &cropKept{PipeWireStream: ps, crop: crop}, nil
	})
	if err != nil {
		return nil, err
	}
	return &windowFrames{s: src, crop: crop, w: w}, nil
}

// streamKey is a stream of a portal session, as the road's pixels share
// it: a node's id is PipeWire's, and may name another stream once the
// session ended.
type streamKey struct {
	s    *portal.Session
	node uint32
}

// Input delivers a person's live-view event through the portal session.
func (w *wlWindow) Input(ctx context.Context, ev kind.Input) error {
	r := w.d.road
	switch ev.Type {
	case kind.InputKey:
		return w.Key(ctx, ev.Chord)
	case kind.InputText:
		return w.Type(ctx, ev.Text)
	}
	s, st, err := w.stream(ctx)
	if err != nil {
		return err
	}
	g := w.geometry(ctx, s, st)
	x, y := g.point(ev.X, ev.Y)
	switch ev.Type {
	case kind.InputMove:
		return s.PointerMotionAbsolute(ctx, st.Node, x, y)
	case kind.InputDown, kind.InputUp:
		if err := s.PointerMotionAbsolute(ctx, st.Node, x, y); err != nil {
			return err
		}
		return r.button(ctx, s, evdevButton(ev.Button), ev.Type == kind.InputDown)
	case kind.InputClick:
		return r.click(ctx, s, st, x, y, evdevButton(ev.Button), max(ev.Count, 1))
	case kind.InputWheel:
		if err := s.PointerMotionAbsolute(ctx, st.Node, x, y); err != nil {
			return err
		}
		if ev.DY != 0 {
			if err := s.PointerAxisDiscrete(ctx, 0, int32(wheelSteps(ev.DY))); err != nil {
				return err
			}
		}
		if ev.DX != 0 {
			return s.PointerAxisDiscrete(ctx, 1, int32(wheelSteps(ev.DX)))
		}
		return nil
	}
	return target.Refuse(target.CodeBadRequest, "unknown input event %q", ev.Type)
}

// Close stops nothing: the window is the person's.
func (w *wlWindow) Close(context.Context) error { return nil }

// FillOn is window.go's (fill.go).
func (w *wlWindow) FillOn(ctx context.Context, n kind.Node, text string, o kind.ActOptions) (string, error) {
	return w.t.FillOn(ctx, n, text, o)
}
