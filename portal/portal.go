package portal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/internal/busdial"
)

// The portal's names on the session bus.
const (
	BusName           = "org.freedesktop.portal.Desktop"
	ObjectPath        = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	IfaceRemote       = "org.freedesktop.portal.RemoteDesktop"
	IfaceScreenCast   = "org.freedesktop.portal.ScreenCast"
	IfaceRequest      = "org.freedesktop.portal.Request"
	IfaceSession      = "org.freedesktop.portal.Session"
	requestPathPrefix = "/org/freedesktop/portal/desktop/request/"
	sessionPathPrefix = "/org/freedesktop/portal/desktop/session/"
)

// Defaults for Options.
const (
	DefaultCallTimeout    = 5 * time.Second
	DefaultConsentTimeout = 3 * time.Minute
)

// DeviceTypes is RemoteDesktop's device bitmask.
type DeviceTypes uint32

// The device types.
const (
	Keyboard DeviceTypes = 1
	Pointer  DeviceTypes = 2
	Touch    DeviceTypes = 4
)

func (d DeviceTypes) String() string {
	var p []string
	for _, x := range []struct {
		b DeviceTypes
		n string
	}{{Keyboard, "keyboard"}, {Pointer, "pointer"}, {Touch, "touch"}} {
		if d&x.b != 0 {
			p = append(p, x.n)
		}
	}
	if len(p) == 0 {
		return "none"
	}
	return strings.Join(p, "|")
}

// SourceTypes is ScreenCast's source bitmask.
type SourceTypes uint32

// The source types.
const (
	Monitor SourceTypes = 1
	Window  SourceTypes = 2
	Virtual SourceTypes = 4
)

// Errors. Every error this package returns for a step wraps one of these or
// context.DeadlineExceeded, inside a *StepError naming the step.
var (
	// ErrNoPortal: no xdg-desktop-portal (or no RemoteDesktop in it) on the bus.
	ErrNoPortal = errors.New("portal: no desktop portal on the bus")
	// ErrCancelled: the person said no (Response 1).
	ErrCancelled = errors.New("portal: the person cancelled the request")
	// ErrFailed: the portal ended the request otherwise (Response 2).
	ErrFailed = errors.New("portal: the portal failed the request")
	// ErrNotGranted: the session was not granted that device, or is closed.
	ErrNotGranted = errors.New("portal: not granted")
	// ErrClosed: the session is closed.
	ErrClosed = errors.New("portal: session closed")
)

// StepError says which step of the portal's sequence failed.
type StepError struct {
	Step string // CreateSession, SelectDevices, SelectSources, Start, or a method name
	Err  error
}

func (e *StepError) Error() string { return "portal: " + e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Options tune a Client. The zero value is usable.
type Options struct {
	// CallTimeout bounds each method call (DefaultCallTimeout if 0).
	CallTimeout time.Duration
	// ConsentTimeout bounds how long Start waits for the person's answer in
	// the portal's dialog (DefaultConsentTimeout if 0).
	ConsentTimeout time.Duration
}

// Client is one private connection to a session bus, speaking to the portal
// on it. It is safe for concurrent use.
type Client struct {
	conn   *dbus.Conn
	opts   Options
	sender string // our unique name, as the portal writes it in paths
	sigs   chan *dbus.Signal
	done   chan struct{} // closed when the dispatcher ends (bus gone)

	mu       sync.Mutex
	owner    string // the portal's unique name, once known
	waiters  map[dbus.ObjectPath]chan response
	early    map[dbus.ObjectPath]response // responses nobody waited for yet (bounded)
	sessions map[dbus.ObjectPath]*Session
	seq      uint64
	closed   bool
}

type response struct {
	code    uint32
	results map[string]dbus.Variant
}

// Dial connects to the session bus at busAddr ("unix:path=…"), bounded by
// ctx (CallTimeout if ctx has no deadline).
func Dial(ctx context.Context, busAddr string, o Options) (*Client, error) {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.ConsentTimeout <= 0 {
		o.ConsentTimeout = DefaultConsentTimeout
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.CallTimeout)
		defer cancel()
	}
	conn, err := busdial.Dial(ctx, busAddr)
	if err != nil {
		return nil, fmt.Errorf("portal: session bus: %w", err)
	}
	c := &Client{
		conn:     conn,
		opts:     o,
		sender:   pathElement(conn.Names()[0]),
		sigs:     make(chan *dbus.Signal, 64),
		done:     make(chan struct{}),
		waiters:  make(map[dbus.ObjectPath]chan response),
		early:    make(map[dbus.ObjectPath]response),
		sessions: make(map[dbus.ObjectPath]*Session),
	}
	// One subscription per kind, made before any call: every Request this
	// client will create lives under its sender's request prefix, every
	// Session under its session prefix.
	rules := [][]dbus.MatchOption{
		{dbus.WithMatchSender(BusName), dbus.WithMatchInterface(IfaceRequest), dbus.WithMatchMember("Response"),
			dbus.WithMatchPathNamespace(dbus.ObjectPath(requestPathPrefix + c.sender))},
		{dbus.WithMatchSender(BusName), dbus.WithMatchInterface(IfaceSession), dbus.WithMatchMember("Closed"),
			dbus.WithMatchPathNamespace(dbus.ObjectPath(sessionPathPrefix + c.sender))},
	}
	for _, r := range rules {
		if err := conn.AddMatchSignalContext(ctx, r...); err != nil {
			conn.Close()
			return nil, fmt.Errorf("portal: AddMatch: %w", err)
		}
	}
	conn.Signal(c.sigs)
	go c.dispatch()
	return c, nil
}

// Close closes the bus connection; the portal closes this client's sessions
// when it leaves the bus, and every Session's Done closes.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	err := c.conn.Close()
	<-c.done
	return err
}

// dispatch routes Request.Response and Session.Closed signals until the
// connection ends, then ends every session.
func (c *Client) dispatch() {
	defer close(c.done)
	for s := range c.sigs {
		c.mu.Lock()
		owner := c.owner
		c.mu.Unlock()
		if owner != "" && s.Sender != owner {
			continue
		}
		switch s.Name {
		case IfaceRequest + ".Response":
			var r response
			if len(s.Body) != 2 {
				continue
			}
			r.code, _ = s.Body[0].(uint32)
			r.results, _ = s.Body[1].(map[string]dbus.Variant)
			c.mu.Lock()
			if ch, ok := c.waiters[s.Path]; ok {
				delete(c.waiters, s.Path)
				ch <- r
			} else {
				if len(c.early) >= 16 {
					clear(c.early)
				}
				c.early[s.Path] = r
			}
			c.mu.Unlock()
		case IfaceSession + ".Closed":
			c.mu.Lock()
			sess := c.sessions[s.Path]
			c.mu.Unlock()
			if sess != nil {
				sess.finish(fmt.Errorf("%w: the portal closed it", ErrClosed))
			}
		}
	}
	c.mu.Lock()
	sessions := c.sessions
	c.sessions = map[dbus.ObjectPath]*Session{}
	closed := c.closed
	c.mu.Unlock()
	why := fmt.Errorf("%w: the bus connection dropped", ErrClosed)
	if closed {
		why = fmt.Errorf("%w: the client was closed", ErrClosed)
	}
	for _, s := range sessions {
		s.finish(why)
	}
}

// Info is what the portal says it offers.
type Info struct {
	RemoteDesktop uint32      // RemoteDesktop's version property
	ScreenCast    uint32      // ScreenCast's version property (0: none)
	Devices       DeviceTypes // AvailableDeviceTypes
	Sources       SourceTypes // AvailableSourceTypes
	Cursors       uint32      // AvailableCursorModes
	// Shell is the compositor and backend the bus's names say (empty
	// where they say nothing).
	Shell Shell
}

// Probe reads the portal's version and availability properties. A bus with
// no portal, or a portal with no RemoteDesktop, is ErrNoPortal (wrapped,
// saying why).
func (c *Client) Probe(ctx context.Context) (Info, error) {
	var info Info
	v, err := c.prop(ctx, IfaceRemote, "version")
	if err != nil {
		return info, noPortal(err)
	}
	info.RemoteDesktop = v
	if info.Devices, err = propAs[DeviceTypes](c, ctx, IfaceRemote, "AvailableDeviceTypes"); err != nil {
		return info, noPortal(err)
	}
	if sc, err := c.prop(ctx, IfaceScreenCast, "version"); err == nil {
		info.ScreenCast = sc
		info.Sources, _ = propAs[SourceTypes](c, ctx, IfaceScreenCast, "AvailableSourceTypes")
		info.Cursors, _ = c.prop(ctx, IfaceScreenCast, "AvailableCursorModes")
	}
	if err := c.learnOwner(ctx); err != nil {
		return info, noPortal(err)
	}
	// Which compositor this is only names it: a bus that will not list
	// its names leaves it unnamed.
	info.Shell, _ = c.shell(ctx)
	return info, nil
}

func noPortal(err error) error { return fmt.Errorf("%w: %w", ErrNoPortal, err) }

func propAs[T ~uint32](c *Client, ctx context.Context, iface, name string) (T, error) {
	v, err := c.prop(ctx, iface, name)
	return T(v), err
}

// prop reads one uint32 property of the Desktop object.
func (c *Client) prop(ctx context.Context, iface, name string) (uint32, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	var v dbus.Variant
	err := c.conn.Object(BusName, ObjectPath).CallWithContext(cctx, "org.freedesktop.DBus.Properties.Get", 0, iface, name).Store(&v)
	if err != nil {
		return 0, fmt.Errorf("%s.%s: %w", iface, name, err)
	}
	u, ok := v.Value().(uint32)
	if !ok {
		return 0, fmt.Errorf("%s.%s is %s, not u", iface, name, v.Signature())
	}
	return u, nil
}

// learnOwner records the portal's unique name, so signals from anyone else
// on the same paths are ignored.
func (c *Client) learnOwner(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	var owner string
	if err := c.conn.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.GetNameOwner", 0, BusName).Store(&owner); err != nil {
		return fmt.Errorf("GetNameOwner(%s): %w", BusName, err)
	}
	c.mu.Lock()
	c.owner = owner
	c.mu.Unlock()
	return nil
}

// pathElement is a unique bus name as the portal writes it in object paths:
// without the ':' and with '.' as '_'.
func pathElement(unique string) string {
	return strings.ReplaceAll(strings.TrimPrefix(unique, ":"), ".", "_")
}
