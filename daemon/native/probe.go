package native

import (
	"context"
	"fmt"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// extensions asks the X server of display which of names it offers, on a
// short-lived connection of its own, under ctx.
func extensions(ctx context.Context, display string, names ...string) (map[string]bool, error) {
	type res struct {
		m   map[string]bool
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := xgb.NewConnDisplay(display)
		if err != nil {
			ch <- res{err: err}
			return
		}
		defer c.Close()
		cookies := make([]xproto.QueryExtensionCookie, len(names))
		for i, n := range names {
			cookies[i] = xproto.QueryExtension(c, uint16(len(n)), n)
		}
		m := make(map[string]bool, len(names))
		for i, ck := range cookies {
			r, err := ck.Reply()
			if err != nil {
				ch <- res{err: err}
				return
			}
			m[names[i]] = r.Present
		}
		ch <- res{m: m}
	}()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	select {
	case r := <-ch:
		return r.m, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("the X server of %s did not answer QueryExtension: %w", display, ctx.Err())
	}
}
