package testenv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/vibespace/vibespace/x11"
)

// Person stands in for the person at the keyboard of a display in tests:
// an X client with input devices that are not vibespace's. It adds a master
// device pair of its own (XIChangeHierarchy AddMaster), makes that master
// its ClientPointer, and injects through XTEST: the X server sends a
// client's XTEST input through the XTEST slaves of the client's own master
// (PickPointer/PickKeyboard), so its raw events come from
// "<name> XTEST pointer/keyboard", not from the core XTEST devices that
// package x11's injection uses. Its XInput 2 requests are written here,
// apart from package x11's, so that the watcher is tested against an
// independent client.
type Person struct {
	c    *xgb.Conn
	root xproto.Window
	xi   byte

	// Name is the master's name; Pointer and Keyboard are the names of its
	// XTEST slaves, whose ids are PointerID and KeyboardID: the devices a
	// watcher sees this person's input come from.
	Name                  string
	Pointer, Keyboard     string
	PointerID, KeyboardID int
	masterID              int

	mu     sync.Mutex
	keymap map[uint32]byte
	closed bool
}

// personName is the master's name: "vibespace-test-person", or with -2, -3
// … when one of that name is there already (a second Person).
const personName = "vibespace-test-person"

// NewPerson connects to display (authenticated with the cookie xauthority
// holds for it, when set) and adds the person's master device. Close
// removes it.
func NewPerson(ctx context.Context, display, xauthority string) (*Person, error) {
	nc, err := x11.DialConn(ctx, display, x11.Options{Xauthority: xauthority})
	if err != nil {
		return nil, err
	}
	c, err := xgb.NewConnNet(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("testenv: person on %s: %w", display, err)
	}
	go func() { // errors of unchecked requests arrive as events
		for {
			if ev, err := c.WaitForEvent(); ev == nil && err == nil {
				return
			}
		}
	}()
	p := &Person{c: c, root: xproto.Setup(c).DefaultScreen(c).Root}
	_, err = within(ctx, c, func() (struct{}, error) { return struct{}{}, p.setup() })
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("testenv: person on %s: %w", display, err)
	}
	return p, nil
}

// within runs f (X round trips on c) under ctx; when ctx ends first the
// connection is closed, which ends f.
func within[T any](ctx context.Context, c *xgb.Conn, f func() (T, error)) (T, error) {
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := f()
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		c.Close()
		var zero T
		return zero, ctx.Err()
	}
}

func (p *Person) setup() error {
	ext, err := xproto.QueryExtension(p.c, uint16(len("XInputExtension")), "XInputExtension").Reply()
	if err != nil {
		return err
	}
	if !ext.Present {
		return errors.New("no XInput extension")
	}
	p.xi = ext.MajorOpcode
	if err := xtest.Init(p.c); err != nil {
		return err
	}
	v := make([]byte, 4)
	xgb.Put16(v, 2)
	xgb.Put16(v[2:], 2)
	if _, err := p.reply(47, v); err != nil { // XIQueryVersion
		return fmt.Errorf("XIQueryVersion: %w", err)
	}
	devs, err := p.devices()
	if err != nil {
		return err
	}
	p.Name = personName
	for n := 2; slices.ContainsFunc(devs, func(d device) bool { return d.name == p.Name+" pointer" }); n++ {
		p.Name = personName + "-" + strconv.Itoa(n)
	}
	// XIChangeHierarchy, one AddMaster: type 1, length, name length,
	// send_core, enable, name.
	name := []byte(p.Name)
	add := make([]byte, 8+xgb.Pad(len(name)))
	xgb.Put16(add, 1)
	xgb.Put16(add[2:], uint16(len(add)/4))
	xgb.Put16(add[4:], uint16(len(name)))
	add[6], add[7] = 1, 1
	copy(add[8:], name)
	if err := p.void(43, append([]byte{1, 0, 0, 0}, add...)); err != nil {
		return fmt.Errorf("XIChangeHierarchy AddMaster %q: %w", p.Name, err)
	}
	if devs, err = p.devices(); err != nil {
		return err
	}
	for _, d := range devs {
		switch d.name {
		case p.Name + " pointer":
			p.masterID = d.id
		case p.Name + " XTEST pointer":
			p.Pointer, p.PointerID = d.name, d.id
		case p.Name + " XTEST keyboard":
			p.Keyboard, p.KeyboardID = d.name, d.id
		}
	}
	if p.masterID == 0 || p.PointerID == 0 || p.KeyboardID == 0 {
		return fmt.Errorf("the server made no master %q with XTEST slaves", p.Name)
	}
	// XISetClientPointer: window None (this client), the new master.
	set := make([]byte, 8)
	xgb.Put16(set[4:], uint16(p.masterID))
	if err := p.void(44, set); err != nil {
		return fmt.Errorf("XISetClientPointer: %w", err)
	}
	return nil
}

type device struct {
	id   int
	name string
}

// devices is XIQueryDevice(XIAllDevices): ids and names.
func (p *Person) devices() ([]device, error) {
	r, err := p.reply(48, []byte{0, 0, 0, 0})
	if err != nil {
		return nil, fmt.Errorf("XIQueryDevice: %w", err)
	}
	n := int(xgb.Get16(r[8:]))
	b := r[32:]
	var out []device
	for range n {
		d := device{id: int(xgb.Get16(b))}
		classes, nameLen := int(xgb.Get16(b[6:])), int(xgb.Get16(b[8:]))
		d.name = string(b[12 : 12+nameLen])
		b = b[12+xgb.Pad(nameLen):]
		for range classes {
			b = b[4*int(xgb.Get16(b[2:])):]
		}
		out = append(out, d)
	}
	return out, nil
}

func (p *Person) request(minor byte, body []byte) []byte {
	buf := make([]byte, 4+xgb.Pad(len(body)))
	buf[0], buf[1] = p.xi, minor
	xgb.Put16(buf[2:], uint16(len(buf)/4))
	copy(buf[4:], body)
	return buf
}

func (p *Person) void(minor byte, body []byte) error {
	ck := p.c.NewCookie(true, false)
	p.c.NewRequest(p.request(minor, body), ck)
	return ck.Check()
}

func (p *Person) reply(minor byte, body []byte) ([]byte, error) {
	ck := p.c.NewCookie(true, true)
	p.c.NewRequest(p.request(minor, body), ck)
	return ck.Reply()
}

// sync waits until the server has processed everything sent.
func (p *Person) sync() error {
	_, err := xproto.GetInputFocus(p.c).Reply()
	return err
}

// Key presses and releases the key of keysym (on the core keymap).
func (p *Person) Key(ctx context.Context, keysym uint32) error {
	_, err := within(ctx, p.c, func() (struct{}, error) {
		code, err := p.keycode(keysym)
		if err != nil {
			return struct{}{}, err
		}
		xtest.FakeInput(p.c, xproto.KeyPress, code, 0, p.root, 0, 0, 0)
		xtest.FakeInput(p.c, xproto.KeyRelease, code, 0, p.root, 0, 0, 0)
		return struct{}{}, p.sync()
	})
	return err
}

// Move moves the person's own pointer (its master's cursor) to (x, y).
func (p *Person) Move(ctx context.Context, x, y int) error {
	_, err := within(ctx, p.c, func() (struct{}, error) {
		xtest.FakeInput(p.c, xproto.MotionNotify, 0, 0, p.root, int16(x), int16(y), 0)
		return struct{}{}, p.sync()
	})
	return err
}

// Click moves the person's pointer to (x, y) and clicks button 1 there.
func (p *Person) Click(ctx context.Context, x, y int) error {
	_, err := within(ctx, p.c, func() (struct{}, error) {
		xtest.FakeInput(p.c, xproto.MotionNotify, 0, 0, p.root, int16(x), int16(y), 0)
		xtest.FakeInput(p.c, xproto.ButtonPress, 1, 0, p.root, 0, 0, 0)
		xtest.FakeInput(p.c, xproto.ButtonRelease, 1, 0, p.root, 0, 0, 0)
		return struct{}{}, p.sync()
	})
	return err
}

func (p *Person) keycode(keysym uint32) (byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keymap == nil {
		s := xproto.Setup(p.c)
		n := byte(s.MaxKeycode - s.MinKeycode + 1)
		r, err := xproto.GetKeyboardMapping(p.c, s.MinKeycode, n).Reply()
		if err != nil {
			return 0, err
		}
		p.keymap = map[uint32]byte{}
		per := int(r.KeysymsPerKeycode)
		for i := len(r.Keysyms)/per - 1; i >= 0; i-- { // the lowest keycode and level win
			for j := per - 1; j >= 0; j-- {
				if ks := uint32(r.Keysyms[i*per+j]); ks != 0 {
					p.keymap[ks] = byte(s.MinKeycode) + byte(i)
				}
			}
		}
	}
	code, ok := p.keymap[keysym]
	if !ok {
		return 0, fmt.Errorf("keysym 0x%x is not on the keymap", keysym)
	}
	return code, nil
}

// Close removes the person's master (and with it its XTEST slaves) and
// closes the connection.
func (p *Person) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := within(ctx, p.c, func() (struct{}, error) {
		// RemoveMaster: type 2, length 3, the master, return mode
		// Floating (its XTEST slaves go with it; it has no other).
		rm := make([]byte, 12)
		xgb.Put16(rm, 2)
		xgb.Put16(rm[2:], 3)
		xgb.Put16(rm[4:], uint16(p.masterID))
		rm[6] = 2
		return struct{}{}, p.void(43, append([]byte{1, 0, 0, 0}, rm...))
	})
	p.c.Close()
	if err != nil {
		return fmt.Errorf("testenv: remove the person's master %q: %w", p.Name, err)
	}
	return nil
}
