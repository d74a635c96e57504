package x11

import (
	"context"
	"fmt"

	"github.com/jezek/xgb/composite"
)

// KeepOwnPixels asks the X server to keep each top-level window's pixels in
// a pixmap of its own (Composite's automatic redirection of the root's
// children, present and future): a grab of a window then reads its own
// picture even where another window covers it, while the screen shows what
// it showed before. It lasts as long as this connection. A server without
// Composite (0.2 or later) answers an error.
func (d *Display) KeepOwnPixels(ctx context.Context) error {
	_, err := call(ctx, d, "composite redirect", func() (struct{}, error) {
		if err := composite.Init(d.conn); err != nil {
			return struct{}{}, fmt.Errorf("x11: the X server offers no Composite extension: %w", err)
		}
		v, err := composite.QueryVersion(d.conn, 0, 4).Reply()
		if err != nil {
			return struct{}{}, fmt.Errorf("x11: composite version: %w", err)
		}
		if v.MajorVersion == 0 && v.MinorVersion < 2 {
			return struct{}{}, fmt.Errorf("x11: composite %d.%d: 0.2 or later is needed", v.MajorVersion, v.MinorVersion)
		}
		if err := composite.RedirectSubwindowsChecked(d.conn, d.root, composite.RedirectAutomatic).Check(); err != nil {
			return struct{}{}, fmt.Errorf("x11: composite redirect: %w", err)
		}
		return struct{}{}, nil
	})
	return err
}
