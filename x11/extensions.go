package x11

import (
	"context"

	"github.com/jezek/xgb/xproto"
)

// Extensions reports, for each of names, whether the X server offers that
// extension ("XTEST", "MIT-SHM", "Composite"), in one round trip on this
// connection (so with its authentication: a display reached with a
// person's Xauthority is asked as they are).
func (d *Display) Extensions(ctx context.Context, names ...string) (map[string]bool, error) {
	return call(ctx, d, "QueryExtension", func() (map[string]bool, error) {
		cookies := make([]xproto.QueryExtensionCookie, len(names))
		for i, n := range names {
			cookies[i] = xproto.QueryExtension(d.conn, uint16(len(n)), n)
		}
		m := make(map[string]bool, len(names))
		for i, ck := range cookies {
			r, err := ck.Reply()
			if err != nil {
				return nil, err
			}
			m[names[i]] = r.Present
		}
		return m, nil
	})
}
