package x11

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// WindowID is an X window id.
type WindowID uint32

func (w WindowID) String() string { return fmt.Sprintf("0x%x", uint32(w)) }

// Geometry is a rectangle in root (screen) coordinates.
type Geometry struct {
	X, Y, Width, Height int
}

// Contains reports whether the point (x, y) in the same coordinates lies inside g.
func (g Geometry) Contains(x, y int) bool {
	return x >= g.X && y >= g.Y && x < g.X+g.Width && y < g.Y+g.Height
}

func (g Geometry) String() string { return fmt.Sprintf("%dx%d+%d+%d", g.Width, g.Height, g.X, g.Y) }

// Window is a top-level window as the X server sees it.
type Window struct {
	ID       WindowID
	Title    string // _NET_WM_NAME, else WM_NAME
	Instance string // WM_CLASS, first part
	Class    string // WM_CLASS, second part
	PID      int    // _NET_WM_PID, 0 if unset; WindowsOf sets the process the X server names (X-Resource) first
	Geometry Geometry
	Mapped   bool // MapState != Unmapped
	Viewable bool // MapState == Viewable (mapped and all ancestors mapped)
	// Frame is the child of the root that holds the window — under a
	// reparenting manager, the frame it made for it — and 0 when the
	// window is itself a child of the root (no manager: every
	// application window).
	Frame WindowID
}

// A reparenting manager (xpra's seamless server, any window manager that
// draws decorations) puts each application window inside a frame of its
// own, a child of the root: the application's window is then a grandchild
// of the root, and the frame, a window of the manager's process, is what
// the root's children show. ICCCM calls the application's window the
// client window and marks it: the manager sets WM_STATE on it, never on
// its frame (XmuClientWindow finds it so). A child of the root without
// WM_STATE that has a child with it is a frame, and this package lists
// that child in its place, at the frame's place in the stack. One level
// down is as deep as the managers we drive go. With no manager nobody
// sets WM_STATE, and the root's children are listed as they are.

// entry is one window of the root's stack, the client window in place of
// its frame.
type entry struct {
	id      xproto.Window                    // the client window, else the root's child itself
	frame   xproto.Window                    // the root's child holding id; 0 when id is one
	attr    *xproto.GetWindowAttributesReply // id's
	frameOR bool                             // the frame is override-redirect
	pid     int                              // id's _NET_WM_PID; 0 if unset
}

// stackAtoms are the atoms stack reads.
type stackAtoms struct{ wmState, netWMPID xproto.Atom }

func (d *Display) stackAtoms(ctx context.Context) (stackAtoms, error) {
	var a stackAtoms
	var err error
	if a.wmState, err = d.atom(ctx, "WM_STATE"); err != nil {
		return a, err
	}
	a.netWMPID, err = d.atom(ctx, "_NET_WM_PID")
	return a, err
}

// stack lists the root's children bottom first, a frame replaced by its
// client window, in three round trips at most whatever their number, all
// requests of one trip sent before any answer is read: QueryTree of the
// root; each child's attributes, _NET_WM_PID, WM_STATE and children; then
// the same three for every child of a child without WM_STATE (not made
// when there is none). A window destroyed meanwhile is left out. It runs
// inside a call.
func (d *Display) stack(a stackAtoms) ([]entry, error) {
	tree, err := xproto.QueryTree(d.conn, d.root).Reply()
	if err != nil {
		return nil, err
	}
	type look struct {
		attr  xproto.GetWindowAttributesCookie
		pid   xproto.GetPropertyCookie
		state xproto.GetPropertyCookie
	}
	send := func(w xproto.Window) look {
		return look{
			attr: xproto.GetWindowAttributes(d.conn, w),
			pid:  xproto.GetProperty(d.conn, false, w, a.netWMPID, xproto.AtomCardinal, 0, 1),
			// Length 0: whether it is there is all we ask.
			state: xproto.GetProperty(d.conn, false, w, a.wmState, xproto.GetPropertyTypeAny, 0, 0),
		}
	}
	type seen struct {
		attr     *xproto.GetWindowAttributesReply // nil: gone
		pid      int
		hasState bool
	}
	collect := func(l look) seen {
		var s seen
		attr, aerr := l.attr.Reply()
		p, perr := l.pid.Reply()
		st, serr := l.state.Reply()
		if aerr != nil {
			return s
		}
		s.attr = attr
		if perr == nil {
			s.pid = netWMPID(p)
		}
		s.hasState = serr == nil && st.Type != xproto.AtomNone
		return s
	}

	kids := tree.Children
	looks := make([]look, len(kids))
	treeC := make([]xproto.QueryTreeCookie, len(kids))
	for i, w := range kids {
		looks[i] = send(w)
		treeC[i] = xproto.QueryTree(d.conn, w)
	}
	tops := make([]seen, len(kids))
	inner := make([][]xproto.Window, len(kids)) // children of a child without WM_STATE
	n := 0
	for i := range kids {
		tops[i] = collect(looks[i])
		t, err := treeC[i].Reply()
		if err != nil || tops[i].attr == nil || tops[i].hasState {
			continue
		}
		inner[i] = t.Children
		n += len(t.Children)
	}

	var innerLooks [][]look
	if n > 0 {
		innerLooks = make([][]look, len(kids))
		for i, cs := range inner {
			innerLooks[i] = make([]look, len(cs))
			for j, c := range cs {
				innerLooks[i][j] = send(c)
			}
		}
	}
	out := make([]entry, 0, len(kids))
	for i, w := range kids {
		top := tops[i]
		var client *seen
		var clientID xproto.Window
		if innerLooks != nil {
			for j, c := range inner[i] {
				s := collect(innerLooks[i][j]) // every answer read, even after the client is found
				if client == nil && s.attr != nil && s.hasState {
					client, clientID = &s, c
				}
			}
		}
		if top.attr == nil {
			continue // gone since QueryTree
		}
		if client == nil {
			out = append(out, entry{id: w, attr: top.attr, pid: top.pid})
			continue
		}
		out = append(out, entry{id: clientID, frame: w, attr: client.attr, frameOR: top.attr.OverrideRedirect, pid: client.pid})
	}
	return out, nil
}

// Windows lists the top-level windows in stacking order, bottom first: the
// children of the root, a frame replaced by the client window it holds
// (see stack), so that a window's place in the stack is known by the
// application's own window. With no window manager these are the root's
// children themselves.
func (d *Display) Windows(ctx context.Context) ([]Window, error) {
	a, err := d.stackAtoms(ctx)
	if err != nil {
		return nil, err
	}
	es, err := call(ctx, d, "list the stack", func() ([]entry, error) { return d.stack(a) })
	if err != nil {
		return nil, err
	}
	out := make([]Window, 0, len(es))
	for _, e := range es {
		frame := WindowID(e.frame)
		w, err := d.window(ctx, WindowID(e.id), &frame)
		if target.CodeOf(err) == target.CodeWindowGone {
			continue // destroyed between the listing and our look
		}
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// WindowsOfPID lists the mapped top-level windows whose client is process
// pid: as the X server knows it (X-Resource), else by _NET_WM_PID (see
// TopLevels).
func (d *Display) WindowsOfPID(ctx context.Context, pid int) ([]Window, error) {
	return d.WindowsOf(ctx, func(p int) bool { return p == pid })
}

// Window reads one window's properties. A window that no longer exists is a
// window_gone refusal. It is one round trip for a child of the root, and
// one more for a window inside a frame (to find the frame).
func (d *Display) Window(ctx context.Context, id WindowID) (Window, error) {
	return d.window(ctx, id, nil)
}

// window is Window; a non-nil frame is the window's Frame, known already
// (then nobody asks the server for it).
func (d *Display) window(ctx context.Context, id WindowID, frame *WindowID) (Window, error) {
	atoms := make(map[string]xproto.Atom, 5)
	for _, n := range []string{"_NET_WM_NAME", "UTF8_STRING", "_NET_WM_PID"} {
		a, err := d.atom(ctx, n)
		if err != nil {
			return Window{}, err
		}
		atoms[n] = a
	}
	return call(ctx, d, "read window "+id.String(), func() (Window, error) {
		xw := xproto.Window(id)
		// Send every request first, then collect: one round trip, not seven.
		attrC := xproto.GetWindowAttributes(d.conn, xw)
		geoC := xproto.GetGeometry(d.conn, xproto.Drawable(xw))
		trC := xproto.TranslateCoordinates(d.conn, xw, d.root, 0, 0)
		netNameC := xproto.GetProperty(d.conn, false, xw, atoms["_NET_WM_NAME"], atoms["UTF8_STRING"], 0, 1<<16)
		nameC := xproto.GetProperty(d.conn, false, xw, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 1<<16)
		classC := xproto.GetProperty(d.conn, false, xw, xproto.AtomWmClass, xproto.AtomString, 0, 1<<12)
		pidC := xproto.GetProperty(d.conn, false, xw, atoms["_NET_WM_PID"], xproto.AtomCardinal, 0, 1)
		var treeC *xproto.QueryTreeCookie
		if frame == nil {
			c := xproto.QueryTree(d.conn, xw)
			treeC = &c
		}

		w := Window{ID: id}
		attr, err := attrC.Reply()
		if err != nil {
			drain(geoC, trC, netNameC, nameC, classC, pidC, treeC)
			return w, goneOr(err, id)
		}
		w.Mapped = attr.MapState != xproto.MapStateUnmapped
		w.Viewable = attr.MapState == xproto.MapStateViewable
		geo, err := geoC.Reply()
		if err != nil {
			drain(trC, netNameC, nameC, classC, pidC, treeC)
			return w, goneOr(err, id)
		}
		w.Geometry = Geometry{X: int(geo.X), Y: int(geo.Y), Width: int(geo.Width), Height: int(geo.Height)}
		if tr, err := trC.Reply(); err == nil {
			w.Geometry.X, w.Geometry.Y = int(tr.DstX), int(tr.DstY)
		}
		if p, err := netNameC.Reply(); err == nil && p.ValueLen > 0 {
			w.Title = string(p.Value)
		}
		if p, err := nameC.Reply(); err == nil && w.Title == "" && p.ValueLen > 0 {
			w.Title = string(p.Value)
		}
		if p, err := classC.Reply(); err == nil && p.ValueLen > 0 {
			parts := strings.Split(strings.TrimRight(string(p.Value), "\x00"), "\x00")
			w.Instance = parts[0]
			if len(parts) > 1 {
				w.Class = parts[1]
			}
		}
		if p, err := pidC.Reply(); err == nil {
			w.PID = netWMPID(p)
		}
		if frame != nil {
			w.Frame = *frame
			return w, nil
		}
		t, err := treeC.Reply()
		if err != nil {
			return w, goneOr(err, id)
		}
		if t.Parent != d.root && t.Parent != 0 {
			top, err := d.topOf(t.Parent)
			if err != nil {
				return w, goneOr(err, id)
			}
			w.Frame = WindowID(top)
		}
		return w, nil
	})
}

// maxDepth bounds the walk up a chain of parents.
const maxDepth = 64

// topOf is the child of the root that is w or holds it, walking up one
// QueryTree at a time (w is most often the root's child, or its child).
// It runs inside a call.
func (d *Display) topOf(w xproto.Window) (xproto.Window, error) {
	for range maxDepth {
		t, err := xproto.QueryTree(d.conn, w).Reply()
		if err != nil {
			return 0, err
		}
		if t.Parent == d.root || t.Parent == 0 {
			return w, nil
		}
		w = t.Parent
	}
	return 0, fmt.Errorf("x11: window 0x%x is more than %d windows deep", uint32(w), maxDepth)
}

// Cardinal reads one CARDINAL property of a window by name (_XPRA_WID,
// _NET_WM_PID, …): its first value; ok is false when the window has no
// such property, or it is not a CARDINAL. A window that no longer exists
// is a window_gone refusal.
func (d *Display) Cardinal(ctx context.Context, id WindowID, name string) (v uint32, ok bool, err error) {
	a, err := d.atom(ctx, name)
	if err != nil {
		return 0, false, err
	}
	type res struct {
		v  uint32
		ok bool
	}
	r, err := call(ctx, d, "read "+name+" of "+id.String(), func() (res, error) {
		p, err := xproto.GetProperty(d.conn, false, xproto.Window(id), a, xproto.AtomCardinal, 0, 1).Reply()
		if err != nil {
			return res{}, goneOr(err, id)
		}
		if p.Type != xproto.AtomCardinal || p.Format != 32 || len(p.Value) < 4 {
			return res{}, nil
		}
		return res{xgb.Get32(p.Value), true}, nil
	})
	return r.v, r.ok, err
}

// drain waits for outstanding replies so that their errors do not surface
// later as stray events.
func drain(cs ...any) {
	for _, c := range cs {
		switch c := c.(type) {
		case xproto.GetGeometryCookie:
			_, _ = c.Reply()
		case xproto.TranslateCoordinatesCookie:
			_, _ = c.Reply()
		case xproto.GetPropertyCookie:
			_, _ = c.Reply()
		case *xproto.QueryTreeCookie:
			if c != nil {
				_, _ = c.Reply()
			}
		}
	}
}

// goneOr maps an X BadWindow/BadDrawable error to window_gone.
func goneOr(err error, id WindowID) error {
	var bw xproto.WindowError
	var bd xproto.DrawableError
	if errors.As(err, &bw) || errors.As(err, &bd) {
		return target.Refuse(target.CodeWindowGone, "window %s is gone", id).With("window", id.String()).Wrap(err)
	}
	return fmt.Errorf("x11: window %s: %w", id, err)
}
