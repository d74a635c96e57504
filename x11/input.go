package x11

import (
	"context"
	"errors"
	"fmt"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/vibespace/vibespace/target"
)

// The event types XTEST's FakeInput takes.
const (
	fakeKeyPress      = xproto.KeyPress
	fakeKeyRelease    = xproto.KeyRelease
	fakeButtonPress   = xproto.ButtonPress
	fakeButtonRelease = xproto.ButtonRelease
	fakeMotion        = xproto.MotionNotify
)

// initXTEST checks once per connection that the server has XTEST. A probe
// that timed out is retried on the next call; a server without XTEST is a
// no_injection_backend refusal.
func (d *Display) initXTEST(ctx context.Context) error {
	d.ext.heldMu.Lock()
	done, err := d.ext.xtestOK, d.ext.xtestErr
	d.ext.heldMu.Unlock()
	if done {
		return err
	}
	_, err = call(ctx, d, "XTEST QueryExtension", func() (struct{}, error) {
		if err := xtest.Init(d.conn); err != nil {
			return struct{}{}, target.Refuse(target.CodeNoInjectionBackend,
				"the X server %s has no XTEST extension", d.name).With("probe", "xtest").Wrap(err)
		}
		return struct{}{}, nil
	})
	if target.CodeOf(err) == target.CodeTimeout || errors.Is(err, ErrClosed) {
		return err
	}
	d.ext.heldMu.Lock()
	d.ext.xtestOK, d.ext.xtestErr = true, err
	if d.ext.keys == nil {
		d.ext.keys = make(map[byte]bool)
		d.ext.buttons = make(map[byte]bool)
	}
	d.ext.heldMu.Unlock()
	return err
}

// injection is one verb's worth of fake events, sent without waiting and
// checked between events for cancellation (ctx) or a ReleaseAll (epoch).
type injection struct {
	d       *Display
	ctx     context.Context
	epoch   uint64
	keys    map[byte]bool // pressed by this injection and not yet released
	buttons map[byte]bool
	sent    int // events sent, for the periodic round trip
}

// syncEvery is how many events an injection sends between two round trips.
// The round trip keeps the server's queue short, lets a stalled server show
// as a timeout rather than a blocked write, and bounds how far a long text
// runs past a cancellation.
const syncEvery = 512

// inject runs f as one injection: serialised with the others, ended by a
// round trip so that the server has processed every event when it returns.
// If f stops early (cancelled, interrupted, failed), whatever it still holds
// is released before inject returns.
func (d *Display) inject(ctx context.Context, what string, f func(in *injection) error) error {
	if err := d.initXTEST(ctx); err != nil {
		return err
	}
	d.ext.inMu.Lock()
	defer d.ext.inMu.Unlock()
	in := &injection{d: d, ctx: ctx, epoch: d.ext.epoch.Load(), keys: map[byte]bool{}, buttons: map[byte]bool{}}
	err := f(in)
	if err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultTimeout)
		defer cancel()
		in.releaseOwn()
		return errors.Join(err, d.sync(rctx, what+": release"))
	}
	return d.sync(ctx, what)
}

// stopped reports why the injection must not send another event, if so.
// Every syncEvery events it waits for the server to catch up.
func (in *injection) stopped() error {
	if err := in.ctx.Err(); err != nil {
		return timeoutRefusal("input", err)
	}
	if in.d.ext.epoch.Load() != in.epoch {
		return target.Refuse(target.CodeInterrupted, "input was interrupted: everything held was released")
	}
	in.sent++
	if in.sent%syncEvery == 0 {
		return in.d.sync(in.ctx, "input")
	}
	return nil
}

// key sends one key press or release and tracks what is held.
func (in *injection) key(code byte, down bool) error {
	if err := in.stopped(); err != nil {
		return err
	}
	in.d.fakeKey(code, down)
	in.keys[code] = down
	return nil
}

// button sends one button press or release and tracks what is held.
func (in *injection) button(b Button, down bool) error {
	if err := in.stopped(); err != nil {
		return err
	}
	in.d.fakeButton(byte(b), down)
	in.buttons[byte(b)] = down
	return nil
}

// motion moves the pointer to (x, y) in root coordinates.
func (in *injection) motion(x, y int) error {
	if err := in.stopped(); err != nil {
		return err
	}
	xtest.FakeInput(in.d.conn, fakeMotion, 0, 0, in.d.root, int16(x), int16(y), 0)
	return nil
}

// releaseOwn releases every key and button this injection pressed and still
// holds, in reverse order of importance (buttons, then keys).
func (in *injection) releaseOwn() {
	for b, down := range in.buttons {
		if down {
			in.d.fakeButton(b, false)
		}
	}
	for k, down := range in.keys {
		if down {
			in.d.fakeKey(k, false)
		}
	}
}

func (d *Display) fakeKey(code byte, down bool) { d.fake(code, down, false) }

func (d *Display) fakeButton(b byte, down bool) { d.fake(b, down, true) }

// fake sends one XTEST press or release of a key or button and records it in
// the display-wide set of what we hold, for ReleaseAll.
func (d *Display) fake(detail byte, down, button bool) {
	t := byte(fakeKeyRelease)
	switch {
	case button && down:
		t = fakeButtonPress
	case button:
		t = fakeButtonRelease
	case down:
		t = fakeKeyPress
	}
	xtest.FakeInput(d.conn, t, detail, 0, d.root, 0, 0, 0)
	d.ext.heldMu.Lock()
	held := d.ext.keys
	if button {
		held = d.ext.buttons
	}
	if down {
		held[detail] = true
	} else {
		delete(held, detail)
	}
	d.ext.heldMu.Unlock()
}

// sync is one round trip: when it returns, the server has processed every
// request we sent before it.
func (d *Display) sync(ctx context.Context, what string) error {
	_, err := call(ctx, d, what, func() (struct{}, error) {
		_, err := xproto.GetInputFocus(d.conn).Reply()
		return struct{}{}, err
	})
	return err
}

// ReleaseAll releases every key and button this connection pressed and did
// not release. An injection in flight stops between two events (its call
// returns an interrupted refusal) and releases what it holds first. Close
// calls ReleaseAll.
func (d *Display) ReleaseAll(ctx context.Context) error {
	d.ext.epoch.Add(1)
	d.ext.inMu.Lock()
	defer d.ext.inMu.Unlock()
	d.ext.heldMu.Lock()
	var keys, buttons []byte
	for k := range d.ext.keys {
		keys = append(keys, k)
	}
	for b := range d.ext.buttons {
		buttons = append(buttons, b)
	}
	ok := d.ext.xtestOK && d.ext.xtestErr == nil
	d.ext.heldMu.Unlock()
	if !ok || len(keys)+len(buttons) == 0 {
		return nil
	}
	for _, b := range buttons {
		d.fakeButton(b, false)
	}
	for _, k := range keys {
		d.fakeKey(k, false)
	}
	if err := d.sync(ctx, "release all"); err != nil {
		return fmt.Errorf("x11: release %d keys and %d buttons: %w", len(keys), len(buttons), err)
	}
	return nil
}

// Held reports the keycodes and buttons this connection holds down now.
func (d *Display) Held() (keycodes, buttons []int) {
	d.ext.heldMu.Lock()
	defer d.ext.heldMu.Unlock()
	for k := range d.ext.keys {
		keycodes = append(keycodes, int(k))
	}
	for b := range d.ext.buttons {
		buttons = append(buttons, int(b))
	}
	return keycodes, buttons
}

// KeysDown asks the X server which keycodes are down now, whoever pressed
// them (QueryKeymap). Held reports only what this connection holds.
func (d *Display) KeysDown(ctx context.Context) ([]int, error) {
	return call(ctx, d, "QueryKeymap", func() ([]int, error) {
		r, err := xproto.QueryKeymap(d.conn).Reply()
		if err != nil {
			return nil, err
		}
		var down []int
		for i, b := range r.Keys {
			for bit := range 8 {
				if b&(1<<bit) != 0 {
					down = append(down, i*8+bit)
				}
			}
		}
		return down, nil
	})
}
