package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// Options configure the backend.
type Options struct {
	// WalkTimeout bounds one snapshot's walk; what is not read by then is
	// marked unreadable. Zero means atspi's default.
	WalkTimeout time.Duration
	// Width and Height of the screen (testenv's default when zero).
	Width, Height int
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
}

type backend struct{ o Options }

// New returns the real backend.
func New(o Options) daemon.Backend { return &backend{o: o} }

func (b *backend) envOptions() testenv.Options {
	return testenv.Options{Width: b.o.Width, Height: b.o.Height, Logf: b.o.Logf, Detach: true}
}

// Start brings up a new desktop, detached from the daemon's life.
func (b *backend) Start(ctx context.Context) (daemon.Display, error) {
	desk, err := testenv.Start(ctx, b.envOptions())
	if err != nil {
		return nil, fmt.Errorf("start our display: %w", err)
	}
	d, err := b.attach(ctx, desk)
	if err != nil {
		desk.Close()
		return nil, err
	}
	return d, nil
}

// Reattach adopts the desktop an earlier daemon started.
func (b *backend) Reattach(ctx context.Context, rec json.RawMessage) (daemon.Display, error) {
	var st testenv.State
	if err := json.Unmarshal(rec, &st); err != nil {
		return nil, fmt.Errorf("display record: %w", err)
	}
	desk, err := testenv.Adopt(ctx, st, b.envOptions())
	if err != nil {
		return nil, err
	}
	d, err := b.attach(ctx, desk)
	if err != nil {
		desk.Close()
		return nil, err
	}
	return d, nil
}

func (b *backend) attach(ctx context.Context, desk *testenv.Desktop) (*display, error) {
	x, err := x11.Open(ctx, desk.Display)
	if err != nil {
		return nil, fmt.Errorf("connect to our display %s: %w", desk.Display, err)
	}
	d := &display{desk: desk, x: x, walkTimeout: b.o.WalkTimeout, apps: make(map[int]*testenv.App), frames: make(map[uint32]atspi.Object), onBus: make(map[int]bool)}
	ext, err := extensions(ctx, desk.Display, "XTEST", "MIT-SHM")
	switch {
	case err != nil:
		d.injectWhy = "could not ask the X server for XTEST: " + err.Error()
	case !ext["XTEST"]:
		d.injectWhy = "the X server of " + desk.Display + " does not offer the XTEST extension"
	default:
		d.xtest = true
	}
	d.shm = ext["MIT-SHM"]
	bus, err := atspi.ConnectA11y(ctx, desk.A11yAddress, atspi.Options{})
	if err != nil {
		d.busErr = err
	} else {
		d.bus = bus
	}
	return d, nil
}

// Doctor probes the binaries this machine offers.
func (b *backend) Doctor(ctx context.Context) []daemon.Check {
	var out []daemon.Check
	for _, c := range []struct{ name, bin, what string }{
		{"Xvfb", "Xvfb", "our private display"},
		{"dbus-daemon", "dbus-daemon", "the private session bus"},
		{"at-spi-bus-launcher", "/usr/libexec/at-spi-bus-launcher", "the accessibility bus"},
		{"at-spi2-registryd", "/usr/libexec/at-spi2-registryd", "the accessibility registry"},
		{"portal", "/usr/libexec/xdg-desktop-portal", "RemoteDesktop portal (the Wayland input road; not used on our Xvfb)"},
		{"xpra", "xpra", "seamless per-window forwarding (not used yet)"},
		{"chromium", "chromium", "the browser target (vibespace-browser)"},
	} {
		p, err := exec.LookPath(c.bin)
		if err != nil {
			out = append(out, daemon.Check{Name: c.name, Detail: c.what + ": " + c.bin + " not found"})
			continue
		}
		out = append(out, daemon.Check{Name: c.name, OK: true, Detail: c.what + ": " + p})
	}
	return out
}
