package x11

import (
	"context"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Role is what a window says of itself to a window manager: its first
// _NET_WM_WINDOW_TYPE ("normal", "dialog", "utility", … the atom's name
// without _NET_WM_WINDOW_TYPE_, lower case; "" when unset or not one of
// the EWMH types) and the window it is transient for (WM_TRANSIENT_FOR;
// 0 when unset).
type Role struct {
	Type         string
	TransientFor WindowID
}

// Dialog reports whether the window says it is a dialog: its type is
// dialog, or it is transient for another window (ICCCM's way, which EWMH
// reads as a dialog when no type is set).
func (r Role) Dialog() bool {
	return r.Type == "dialog" || r.TransientFor != 0 && (r.Type == "" || r.Type == "normal")
}

// wmTypes are the EWMH window types Role names.
var wmTypes = []string{"normal", "dialog", "utility", "toolbar", "menu", "splash", "dock", "desktop",
	"dropdown_menu", "popup_menu", "tooltip", "notification", "combo", "dnd"}

// WindowRole reads a window's _NET_WM_WINDOW_TYPE and WM_TRANSIENT_FOR in
// one round trip (the atoms are interned once per connection). A window
// that no longer exists is a window_gone refusal.
func (d *Display) WindowRole(ctx context.Context, id WindowID) (Role, error) {
	typeAtom, err := d.atom(ctx, "_NET_WM_WINDOW_TYPE")
	if err != nil {
		return Role{}, err
	}
	names := make(map[xproto.Atom]string, len(wmTypes))
	for _, t := range wmTypes {
		a, err := d.atom(ctx, "_NET_WM_WINDOW_TYPE_"+strings.ToUpper(t))
		if err != nil {
			return Role{}, err
		}
		names[a] = t
	}
	return call(ctx, d, "read the role of window "+id.String(), func() (Role, error) {
		xw := xproto.Window(id)
		typeC := xproto.GetProperty(d.conn, false, xw, typeAtom, xproto.AtomAtom, 0, 16)
		trC := xproto.GetProperty(d.conn, false, xw, xproto.AtomWmTransientFor, xproto.AtomWindow, 0, 1)
		var r Role
		tp, terr := typeC.Reply()
		tr, rerr := trC.Reply()
		if terr != nil {
			return r, goneOr(terr, id)
		}
		if rerr != nil {
			return r, goneOr(rerr, id)
		}
		if tp.Format == 32 {
			for i := 0; i+4 <= len(tp.Value); i += 4 {
				if n, ok := names[xproto.Atom(xgb.Get32(tp.Value[i:]))]; ok {
					r.Type = n
					break
				}
			}
		}
		if tr.Format == 32 && len(tr.Value) >= 4 {
			r.TransientFor = WindowID(xgb.Get32(tr.Value))
		}
		return r, nil
	})
}
