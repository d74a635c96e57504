package atspi

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/internal/busdial"
	"github.com/vibespace/vibespace/target"
)

// DefaultCallTimeout bounds one D-Bus call when the caller's context has no
// earlier deadline.
const DefaultCallTimeout = 2 * time.Second

// Options tune a Bus. The zero value is usable. Options are frozen once
// passed to Connect.
type Options struct {
	// CallTimeout bounds every single D-Bus call (DefaultCallTimeout if 0).
	CallTimeout time.Duration
	// NoPeer disables the applications' peer-to-peer sockets: every call
	// then goes through the accessibility bus.
	NoPeer bool
	// Logger receives debug notes (peer sockets opened or refused); nil
	// discards them.
	Logger *slog.Logger
	// Calls, when set, is added one for every D-Bus method call the Bus
	// makes (to applications, the registry and the bus daemon; the
	// connections' own handshakes aside): what a test's budget of calls
	// per verb reads.
	Calls *atomic.Uint64
}

// Bus is a private connection to one accessibility bus, plus the
// peer-to-peer connections it opened to applications on it. The registry
// and the bus daemon are asked through godbus; applications through this
// package's own lean D-Bus client (wire.go), whose per-call cost is a
// fraction of godbus's. It is safe for
// concurrent use; one application that stops answering only delays calls to
// that application, up to their deadlines.
type Bus struct {
	conn *dbus.Conn // godbus: the registry and the bus daemon
	wbus *wconn     // wire.go: applications without a peer socket
	addr string
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	peers     map[string]*peerSlot // by the application's bus name
	toolkits  map[string]toolkit   // by the application's bus name, as it said
	once      map[string]onceName  // doubled names a walk saw undone, by object key (names.go)
	listening bool                 // registered as the registry's listener (listen.go)
	memos     map[string]walkMemo  // what the last walk of a root asked, by its key (early.go)

	changes changeLog // the object events (events.go)
}

// Connect asks the session bus at sessionAddr for the accessibility bus
// (org.a11y.Bus.GetAddress, which starts at-spi-bus-launcher if needed) and
// connects to it. Both connections are private; the session one is closed
// before Connect returns.
func Connect(ctx context.Context, sessionAddr string, o Options) (*Bus, error) {
	addr, err := A11yAddress(ctx, sessionAddr, o.CallTimeout)
	if err != nil {
		return nil, err
	}
	return ConnectA11y(ctx, addr, o)
}

// A11yAddress returns the accessibility bus address that the session bus at
// sessionAddr advertises.
func A11yAddress(ctx context.Context, sessionAddr string, callTimeout time.Duration) (string, error) {
	sess, err := dial(ctx, sessionAddr)
	if err != nil {
		return "", fmt.Errorf("atspi: session bus: %w", err)
	}
	defer sess.Close()
	cctx, cancel := withCallTimeout(ctx, callTimeout)
	defer cancel()
	var addr string
	err = sess.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(cctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	if err != nil {
		return "", callRefusal("org.a11y.Bus.GetAddress", err)
	}
	return addr, nil
}

// ConnectA11y connects to the accessibility bus at addr directly.
func ConnectA11y(ctx context.Context, addr string, o Options) (*Bus, error) {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	conn, err := dial(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("atspi: accessibility bus: %w", err)
	}
	wbus, err := dialWire(ctx, addr, true, o.CallTimeout, o.Calls)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("atspi: accessibility bus: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Bus{conn: conn, wbus: wbus, addr: addr, opts: o, log: log, peers: make(map[string]*peerSlot), toolkits: make(map[string]toolkit)}
	// Listen now, so that an application that starts from here on builds
	// its cache as it starts (listen.go); a walk tries again if this fails.
	if err := b.listen(ctx); err != nil {
		log.Debug("no listener yet", "err", err)
	}
	return b, nil
}

// Address is the accessibility bus address this Bus is connected to.
func (b *Bus) Address() string { return b.addr }

// Close closes the bus connection and every peer connection.
func (b *Bus) Close() error {
	b.mu.Lock()
	peers := b.peers
	b.peers = map[string]*peerSlot{}
	b.mu.Unlock()
	for _, p := range peers {
		p.close()
	}
	b.changes.mu.Lock()
	if b.changes.stop != nil {
		b.changes.stop()
		b.changes.stop = nil
	}
	b.changes.on = false
	b.changes.mu.Unlock()
	b.wbus.Close()
	return b.conn.Close()
}

// counted adds n calls made through godbus to the Bus's count, if any.
func (b *Bus) counted(n int) {
	if b.opts.Calls != nil {
		b.opts.Calls.Add(uint64(n))
	}
}

// dial opens a private bus connection (busdial), bounded by ctx or, when
// it has no deadline, by DefaultCallTimeout; one that does not arrive in
// time is a timeout refusal.
func dial(ctx context.Context, addr string) (*dbus.Conn, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCallTimeout)
		defer cancel()
	}
	c, err := busdial.Dial(ctx, addr)
	if err != nil && ctx.Err() != nil {
		return nil, target.Refuse(target.CodeTimeout, "connecting to %s timed out", addr).Wrap(ctx.Err())
	}
	return c, err
}

// withCallTimeout derives the context of one call: the caller's deadline or
// d from now, whichever is earlier.
func withCallTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return context.WithTimeout(ctx, d)
}
