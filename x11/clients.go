package x11

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"
)

// Which process made a window. _NET_WM_PID is a property the client sets
// on its own windows, and some toolkits never do (Tk, a plain Xlib or xgb
// client). The X server itself knows which client made every resource,
// and for a client on this machine its process (X-Resource 1.2,
// QueryClientIds with the LocalClientPID mask; Xvfb has it). We ask the
// server first, and read _NET_WM_PID where the server cannot tell.

// resState is whether X-Resource is usable on this connection, asked once.
type resState struct {
	once sync.Once
	err  error // nil: res.Init answered and QueryClientIds may be sent
}

// xres initialises X-Resource on d's connection once, under ctx (as any
// call); its error says why the server cannot name a window's process.
func (d *Display) xres(ctx context.Context) error {
	st := &d.ext.res
	_, err := call(ctx, d, "X-Resource setup", func() (struct{}, error) {
		st.once.Do(func() {
			if err := res.Init(d.conn); err != nil {
				st.err = fmt.Errorf("x11: the X server offers no X-Resource extension: %w", err)
				return
			}
			v, err := res.QueryVersion(d.conn, 1, 2).Reply()
			switch {
			case err != nil:
				st.err = fmt.Errorf("x11: X-Resource version: %w", err)
			case v.ServerMajor < 1 || v.ServerMajor == 1 && v.ServerMinor < 2:
				st.err = fmt.Errorf("x11: X-Resource %d.%d: 1.2 or later names a client's process", v.ServerMajor, v.ServerMinor)
			}
		})
		return struct{}{}, st.err
	})
	return err
}

// TopLevel is a top-level window as one scan of the screen reads it: a
// child of the root, or the client window a frame of the root's holds (see
// Windows): its id, the process that made it, and its map state.
type TopLevel struct {
	ID WindowID
	// Frame is the child of the root that holds the window, 0 when the
	// window is one itself.
	Frame WindowID
	// PID is the process of the client that made the window, as the X
	// server knows it (X-Resource), else its _NET_WM_PID; 0 if neither
	// says.
	PID int
	// Mapped is the window's own map state (MapState != Unmapped): its
	// application asked for it to be shown. Inside a frame that its
	// manager has not mapped (xpra hides every new window until it is
	// shown) a window is mapped but not viewable.
	Mapped   bool
	Viewable bool // MapState == Viewable: mapped, and its frame too
	// OverrideRedirect windows are a client's own popups (menus,
	// tooltips, drop-downs), never managed: not windows of their own. A
	// framed window is one when its frame or itself is.
	OverrideRedirect bool
}

// TopLevels lists the top-level windows, bottom first — the children of the
// root, a frame replaced by its client window (see Windows) — each with its
// client's process and map state, in three round trips at most whatever
// their number: QueryTree beside one QueryClientIds for every client at
// once, then each window's attributes, _NET_WM_PID, WM_STATE and children,
// then the same for the windows inside the ones without WM_STATE (not
// asked when none has a child window; a GTK window has one, so on our Xvfb
// it is three). A window destroyed meanwhile is left out.
func (d *Display) TopLevels(ctx context.Context) ([]TopLevel, error) {
	atoms, err := d.stackAtoms(ctx)
	if err != nil {
		return nil, err
	}
	useRes := d.xres(ctx) == nil
	mask := xproto.Setup(d.conn).ResourceIdMask
	return call(ctx, d, "list top-level windows", func() ([]TopLevel, error) {
		var idsC res.QueryClientIdsCookie
		if useRes {
			// Client 0 asks for every client: one answer per client, each
			// named by its resource base, whatever windows it has.
			idsC = res.QueryClientIds(d.conn, 1, []res.ClientIdSpec{{Client: 0, Mask: res.ClientIdMaskLocalClientPID}})
		}
		es, err := d.stack(atoms)
		byBase := map[uint32]int{}
		if useRes {
			if r, err := idsC.Reply(); err == nil {
				byBase = clientPIDs(r)
			}
		}
		if err != nil {
			return nil, err
		}
		out := make([]TopLevel, 0, len(es))
		for _, e := range es {
			t := TopLevel{
				ID:               WindowID(e.id),
				Frame:            WindowID(e.frame),
				Mapped:           e.attr.MapState != xproto.MapStateUnmapped,
				Viewable:         e.attr.MapState == xproto.MapStateViewable,
				OverrideRedirect: e.attr.OverrideRedirect || e.frameOR,
				PID:              byBase[uint32(e.id)&^mask],
			}
			if t.PID == 0 {
				t.PID = e.pid
			}
			out = append(out, t)
		}
		return out, nil
	})
}

// ClientPID is the process of the client that made window id, as the X
// server knows it (X-Resource); 0 when the server cannot tell (no
// X-Resource, or a client on another machine). A window that no longer
// exists is window_gone.
func (d *Display) ClientPID(ctx context.Context, id WindowID) (int, error) {
	if err := d.xres(ctx); err != nil {
		return 0, err
	}
	mask := xproto.Setup(d.conn).ResourceIdMask
	return call(ctx, d, "client of "+id.String(), func() (int, error) {
		// Asking about the window's own id names the client that owns
		// the id's range; check the window exists too, in the same trip.
		idsC := res.QueryClientIds(d.conn, 1, []res.ClientIdSpec{{Client: uint32(id), Mask: res.ClientIdMaskLocalClientPID}})
		attrC := xproto.GetWindowAttributes(d.conn, xproto.Window(id))
		r, rerr := idsC.Reply()
		if _, err := attrC.Reply(); err != nil {
			return 0, goneOr(err, id)
		}
		if rerr != nil {
			return 0, fmt.Errorf("x11: QueryClientIds for %s: %w", id, rerr)
		}
		return clientPIDs(r)[uint32(id)&^mask], nil
	})
}

// clientPIDs maps each client's resource base to its process, from a
// QueryClientIds answer (clients of another machine have no PID and are
// absent).
func clientPIDs(r *res.QueryClientIdsReply) map[uint32]int {
	m := make(map[uint32]int, len(r.Ids))
	for _, v := range r.Ids {
		if v.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(v.Value) > 0 && v.Value[0] > 0 {
			m[v.Spec.Client] = int(v.Value[0])
		}
	}
	return m
}

// netWMPID reads a _NET_WM_PID property; 0 if unset.
func netWMPID(p *xproto.GetPropertyReply) int {
	if p != nil && p.Format == 32 && len(p.Value) >= 4 {
		return int(xgb.Get32(p.Value))
	}
	return 0
}

// WindowsOf lists the mapped top-level windows (TopLevels: a window inside
// a frame is listed, viewable or not), bottom first, whose client's process
// (TopLevel.PID) satisfies owns; each Window's PID is that process.
func (d *Display) WindowsOf(ctx context.Context, owns func(pid int) bool) ([]Window, error) {
	tops, err := d.TopLevels(ctx)
	if err != nil {
		return nil, err
	}
	var out []Window
	for _, t := range tops {
		if !t.Mapped || t.PID <= 0 || !owns(t.PID) {
			continue
		}
		frame := t.Frame
		w, err := d.window(ctx, t.ID, &frame)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			continue // gone meanwhile
		}
		w.PID = t.PID
		out = append(out, w)
	}
	return out, nil
}

// Protocols lists the WM_PROTOCOLS a window takes, by name
// ("WM_DELETE_WINDOW", "_NET_WM_PING", "WM_TAKE_FOCUS").
func (d *Display) Protocols(ctx context.Context, id WindowID) ([]string, error) {
	atoms, err := d.protocolAtoms(ctx, id)
	if err != nil {
		return nil, err
	}
	return call(ctx, d, "name WM_PROTOCOLS of "+id.String(), func() ([]string, error) {
		cs := make([]xproto.GetAtomNameCookie, len(atoms))
		for i, a := range atoms {
			cs[i] = xproto.GetAtomName(d.conn, a)
		}
		var out []string
		for _, c := range cs {
			if r, err := c.Reply(); err == nil {
				out = append(out, r.Name)
			}
		}
		return out, nil
	})
}

// protocolAtoms reads a window's WM_PROTOCOLS as atoms.
func (d *Display) protocolAtoms(ctx context.Context, id WindowID) ([]xproto.Atom, error) {
	protos, err := d.atom(ctx, "WM_PROTOCOLS")
	if err != nil {
		return nil, err
	}
	return call(ctx, d, "read WM_PROTOCOLS of "+id.String(), func() ([]xproto.Atom, error) {
		r, err := xproto.GetProperty(d.conn, false, xproto.Window(id), protos, xproto.AtomAtom, 0, 64).Reply()
		if err != nil {
			return nil, goneOr(err, id)
		}
		var out []xproto.Atom
		for i := 0; i+4 <= len(r.Value); i += 4 {
			out = append(out, xproto.Atom(xgb.Get32(r.Value[i:])))
		}
		return out, nil
	})
}

// ErrNoDelete is DeleteWindow's answer for a window that does not take
// WM_DELETE_WINDOW: it cannot be asked to close alone.
var ErrNoDelete = fmt.Errorf("x11: the window does not take WM_DELETE_WINDOW")

// DeleteWindow asks a window to close the way a window manager's close
// button does (ICCCM WM_DELETE_WINDOW): its client decides, and may ask
// something first. It does not wait for the window to go. A window that
// does not list the protocol is ErrNoDelete; one that is gone is
// window_gone.
func (d *Display) DeleteWindow(ctx context.Context, id WindowID) error {
	atoms, err := d.protocolAtoms(ctx, id)
	if err != nil {
		return err
	}
	del, err := d.atom(ctx, "WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	if !slices.Contains(atoms, del) {
		return ErrNoDelete
	}
	protos, err := d.atom(ctx, "WM_PROTOCOLS")
	if err != nil {
		return err
	}
	_, err = call(ctx, d, "WM_DELETE_WINDOW to "+id.String(), func() (struct{}, error) {
		ev := xproto.ClientMessageEvent{
			Format: 32, Window: xproto.Window(id), Type: protos,
			Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(del), uint32(xproto.TimeCurrentTime), 0, 0, 0}),
		}
		if err := xproto.SendEventChecked(d.conn, false, xproto.Window(id), xproto.EventMaskNoEvent, string(ev.Bytes())).Check(); err != nil {
			return struct{}{}, goneOr(err, id)
		}
		return struct{}{}, nil
	})
	return err
}
