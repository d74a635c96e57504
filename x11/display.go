package x11

import (
	"context"
	"errors"
	"io"
	"log"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// xgb logs through a package-level logger of its own, among other things a
// line on every connection made without an Xauthority cookie (our displays
// admit their own uid by the server-interpreted localuser rule and need
// none). Nothing in it is for an agent or a user; errors reach callers as
// values.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// DefaultTimeout bounds a request whose context carries no deadline.
const DefaultTimeout = 5 * time.Second

// ErrClosed is returned by calls on a Display after Close.
var ErrClosed = errors.New("x11: display closed")

// Display is one connection to one X server. It is safe for concurrent use.
type Display struct {
	name   string
	conn   *xgb.Conn
	root   xproto.Window
	width  int
	height int

	atomMu sync.Mutex
	atoms  map[string]xproto.Atom

	closeOnce sync.Once
	done      chan struct{}

	// traffic counts what the connection sent and read (Traffic).
	traffic *traffic

	// ext holds state of the extensions (XTEST, MIT-SHM, keyboard) that
	// other files of this package initialise lazily.
	ext extState
}

// Open connects to one of our own X displays, name (":99"), which admits
// our uid by the server-interpreted localuser rule: no cookie is sent, and
// $DISPLAY, $XAUTHORITY and ~/.Xauthority are never read. It dials as
// OpenWith does (the display's abstract socket first).
func Open(ctx context.Context, name string) (*Display, error) {
	if name == "" {
		return nil, errors.New("x11: empty display name")
	}
	return OpenWith(ctx, name, Options{})
}

// openConn makes a Display of the connection dial makes, under ctx.
func openConn(ctx context.Context, name string, dial func(context.Context) (*xgb.Conn, error)) (*Display, error) {
	if name == "" {
		return nil, errors.New("x11: empty display name")
	}
	type res struct {
		c   *xgb.Conn
		err error
	}
	ctx, cancel := withDefault(ctx)
	defer cancel()
	ch := make(chan res, 1)
	go func() {
		c, err := dial(ctx)
		ch <- res{c, err}
	}()
	var c *xgb.Conn
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		c = r.c
	case <-ctx.Done():
		go func() { // close the connection if it arrives late
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, timeoutRefusal("connect to "+name, ctx.Err())
	}
	// Nothing has been asked on c yet, and no other connection of ours
	// reads while the first one registers MIT-SHM (shm.go).
	registerShm(ctx, c)
	setup := xproto.Setup(c)
	scr := setup.DefaultScreen(c)
	d := &Display{
		name:   name,
		conn:   c,
		root:   scr.Root,
		width:  int(scr.WidthInPixels),
		height: int(scr.HeightInPixels),
		atoms:  make(map[string]xproto.Atom),
		done:   make(chan struct{}),
	}
	go d.drainEvents()
	return d, nil
}

// Name is the display name this connection was opened with.
func (d *Display) Name() string { return d.name }

// ScreenSize is the size of the default screen in pixels.
func (d *Display) ScreenSize() (width, height int) { return d.width, d.height }

// Close releases everything we hold (keys, buttons, remapped keycodes) and
// closes the connection. It is safe to call more than once.
func (d *Display) Close() error {
	var err error
	d.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		err = d.beforeClose(ctx)
		cancel()
		close(d.done)
		d.conn.Close()
	})
	return err
}

// drainEvents reads every event and error xgb delivers. xgb's read loop
// blocks once its event buffer is full, so somebody must always read.
func (d *Display) drainEvents() {
	for {
		ev, err := d.conn.WaitForEvent()
		if ev == nil && err == nil {
			d.endDamage()
			return // connection closed
		}
		if m, ok := ev.(xproto.MappingNotifyEvent); ok && m.Request != xproto.MappingPointer {
			d.ext.mapGen.Add(1) // the keymap we keep is stale
		}
		if ev != nil {
			d.dispatchDamage(ev)
		}
	}
}

// withDefault gives ctx a deadline of DefaultTimeout if it has none.
func withDefault(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}

// call runs f (one or more X round trips) under ctx. If ctx ends first the
// call returns a timeout refusal; f finishes in the background and its result
// is dropped.
func call[T any](ctx context.Context, d *Display, what string, f func() (T, error)) (T, error) {
	var zero T
	select {
	case <-d.done:
		return zero, ErrClosed
	default:
	}
	ctx, cancel := withDefault(ctx)
	defer cancel()
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
		return zero, timeoutRefusal(what, ctx.Err())
	case <-d.done:
		return zero, ErrClosed
	}
}

func timeoutRefusal(what string, err error) *target.Refusal {
	if errors.Is(err, context.Canceled) {
		return target.Refuse(target.CodeTimeout, "x11: %s was cancelled", what).Wrap(err)
	}
	return target.Refuse(target.CodeTimeout, "x11: %s did not answer in time", what).Wrap(err)
}

// atom interns name once per connection.
func (d *Display) atom(ctx context.Context, name string) (xproto.Atom, error) {
	d.atomMu.Lock()
	a, ok := d.atoms[name]
	d.atomMu.Unlock()
	if ok {
		return a, nil
	}
	a, err := call(ctx, d, "InternAtom "+name, func() (xproto.Atom, error) {
		r, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0, err
		}
		return r.Atom, nil
	})
	if err != nil {
		return 0, err
	}
	d.atomMu.Lock()
	d.atoms[name] = a
	d.atomMu.Unlock()
	return a, nil
}
