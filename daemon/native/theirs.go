package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xvfb"
)

// The user's own desktop. Its X11 road is the person's X server at their
// DISPLAY, reached with their Xauthority (never our environment's), and
// the accessibility bus of their session bus: the same display as ours
// (tree, XTEST, each window's own pixels, the live view) with three
// differences — we start nothing there, stop nothing there, and every
// top-level window is listed (kind.Lister) rather than only those of the
// processes we launched. The person's own keyboard and pointer are watched
// (person.go).

// DesktopName is the word of the user's own desktop.
const DesktopName = "desktop"

// a11yAddressBudget bounds asking the person's session bus for their
// accessibility bus.
const a11yAddressBudget = 3 * time.Second

type desktopProvider struct{ o Options }

// Desktop returns the road to the user's own desktop.
func Desktop(o Options) kind.DesktopProvider { return &desktopProvider{o: o} }

func (p *desktopProvider) Name() string { return DesktopName }

// Start is refused: a desktop is the person's, connected (Connect), never
// started by us.
func (p *desktopProvider) Start(context.Context) (kind.Display, error) {
	return nil, target.Refuse(target.CodeYourDesktop, "your desktop is yours: it is connected to (desktop on), never started by us")
}

// Reattach connects again to the desktop a record names, for a restarted
// daemon (the operator's setting stands).
func (p *desktopProvider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	var env kind.DesktopEnv
	if err := json.Unmarshal(rec, &env); err != nil {
		return nil, fmt.Errorf("the desktop's record: %w", err)
	}
	return p.Connect(ctx, env)
}

// Connect reaches the person's desktop: X11 where env has a DISPLAY.
func (p *desktopProvider) Connect(ctx context.Context, env kind.DesktopEnv) (kind.Display, error) {
	if env.Display == "" {
		if env.Wayland != "" {
			return connectWayland(ctx, env, p.o)
		}
		return nil, errors.New(noX11Road(env))
	}
	h := &theirs{env: env}
	if env.Bus != "" {
		actx, cancel := context.WithTimeout(ctx, a11yAddressBudget)
		h.a11y, h.a11yErr = atspi.A11yAddress(actx, env.Bus, a11yAddressBudget)
		cancel()
	} else {
		h.a11yErr = errors.New("your session bus is not known (DBUS_SESSION_BUS_ADDRESS was not set where desktop on ran)")
	}
	d, err := connect(ctx, h, nil, p.o)
	if err != nil {
		return nil, err
	}
	if h.a11yErr != nil && d.bus == nil {
		d.busErr = h.a11yErr
	}
	return &desktop{display: d}, nil
}

// noX11Road says why env has no X11 road.
func noX11Road(env kind.DesktopEnv) string {
	if env.Wayland != "" {
		return fmt.Sprintf("your session is Wayland (%s) with no X server (DISPLAY unset); the Wayland road goes through the desktop portal", env.Wayland)
	}
	return "neither DISPLAY nor WAYLAND_DISPLAY is set: this is not a terminal of a desktop session"
}

// Doctor says which programs the desktop roads use here.
func (p *desktopProvider) Doctor(context.Context) []kind.Check {
	var out []kind.Check
	for _, c := range []struct{ name, bin, what string }{
		{"portal", "/usr/libexec/xdg-desktop-portal", "the desktop portal (the Wayland road's input and pixels)"},
	} {
		path, err := exec.LookPath(c.bin)
		if err != nil {
			out = append(out, kind.Check{Name: c.name, Detail: c.what + ": " + c.bin + " not found"})
			continue
		}
		out = append(out, kind.Check{Name: c.name, OK: true, Detail: c.what + ": " + path})
	}
	return append(out, pixelsCheck())
}

// DoctorEnv says which road env offers: an X server that lets us in with
// the person's Xauthority (X11), else why not.
func (p *desktopProvider) DoctorEnv(ctx context.Context, env kind.DesktopEnv) []kind.Check {
	const name = "desktop road"
	if env.Display == "" && env.Wayland != "" {
		return doctorWayland(ctx, env, p.o)
	}
	if env.Display == "" {
		return []kind.Check{{Name: name, Detail: "X11: " + noX11Road(env)}}
	}
	h := &theirs{env: env}
	x, err := h.openX(ctx)
	if err != nil {
		return []kind.Check{{Name: name, Detail: fmt.Sprintf("X11: the X server at %s did not let us in with your Xauthority: %v", env.Display, err)}}
	}
	defer x.Close()
	w, hgt := x.ScreenSize()
	return []kind.Check{{Name: name, OK: true, Detail: fmt.Sprintf("X11: your X server at %s (%dx%d) lets us in with your Xauthority: the tree (AT-SPI on your session bus), XTEST and each window's pixels, once the operator opts in (desktop on)", env.Display, w, hgt)}}
}

// theirs is the person's own desktop as a display's host.
type theirs struct {
	env     kind.DesktopEnv
	a11y    string
	a11yErr error
}

func (h *theirs) display() string     { return h.env.Display }
func (h *theirs) a11yAddress() string { return h.a11y }
func (h *theirs) record() any         { return h.env }

func (h *theirs) openX(ctx context.Context) (*x11.Display, error) {
	return x11.OpenWith(ctx, h.env.Display, h.xopts())
}

// xopts authenticate as the person: with their Xauthority's cookie.
func (h *theirs) xopts() x11.Options { return x11.Options{Xauthority: h.env.Xauthority} }

func (h *theirs) launch(context.Context, ...string) (*xvfb.App, error) {
	return nil, target.Refuse(target.CodeYourDesktop, "nothing is started on your desktop by us")
}

// owns: no process of the person's desktop is ours to stop.
func (h *theirs) owns(int) bool { return false }

func (h *theirs) alive(ctx context.Context) error {
	x, err := h.openX(ctx)
	if err != nil {
		return err
	}
	return x.Close()
}

// close stops nothing: the desktop is the person's.
func (h *theirs) close() error       { return nil }
func (h *theirs) a11ySwitch() string { return "" }

// serverPID: the person's X server is not ours, nor its state ours to
// read: an act's wait on their desktop runs to its deadline.
func (h *theirs) serverPID() int { return 0 }
func (h *theirs) a11ySwitchesOff(ctx context.Context) ([]string, error) {
	if h.env.Bus == "" {
		return nil, h.a11yErr
	}
	return xvfb.A11ySwitchesOff(ctx, h.env.Bus)
}

// desktop is the person's own desktop as a display: every top-level window
// is listed; nothing is launched.
type desktop struct{ *display }

var (
	_ kind.Lister = (*desktop)(nil)
	_ kind.Roader = (*desktop)(nil)
)

// Launch is refused: nothing is started on the person's desktop by us.
func (d *desktop) Launch(context.Context, []string) (kind.Target, error) {
	return nil, target.Refuse(target.CodeYourDesktop, "nothing is started on your desktop by us: open applications on one of our own displays")
}

// AttachCommands: a person's desktop has no client to attach; they are at it.
func (d *desktop) AttachCommands(string) (string, []string, error) {
	return "", nil, target.Refuse(target.CodeNoAttach, "display %s is your own desktop: you see it already; watch a window of it in the live view", d.Name())
}

// Road names the X11 road and what of the person it observes.
func (d *desktop) Road() (string, string) {
	return "x11", "your own keyboard and pointer are watched (XInput 2 raw events from your devices, not ours): touching them pauses the agent on your windows until you hand back; another XTEST client (xdotool, a VNC server) looks like us and is not seen"
}

// Windows lists the person's top-level windows not among known: those
// their window manager manages (EWMH _NET_CLIENT_LIST, minimized ones
// too), else the mapped ones that are not popups (menus and tooltips
// belong to the window they pop from); bigger than 1×1, each with the
// process that made it.
func (d *desktop) Windows(ctx context.Context, known map[string]bool) ([]kind.Found, error) {
	ws, err := d.x.ClientList(ctx, func(id x11.WindowID) bool { return known[keyOf(id)] })
	if err != nil {
		return nil, err
	}
	var out []kind.Found
	for _, xw := range ws {
		if xw.Geometry.Width <= 1 || xw.Geometry.Height <= 1 {
			continue
		}
		w := d.window(xw.ID, xw.PID)
		w.set(xw)
		f := kind.Found{Target: w, Info: info(xw)}
		if xw.PID > 0 {
			f.App = program(xw.PID)
			f.Browser = browserOf(f.App)
		}
		out = append(out, f)
	}
	return out, nil
}

// firefoxNames are the base names of argv[0] that are a Firefox-family
// browser.
var firefoxNames = []string{"firefox", "firefox-esr", "firefox-bin", "librewolf"}

// browserOf names the web browser program app is (Chromium's family, not
// Electron; Firefox's), or "".
func browserOf(app string) string {
	switch {
	case slices.Contains(firefoxNames, app), strings.HasPrefix(app, "google-chrome"),
		app != "electron" && slices.Contains(chromiumNames, app):
		return app
	}
	return ""
}

// Doctor probes the person's desktop as our own display is probed, naming
// it theirs.
func (d *desktop) Doctor(ctx context.Context) []kind.Check {
	out := d.display.Doctor(ctx)
	if len(out) > 0 && out[0].Name == "display" {
		w, h := d.x.ScreenSize()
		out[0].Detail = fmt.Sprintf("your desktop %s, %dx%d (X11, your Xauthority)", d.Name(), w, h)
	}
	return out
}
