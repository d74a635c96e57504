package x11

import (
	"context"
	"slices"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// ClientList lists the windows the window manager manages, in the order of
// the root's EWMH _NET_CLIENT_LIST (the order of mapping, oldest first, by
// the specification): each read as Window reads it (its Frame found by
// walking up to the root's child), with its PID the process the X server
// names (X-Resource), else its _NET_WM_PID. A window listed but destroyed
// meanwhile is left out. When no manager publishes the list (the property
// is absent), it answers TopLevels' mapped windows that are not
// override-redirect, bottom first: what a manager would manage. A window
// skip answers true for (one the caller knows already) is neither read nor
// answered; skip may be nil.
func (d *Display) ClientList(ctx context.Context, skip func(WindowID) bool) ([]Window, error) {
	prop, err := d.atom(ctx, "_NET_CLIENT_LIST")
	if err != nil {
		return nil, err
	}
	ids, err := call(ctx, d, "read _NET_CLIENT_LIST", func() ([]WindowID, error) {
		r, err := xproto.GetProperty(d.conn, false, d.root, prop, xproto.AtomWindow, 0, 1<<16).Reply()
		if err != nil {
			return nil, err
		}
		if r.Type != xproto.AtomWindow || r.Format != 32 {
			return nil, nil
		}
		out := make([]WindowID, 0, len(r.Value)/4)
		for i := 0; i+4 <= len(r.Value); i += 4 {
			out = append(out, WindowID(xgb.Get32(r.Value[i:])))
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	if ids == nil {
		return d.managedTopLevels(ctx, skip)
	}
	if skip != nil {
		ids = slices.DeleteFunc(ids, skip)
	}
	pids := map[uint32]int{}
	if d.xres(ctx) == nil {
		pids, err = call(ctx, d, "QueryClientIds", func() (map[uint32]int, error) {
			r, err := res.QueryClientIds(d.conn, 1, []res.ClientIdSpec{{Client: 0, Mask: res.ClientIdMaskLocalClientPID}}).Reply()
			if err != nil {
				return map[uint32]int{}, nil // the server cannot tell: _NET_WM_PID stays
			}
			return clientPIDs(r), nil
		})
		if err != nil {
			return nil, err
		}
	}
	mask := xproto.Setup(d.conn).ResourceIdMask
	out := make([]Window, 0, len(ids))
	for _, id := range ids {
		w, err := d.Window(ctx, id)
		if target.CodeOf(err) == target.CodeWindowGone {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p := pids[uint32(id)&^mask]; p > 0 {
			w.PID = p
		}
		out = append(out, w)
	}
	return out, nil
}

// managedTopLevels is ClientList without a manager: TopLevels' mapped
// windows that are not override-redirect, each read as Window reads it.
func (d *Display) managedTopLevels(ctx context.Context, skip func(WindowID) bool) ([]Window, error) {
	tops, err := d.TopLevels(ctx)
	if err != nil {
		return nil, err
	}
	var out []Window
	for _, t := range tops {
		if !t.Mapped || t.OverrideRedirect || skip != nil && skip(t.ID) {
			continue
		}
		frame := t.Frame
		w, err := d.window(ctx, t.ID, &frame)
		if target.CodeOf(err) == target.CodeWindowGone {
			continue
		}
		if err != nil {
			return nil, err
		}
		if t.PID > 0 {
			w.PID = t.PID
		}
		out = append(out, w)
	}
	return out, nil
}
