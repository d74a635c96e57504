package portal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// Request is what Start asks the portal for.
type Request struct {
	// Devices to control (0: none; the portal's default would be all).
	Devices DeviceTypes
	// Sources to cast (0: no ScreenCast.SelectSources at all).
	Sources SourceTypes
	// Multiple lets the person pick more than one source.
	Multiple bool
	// Cursor is ScreenCast's cursor_mode (1 hidden, 2 embedded, 4
	// metadata; 0: not sent).
	Cursor uint32
	// Persist asks for a standing grant (persist_mode 2): Start's results
	// then carry a restore token. RemoteDesktop version 2 or newer only.
	Persist bool
	// RestoreToken is a previous session's token (single use). Version 2
	// or newer only.
	RestoreToken string
}

// The steps of Start, as errors name them.
const (
	StepCreateSession = "CreateSession"
	StepSelectDevices = "SelectDevices"
	StepSelectSources = "SelectSources"
	StepStart         = "Start"
)

// Start runs the whole sequence: RemoteDesktop.CreateSession,
// SelectDevices, ScreenCast.SelectSources (when r.Sources != 0) and
// RemoteDesktop.Start, which waits up to ConsentTimeout (or ctx) for the
// person's answer. On any failure the created session is closed.
func (c *Client) Start(ctx context.Context, r Request) (*Session, error) {
	info, err := c.Probe(ctx)
	if err != nil {
		return nil, &StepError{StepCreateSession, err}
	}
	res, err := c.request(ctx, StepCreateSession, IfaceRemote+".CreateSession", c.opts.CallTimeout,
		func(tok string) []any {
			return []any{map[string]dbus.Variant{
				"handle_token":         dbus.MakeVariant(tok),
				"session_handle_token": dbus.MakeVariant("vs_" + tok),
			}}
		})
	if err != nil {
		return nil, err
	}
	var handle dbus.ObjectPath
	switch v := res["session_handle"].Value().(type) {
	case string: // the portal's documented type is s for this result
		handle = dbus.ObjectPath(v)
	case dbus.ObjectPath:
		handle = v
	}
	if !handle.IsValid() {
		return nil, &StepError{StepCreateSession, fmt.Errorf("%w: no session_handle in the response", ErrFailed)}
	}
	s := &Session{c: c, handle: handle, done: make(chan struct{})}
	c.mu.Lock()
	c.sessions[handle] = s
	c.mu.Unlock()
	fail := func(err error) (*Session, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.CallTimeout)
		defer cancel()
		_ = s.Close(cctx)
		return nil, err
	}

	v2 := info.RemoteDesktop >= 2
	_, err = c.request(ctx, StepSelectDevices, IfaceRemote+".SelectDevices", c.opts.CallTimeout,
		func(tok string) []any {
			o := map[string]dbus.Variant{
				"handle_token": dbus.MakeVariant(tok),
				"types":        dbus.MakeVariant(uint32(r.Devices)),
			}
			if v2 && r.Persist {
				o["persist_mode"] = dbus.MakeVariant(uint32(2))
			}
			if v2 && r.RestoreToken != "" {
				o["restore_token"] = dbus.MakeVariant(r.RestoreToken)
			}
			return []any{handle, o}
		})
	if err != nil {
		return fail(err)
	}
	if r.Sources != 0 {
		_, err = c.request(ctx, StepSelectSources, IfaceScreenCast+".SelectSources", c.opts.CallTimeout,
			func(tok string) []any {
				o := map[string]dbus.Variant{
					"handle_token": dbus.MakeVariant(tok),
					"types":        dbus.MakeVariant(uint32(r.Sources)),
					"multiple":     dbus.MakeVariant(r.Multiple),
				}
				if r.Cursor != 0 {
					o["cursor_mode"] = dbus.MakeVariant(r.Cursor)
				}
				// persist_mode stays unset (0): inside a remote-desktop
				// session persistence is RemoteDesktop's.
				return []any{handle, o}
			})
		if err != nil {
			return fail(err)
		}
	}
	res, err = c.request(ctx, StepStart, IfaceRemote+".Start", c.opts.ConsentTimeout,
		func(tok string) []any {
			return []any{handle, "", map[string]dbus.Variant{"handle_token": dbus.MakeVariant(tok)}}
		})
	if err != nil {
		return fail(err)
	}
	if err := s.started(res, v2); err != nil {
		return fail(&StepError{StepStart, err})
	}
	return s, nil
}

// request makes one call that answers with a Request handle and waits up to
// wait (or ctx) for that Request's Response. The waiter is registered on the
// predicted handle before the call (Dial subscribed to the whole prefix); a
// returned handle that differs is waited on instead.
func (c *Client) request(ctx context.Context, step, method string, wait time.Duration, args func(tok string) []any) (map[string]dbus.Variant, error) {
	tok := c.token()
	predicted := dbus.ObjectPath(requestPathPrefix + c.sender + "/" + tok)
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, &StepError{step, ErrClosed}
	}
	c.waiters[predicted] = ch
	c.mu.Unlock()
	unwait := func(p dbus.ObjectPath) {
		c.mu.Lock()
		delete(c.waiters, p)
		c.mu.Unlock()
	}

	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	var handle dbus.ObjectPath
	err := c.conn.Object(BusName, ObjectPath).CallWithContext(cctx, method, 0, args(tok)...).Store(&handle)
	cancel()
	if err != nil {
		unwait(predicted)
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &StepError{step, fmt.Errorf("the call got no reply: %w", context.DeadlineExceeded)}
		}
		return nil, &StepError{step, err}
	}
	if handle != predicted {
		c.mu.Lock()
		delete(c.waiters, predicted)
		if r, ok := c.early[handle]; ok {
			delete(c.early, handle)
			ch <- r
		} else {
			c.waiters[handle] = ch
		}
		c.mu.Unlock()
		if !isUnder(handle, c.sender) {
			// Outside the subscribed prefix: subscribe to it now.
			mctx, mcancel := context.WithTimeout(ctx, c.opts.CallTimeout)
			_ = c.conn.AddMatchSignalContext(mctx, dbus.WithMatchSender(BusName), dbus.WithMatchObjectPath(handle),
				dbus.WithMatchInterface(IfaceRequest), dbus.WithMatchMember("Response"))
			mcancel()
			defer func() {
				rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.CallTimeout)
				_ = c.conn.RemoveMatchSignalContext(rctx, dbus.WithMatchSender(BusName), dbus.WithMatchObjectPath(handle),
					dbus.WithMatchInterface(IfaceRequest), dbus.WithMatchMember("Response"))
				rcancel()
			}()
		}
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case r := <-ch:
		switch r.code {
		case 0:
			return r.results, nil
		case 1:
			return nil, &StepError{step, ErrCancelled}
		default:
			return nil, &StepError{step, fmt.Errorf("%w (response %d)", ErrFailed, r.code)}
		}
	case <-timer.C:
		c.abandon(ctx, handle)
		return nil, &StepError{step, fmt.Errorf("no answer within %s: %w", wait, context.DeadlineExceeded)}
	case <-ctx.Done():
		c.abandon(ctx, handle)
		return nil, &StepError{step, fmt.Errorf("no answer before the caller's deadline: %w", ctx.Err())}
	case <-c.done:
		unwait(handle)
		return nil, &StepError{step, fmt.Errorf("%w: the bus connection dropped", ErrClosed)}
	}
}

// abandon stops waiting on a Request and asks the portal to close it (which
// takes its dialog down).
func (c *Client) abandon(ctx context.Context, handle dbus.ObjectPath) {
	c.mu.Lock()
	delete(c.waiters, handle)
	c.mu.Unlock()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.CallTimeout)
	defer cancel()
	_ = c.conn.Object(BusName, handle).CallWithContext(cctx, IfaceRequest+".Close", 0).Err
}

func isUnder(p dbus.ObjectPath, sender string) bool {
	pre := requestPathPrefix + sender + "/"
	return len(p) > len(pre) && string(p[:len(pre)]) == pre
}

// token is a fresh handle_token: a valid object path element, unique per
// call and per process.
func (c *Client) token() string {
	c.mu.Lock()
	c.seq++
	n := c.seq
	c.mu.Unlock()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("vibespace%d_%s", n, hex.EncodeToString(b[:]))
}
