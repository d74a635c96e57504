// Package busdial opens a private D-Bus connection (godbus) under a
// context: godbus's handshake (dial, authentication, Hello) takes none.
package busdial

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// Dial connects to the bus at addr, authenticates and says Hello, bounded
// by ctx: the handshake runs in a goroutine, and a connection that arrives
// after ctx is done is closed. An expired ctx is an error wrapping its
// ctx.Err().
func Dial(ctx context.Context, addr string) (*dbus.Conn, error) {
	type result struct {
		c   *dbus.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := dbus.Dial(addr)
		if err == nil {
			if err = c.Auth(nil); err == nil {
				err = c.Hello()
			}
			if err != nil {
				c.Close()
				c = nil
			}
		}
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, fmt.Errorf("connecting to %s: %w", addr, ctx.Err())
	}
}
