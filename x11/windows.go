package x11

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
}

// Windows lists the top-level windows (children of the root) in stacking
// order, bottom first. With no window manager these are the applications'
// own windows; under a reparenting manager, frames would appear instead.
func (d *Display) Windows(ctx context.Context) ([]Window, error) {
	ids, err := call(ctx, d, "QueryTree", func() ([]xproto.Window, error) {
		r, err := xproto.QueryTree(d.conn, d.root).Reply()
		if err != nil {
			return nil, err
		}
		return r.Children, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Window, 0, len(ids))
	for _, id := range ids {
		w, err := d.Window(ctx, WindowID(id))
		if target.CodeOf(err) == target.CodeWindowGone {
			continue // destroyed between QueryTree and our look
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
// window_gone refusal.
func (d *Display) Window(ctx context.Context, id WindowID) (Window, error) {
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
		// Send every request first, then collect: one round trip, not six.
		attrC := xproto.GetWindowAttributes(d.conn, xw)
		geoC := xproto.GetGeometry(d.conn, xproto.Drawable(xw))
		trC := xproto.TranslateCoordinates(d.conn, xw, d.root, 0, 0)
		netNameC := xproto.GetProperty(d.conn, false, xw, atoms["_NET_WM_NAME"], atoms["UTF8_STRING"], 0, 1<<16)
		nameC := xproto.GetProperty(d.conn, false, xw, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 1<<16)
		classC := xproto.GetProperty(d.conn, false, xw, xproto.AtomWmClass, xproto.AtomString, 0, 1<<12)
		pidC := xproto.GetProperty(d.conn, false, xw, atoms["_NET_WM_PID"], xproto.AtomCardinal, 0, 1)

		w := Window{ID: id}
		attr, err := attrC.Reply()
		if err != nil {
			drain(geoC, trC, netNameC, nameC, classC, pidC)
			return w, goneOr(err, id)
		}
		w.Mapped = attr.MapState != xproto.MapStateUnmapped
		w.Viewable = attr.MapState == xproto.MapStateViewable
		geo, err := geoC.Reply()
		if err != nil {
			drain(trC, netNameC, nameC, classC, pidC)
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
		return w, nil
	})
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
