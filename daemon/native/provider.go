package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xvfb"
)

// Options configure the provider.
type Options struct {
	// WalkTimeout bounds one snapshot's walk; what is not read by then is
	// marked unreadable. Zero means atspi's default.
	WalkTimeout time.Duration
	// Width and Height of the screen (xvfb's default when zero).
	Width, Height int
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
}

// ProviderName is the word that picks our own Xvfb display.
const ProviderName = "xvfb"

type provider struct{ o Options }

// Xvfb returns the provider of our own Xvfb displays.
func Xvfb(o Options) kind.DisplayProvider { return &provider{o: o} }

func (p *provider) Name() string { return ProviderName }

func (p *provider) desktopOptions() xvfb.Options {
	return xvfb.Options{Width: p.o.Width, Height: p.o.Height, Logf: p.o.Logf, Detach: true}
}

// Start brings up a new desktop, detached from the daemon's life.
func (p *provider) Start(ctx context.Context) (kind.Display, error) {
	desk, err := xvfb.Start(ctx, p.desktopOptions())
	if err != nil {
		return nil, fmt.Errorf("start our display: %w", err)
	}
	d, err := p.attach(ctx, desk)
	if err != nil {
		desk.Close()
		return nil, err
	}
	return d, nil
}

// Reattach adopts the desktop an earlier daemon started.
func (p *provider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	var st xvfb.State
	if err := json.Unmarshal(rec, &st); err != nil {
		return nil, fmt.Errorf("display record: %w", err)
	}
	desk, err := xvfb.Adopt(ctx, st, p.desktopOptions())
	if err != nil {
		return nil, err
	}
	d, err := p.attach(ctx, desk)
	if err != nil {
		desk.Close()
		return nil, err
	}
	return d, nil
}

func (p *provider) attach(ctx context.Context, desk *xvfb.Desktop) (*display, error) {
	x, err := x11.Open(ctx, desk.Display)
	if err != nil {
		return nil, fmt.Errorf("connect to our display %s: %w", desk.Display, err)
	}
	d := &display{desk: desk, x: x, walkTimeout: p.o.WalkTimeout, apps: make(map[int]*xvfb.App), frames: make(map[x11.WindowID]atspi.Object), onBus: make(map[int]bool)}
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
	// Each window keeps its own pixels while this connection lives: a
	// screenshot of a covered window raises nothing (the stacking order
	// stays as the agents and the person left it).
	if err := x.KeepOwnPixels(ctx); err != nil {
		d.ownWhy = err.Error()
	} else {
		d.ownPixels = true
	}
	bus, err := atspi.ConnectA11y(ctx, desk.A11yAddress, atspi.Options{})
	if err != nil {
		d.busErr = err
	} else {
		d.bus = bus
	}
	return d, nil
}

// Doctor probes the binaries our display needs.
func (p *provider) Doctor(ctx context.Context) []kind.Check {
	var out []kind.Check
	for _, c := range []struct{ name, bin, what string }{
		{"Xvfb", "Xvfb", "our private display"},
		{"dbus-daemon", "dbus-daemon", "the private session bus"},
		{"at-spi-bus-launcher", "/usr/libexec/at-spi-bus-launcher", "the accessibility bus"},
		{"at-spi2-registryd", "/usr/libexec/at-spi2-registryd", "the accessibility registry"},
		{"portal", "/usr/libexec/xdg-desktop-portal", "RemoteDesktop portal (the Wayland input road; not used on our Xvfb)"},
		{"xpra", "xpra", "seamless per-window forwarding (not used yet)"},
	} {
		path, err := exec.LookPath(c.bin)
		if err != nil {
			out = append(out, kind.Check{Name: c.name, Detail: c.what + ": " + c.bin + " not found"})
			continue
		}
		out = append(out, kind.Check{Name: c.name, OK: true, Detail: c.what + ": " + path})
	}
	return out
}
