package x11

import (
	"context"
	"errors"

	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// Focus raises window id to the top of the stack and gives it the keyboard
// focus. With no window manager on the display nobody else does this; under
// one, the manager may still decide otherwise. A window inside a frame
// (Window.Frame) is raised by its frame: restacking it inside the frame
// would change nothing on the screen. A window that is not viewable is a
// window_not_visible refusal, and nothing is restacked; one that is gone is
// window_gone.
func (d *Display) Focus(ctx context.Context, id WindowID) error {
	_, err := call(ctx, d, "focus window "+id.String(), func() (struct{}, error) {
		w := xproto.Window(id)
		attrC := xproto.GetWindowAttributes(d.conn, w)
		top, terr := d.topOf(w) // in the same trip as the attributes
		attr, aerr := attrC.Reply()
		if aerr != nil {
			return struct{}{}, goneOr(aerr, id)
		}
		if terr != nil {
			return struct{}{}, goneOr(terr, id)
		}
		notVisible := func(err error) error {
			r := target.Refuse(target.CodeWindowNotVisible, "window %s is not viewable, so it cannot take the focus", id).With("window", id.String())
			if err != nil {
				return r.Wrap(err)
			}
			return r
		}
		if attr.MapState != xproto.MapStateViewable {
			return struct{}{}, notVisible(nil)
		}
		raise := xproto.ConfigureWindowChecked(d.conn, top, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove})
		focus := xproto.SetInputFocusChecked(d.conn, xproto.InputFocusParent, w, xproto.TimeCurrentTime)
		rerr, ferr := raise.Check(), focus.Check()
		for _, err := range []error{rerr, ferr} {
			var bm xproto.MatchError
			if errors.As(err, &bm) {
				return struct{}{}, notVisible(err) // unmapped since we looked
			}
			if err != nil {
				return struct{}{}, goneOr(err, id)
			}
		}
		return struct{}{}, nil
	})
	return err
}

// FocusedWindow is the window that has the keyboard focus now: 0 for none,
// 1 for PointerRoot (keys go to the window under the pointer).
func (d *Display) FocusedWindow(ctx context.Context) (WindowID, error) {
	return call(ctx, d, "GetInputFocus", func() (WindowID, error) {
		r, err := xproto.GetInputFocus(d.conn).Reply()
		if err != nil {
			return 0, err
		}
		return WindowID(r.Focus), nil
	})
}
