package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
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
	// The Wayland road of the user's desktop (wayland.go). TokenPath is
	// the file its portal restore token is kept in (0600; "" keeps none;
	// each use of it is heard through kind.TokenWatcher); ConsentTimeout
	// bounds the wait for the person's answer to the portal's dialog
	// beyond the verb's own deadline (the portal package's default when
	// zero).
	TokenPath      string
	ConsentTimeout time.Duration
	// Owner marks every process of the displays this provider starts
	// (xvfb.Options.Owner), so Sweep finds those a daemon lost its
	// records of; "" marks none and sweeps none.
	Owner string
	// BusCalls, when set, counts the D-Bus calls made on the displays'
	// accessibility buses (atspi.Options.Calls): a test's budget of calls
	// per verb.
	BusCalls *atomic.Uint64
}

// ProviderName is the word that picks our own Xvfb display; XpraName picks
// a seamless Xpra display of the session's own.
const (
	ProviderName = "xvfb"
	XpraName     = "xpra"
)

type provider struct {
	o        Options
	seamless bool // Xpra displays, one per session
}

// Xvfb returns the provider of our own Xvfb displays.
func Xvfb(o Options) kind.DisplayProvider { return &provider{o: o} }

// Xpra returns the provider of seamless Xpra displays (package xpra), one
// per session: a person who attaches Xpra's own client sees every window of
// the display, so a display shows one session's windows only.
func Xpra(o Options) kind.DisplayProvider { return &provider{o: o, seamless: true} }

func (p *provider) Name() string {
	if p.seamless {
		return XpraName
	}
	return ProviderName
}

// PerSession: an Xpra display is a session's own.
func (p *provider) PerSession() bool { return p.seamless }

func (p *provider) xpraOptions() xpra.Options {
	return xpra.Options{Width: p.o.Width, Height: p.o.Height, Logf: p.o.Logf, Detach: true, Owner: p.o.Owner}
}

func (p *provider) desktopOptions() xvfb.Options {
	return xvfb.Options{Width: p.o.Width, Height: p.o.Height, Logf: p.o.Logf, Detach: true, Owner: p.o.Owner}
}

// Sweep stops the displays of this provider's kind marked with its owner
// that the daemon has no records of (kind.Sweeper). Our Xvfb and Xpra
// displays are both xvfb desktops underneath: the Xvfb provider sweeps
// them all, the Xpra provider none (it would sweep the same).
func (p *provider) Sweep(ctx context.Context) ([]string, error) {
	if p.seamless {
		return nil, nil
	}
	return xvfb.Sweep(p.o.Owner)
}

// Start brings up a new desktop, detached from the daemon's life.
func (p *provider) Start(ctx context.Context) (kind.Display, error) {
	if p.seamless {
		xd, err := xpra.Start(ctx, p.xpraOptions())
		if err != nil {
			return nil, fmt.Errorf("start an xpra display: %w", err)
		}
		return p.attach(ctx, ours{xd.Desktop}, xd)
	}
	desk, err := xvfb.Start(ctx, p.desktopOptions())
	if err != nil {
		return nil, fmt.Errorf("start our display: %w", err)
	}
	return p.attach(ctx, ours{desk}, nil)
}

// Reattach adopts the desktop an earlier daemon started.
func (p *provider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	var st xvfb.State
	if err := json.Unmarshal(rec, &st); err != nil {
		return nil, fmt.Errorf("display record: %w", err)
	}
	if p.seamless {
		xd, err := xpra.Adopt(ctx, st, p.xpraOptions())
		if err != nil {
			return nil, err
		}
		return p.attach(ctx, ours{xd.Desktop}, xd)
	}
	desk, err := xvfb.Adopt(ctx, st, p.desktopOptions())
	if err != nil {
		return nil, err
	}
	return p.attach(ctx, ours{desk}, nil)
}

// attach connects to a desktop that runs (xp: the Xpra server managing it,
// or nil); on error the desktop is stopped.
func (p *provider) attach(ctx context.Context, h host, xp *xpra.Display) (*display, error) {
	d, err := connect(ctx, h, xp, p.o)
	if err != nil {
		h.close()
		return nil, err
	}
	return d, nil
}

// connect opens our connections to the X display and accessibility bus of
// h: the X server's XTEST and MIT-SHM are probed, and each window's own
// pixels kept (Composite) while the connection lives.
func connect(ctx context.Context, h host, xp *xpra.Display, o Options) (*display, error) {
	x, err := h.openX(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to the display %s: %w", h.display(), err)
	}
	d := &display{host: h, xp: xp, x: x, walkTimeout: o.WalkTimeout, apps: make(map[int]*xvfb.App), frames: make(map[x11.WindowID]atspi.Object), onBus: make(map[int]bool), showing: make(map[x11.WindowID]bool)}
	ext, err := x.Extensions(ctx, "XTEST", "MIT-SHM")
	switch {
	case err != nil:
		d.injectWhy = "could not ask the X server for XTEST: " + err.Error()
	case !ext["XTEST"]:
		d.injectWhy = "the X server of " + h.display() + " does not offer the XTEST extension"
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
	bus, err := atspi.ConnectA11y(ctx, h.a11yAddress(), atspi.Options{Calls: o.BusCalls})
	if err != nil {
		d.busErr = err
	} else {
		d.bus = bus
	}
	d.logf = o.Logf
	if d.logf == nil {
		d.logf = func(string, ...any) {}
	}
	if _, mine := h.(ours); mine && d.bus != nil {
		// What an action changes anywhere in a window is told by its
		// application's object events, asked for once here (changes.go).
		// Only on our own displays: a listener on the person's own
		// registry would have every application of their desktop send
		// events for as long as the daemon runs (their windows are
		// looked at instead).
		if err := d.bus.WatchChanges(ctx); err != nil {
			d.logf("the accessibility bus's object events are not watched: effects are looked for instead: %v", err)
		}
	}
	d.watchRegistry(ctx) // started again when it dies (registry.go)
	return d, nil
}

// Doctor probes the binaries our display needs.
func (p *provider) Doctor(ctx context.Context) []kind.Check {
	if p.seamless {
		return xpraDoctor(ctx)
	}
	var out []kind.Check
	for _, c := range []struct{ name, bin, what string }{
		{"Xvfb", "Xvfb", "our private display"},
		{"dbus-daemon", "dbus-daemon", "the private session bus"},
		{"at-spi-bus-launcher", "/usr/libexec/at-spi-bus-launcher", "the accessibility bus"},
		{"at-spi2-registryd", "/usr/libexec/at-spi2-registryd", "the accessibility registry"},
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

// xpraDoctor says whether this machine can run Xpra displays, and so the
// desktop-app browser rung (a headed Chromium on one).
func xpraDoctor(ctx context.Context) []kind.Check {
	v, err := xpra.Version(ctx)
	if err != nil {
		return []kind.Check{{Name: "xpra", Detail: "seamless per-window displays (open --display xpra) and the desktop-app browser rung are unavailable: " + err.Error()}}
	}
	out := []kind.Check{{Name: "xpra", OK: true, Detail: fmt.Sprintf("xpra %s: seamless per-window displays, one per session (open --display xpra; watch --xpra win:N prints how a person attaches)", v)}}
	if path, err := exec.LookPath("chromium"); err != nil {
		out = append(out, kind.Check{Name: "desktop-app", Detail: "the desktop-app browser rung needs chromium: not found"})
	} else {
		out = append(out, kind.Check{Name: "desktop-app", OK: true, Detail: "the desktop-app browser rung is usable: a headed " + path + " on the session's xpra display, driven as a window"})
	}
	return out
}
