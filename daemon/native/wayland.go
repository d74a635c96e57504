package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
)

// The Wayland road of the user's own desktop: a session with a
// WAYLAND_DISPLAY and no X server. Its tree is AT-SPI on the person's
// session bus, which does not depend on the compositor: every frame,
// dialog and window an application puts on the accessibility bus is a
// window of the desktop (kind.Lister), read and acted on through its nodes
// exactly as a window of an X display is (the tree half of window.go).
// Its input and its pixels go through the desktop portal (wayland_portal.go):
// RemoteDesktop for keys and pointer, ScreenCast for pixels over PipeWire,
// asked of the person through the portal's own dialog on the first verb
// that needs them. The person's own keyboard and pointer cannot be
// observed (the compositor keeps input private): no kind.PersonWatcher.

// waylandObserves is what the Wayland road says of the person's input.
const waylandObserves = "on Wayland the person's own keyboard and pointer cannot be observed by us (the compositor keeps input private); press Take over in the live view, or `vibespace-window takeover`"

// frameRoles are the roles of an application's children that are windows.
// Qt 5 on Wayland (qtwayland5, Qt 5.15) gives a top-level QWidget the role
// filler, where on X it is a frame (measured on GNOME Shell 43).
var frameRoles = []string{"frame", "dialog", "window", "alert", "file chooser", "color chooser", "font chooser", "filler"}

// listBudget bounds asking one application for its windows while listing.
const listBudget = 2 * time.Second

// wlDesktop is the person's Wayland desktop as a display.
type wlDesktop struct {
	env kind.DesktopEnv
	// a11y is the tree half of a display: the person's accessibility bus
	// and the frame table window.go's walk and node actions use. It has no
	// X connection: none of its X methods is ever called.
	a11y *display
	road *portalRoad

	mu    sync.Mutex
	slots map[string]x11.WindowID // each frame's slot in a11y's frame table, by key
	next  x11.WindowID
}

var (
	_ kind.Display = (*wlDesktop)(nil)
	_ kind.Lister  = (*wlDesktop)(nil)
	_ kind.Roader  = (*wlDesktop)(nil)

	_ kind.TokenWatcher = (*wlDesktop)(nil)
)

// connectWayland reaches the person's Wayland desktop: the accessibility
// bus their session bus names, and the portal on it (probed; its absence
// is the injection road's absence, said by every probe, not an error).
func connectWayland(ctx context.Context, env kind.DesktopEnv, o Options) (*wlDesktop, error) {
	if env.Bus == "" {
		return nil, errors.New("your session is Wayland (" + env.Wayland + ") and its session bus is not known (DBUS_SESSION_BUS_ADDRESS was not set where desktop on ran): the tree and the portal are both on it")
	}
	d := &wlDesktop{env: env, slots: map[string]x11.WindowID{}}
	d.a11y = &display{host: &theirs{env: env}, walkTimeout: o.WalkTimeout, apps: nil, frames: map[x11.WindowID]atspi.Object{}, onBus: map[int]bool{}}
	d.a11y.host.(*theirs).a11y, d.a11y.bus, d.a11y.busErr = personsA11y(ctx, env.Bus)
	d.road = dialPortal(ctx, env, o)
	return d, nil
}

func (d *wlDesktop) Name() string { return d.env.Wayland }

func (d *wlDesktop) Record() json.RawMessage {
	b, _ := json.Marshal(d.env)
	return b
}

// Road names the Wayland road and what of the person it observes.
func (d *wlDesktop) Road() (string, string) { return "wayland", waylandObserves }

// Launch is refused: nothing is started on the person's desktop by us.
func (d *wlDesktop) Launch(context.Context, []string) (kind.Target, error) {
	return nil, target.Refuse(target.CodeYourDesktop, "nothing is started on your desktop by us: open applications on one of our own displays")
}

// Window finds a window again by its key (an accessible frame's bus name
// and path), as a restarted daemon does.
func (d *wlDesktop) Window(ctx context.Context, key string, pid int) (kind.Target, error) {
	o, err := atspi.ParseKey(key)
	if err != nil {
		return nil, target.Refuse(target.CodeWindowGone, "%q names no window of a Wayland desktop", key)
	}
	w := d.window(atspi.Frame{Object: o}, pid)
	if _, err := w.Info(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// window is the target of frame f of the application of pid.
func (d *wlDesktop) window(f atspi.Frame, pid int) *wlWindow {
	key := f.Object.Key()
	d.mu.Lock()
	slot, ok := d.slots[key]
	if !ok {
		d.next++
		slot = d.next
		d.slots[key] = slot
	}
	d.mu.Unlock()
	a := d.a11y
	a.mu.Lock()
	a.frames[slot] = f.Object
	a.mu.Unlock()
	w := &wlWindow{d: d, frame: f.Object, pid: pid, t: a.window(slot, pid)}
	w.saw(frameInfo(f, pid))
	return w
}

// frameInfo is a frame's facts as a window's.
func frameInfo(f atspi.Frame, pid int) kind.Info {
	return kind.Info{Key: f.Object.Key(), Title: f.Name, PID: pid, Bounds: f.Extents, Viewable: f.Showing()}
}

// Windows lists the windows of every application on the accessibility bus
// not among known: its frames, dialogs and windows (its other top-level
// children are not windows), each with the application's process. An
// application that does not answer in time is left out of this listing.
func (d *wlDesktop) Windows(ctx context.Context, known map[string]bool) ([]kind.Found, error) {
	bus := d.a11y.bus
	if bus == nil {
		return nil, fmt.Errorf("the accessibility bus of your session did not answer: %v", d.a11y.busErr)
	}
	apps, err := bus.Applications(ctx)
	if err != nil {
		return nil, err
	}
	var out []kind.Found
	for _, app := range apps {
		actx, cancel := context.WithTimeout(ctx, listBudget)
		frames, err := bus.Frames(actx, app)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			continue
		}
		for _, f := range frames {
			if !slices.Contains(frameRoles, f.Role) || known[f.Object.Key()] {
				continue
			}
			w := d.window(f, app.PID)
			fd := kind.Found{Target: w, Info: frameInfo(f, app.PID)}
			if app.PID > 0 {
				fd.App = program(app.PID)
			}
			out = append(out, fd)
		}
	}
	return out, nil
}

// Doctor probes the person's Wayland desktop: the accessibility bus, the
// portal's versions and what it offers, restore tokens, pixels.
func (d *wlDesktop) Doctor(ctx context.Context) []kind.Check {
	out := []kind.Check{{Name: "display", OK: true, Detail: fmt.Sprintf("your desktop %s (Wayland): the tree by AT-SPI on your session bus, input and pixels by the desktop portal, asked of you in its dialog on the first verb that needs them", d.Name())}}
	out = append(out, d.a11y.a11yCheck(ctx))
	return append(out, d.road.checks()...)
}

// personsA11y finds the person's accessibility bus through their session
// bus and connects to it, bounded by a11yAddressBudget.
func personsA11y(ctx context.Context, sessionBus string) (addr string, bus *atspi.Bus, err error) {
	ctx, cancel := context.WithTimeout(ctx, a11yAddressBudget)
	defer cancel()
	if addr, err = atspi.A11yAddress(ctx, sessionBus, a11yAddressBudget); err != nil {
		return "", nil, err
	}
	bus, err = atspi.ConnectA11y(ctx, addr, atspi.Options{})
	return addr, bus, err
}

// checks are doctor's rows of the portal road.
func (r *portalRoad) checks() []kind.Check {
	if r.c == nil {
		return []kind.Check{
			{Name: "portal", Detail: r.why + "; key, type without a ref, click --at and scroll are refused no_injection_backend"},
			pixelsCheck(),
		}
	}
	i := r.info
	p := kind.Check{Name: "portal", OK: true, Detail: fmt.Sprintf("%s: RemoteDesktop v%d (devices %s), ScreenCast v%d (sources %s) on your session bus", r.compositor(), i.RemoteDesktop, i.Devices, i.ScreenCast, sources(i.Sources))}
	if i.ScreenCast == 0 {
		p.Detail = fmt.Sprintf("%s: RemoteDesktop v%d (devices %s) on your session bus, no ScreenCast", r.compositor(), i.RemoteDesktop, i.Devices)
	}
	if why := r.injectionWhy(); why != "" {
		p.OK, p.Detail = false, p.Detail+": "+why
	} else {
		r.mu.Lock()
		live := r.sess != nil
		r.mu.Unlock()
		switch {
		case live:
			p.Detail += ": a session the person granted is held"
		case r.screenCastWhy() != "":
			p.Detail += ": the first verb that needs input asks the portal for keyboard and pointer alone (KWin 5.27 asks the person nothing for that)"
		default:
			p.Detail += ": the first verb that needs input asks the person in the portal's dialog"
		}
	}
	if why := r.screenCastWhy(); why != "" {
		p.Detail += "; screenshots, the live view, click --at and scroll are refused: " + why
	} else if why := r.pointWhy(); why != "" {
		p.Detail += "; click --at and scroll are refused: " + why
	}
	t := kind.Check{Name: "restore tokens", OK: i.RemoteDesktop >= 2}
	switch {
	case i.RemoteDesktop < 2:
		t.Detail = fmt.Sprintf("not available: RemoteDesktop v%d has no persist_mode/restore_token (version 2, xdg-desktop-portal 1.17 or newer): the portal's dialog comes back for every new session", i.RemoteDesktop)
	case r.tokens == nil:
		t.OK, t.Detail = false, "the portal takes them (RemoteDesktop v2), but this daemon keeps none (no token file configured): the dialog comes back for every new session"
	default:
		t.Detail = "RemoteDesktop v2: the newest restore token is kept (0600, in the daemon's state, never shown), so a new session may start without the dialog"
	}
	return []kind.Check{p, t, pixelsCheck()}
}

// compositor names the compositor and the portal's backend for doctor:
// "KWin (its portal: xdg-desktop-portal-kde; XDG_CURRENT_DESKTOP KDE)".
func (r *portalRoad) compositor() string {
	var more []string
	if b := r.info.Shell.Backend; b != "" {
		more = append(more, "its portal: "+b)
	}
	if r.current != "" && r.info.Shell.Compositor != "" {
		more = append(more, "XDG_CURRENT_DESKTOP "+r.current)
	}
	if len(more) == 0 {
		return r.shell()
	}
	return r.shell() + " (" + strings.Join(more, "; ") + ")"
}

func pixelsCheck() kind.Check {
	if !capture.PipeWireBuiltIn {
		return kind.Check{Name: "pixels", Detail: noPixelsWhy}
	}
	return kind.Check{Name: "pixels", OK: true, Detail: "pixels over PipeWire are built in: a window stream of the portal's ScreenCast gives screenshots and the live view"}
}

// Healthy checks that the accessibility bus still answers.
func (d *wlDesktop) Healthy(ctx context.Context) error {
	if d.a11y.bus == nil {
		return nil
	}
	_, err := d.a11y.bus.Applications(ctx)
	return err
}

// Close ends our portal session and closes our bus connections; nothing of
// the person's stops.
func (d *wlDesktop) Close() error {
	var errs []error
	if d.a11y.bus != nil {
		errs = append(errs, d.a11y.bus.Close())
	}
	errs = append(errs, d.road.close())
	return errors.Join(errs...)
}

// doctorWayland says what the Wayland road offers for env, connecting
// nothing a person would notice: the portal's properties are read, no
// session is asked for.
func doctorWayland(ctx context.Context, env kind.DesktopEnv, o Options) []kind.Check {
	const name = "desktop road"
	if env.Bus == "" {
		return []kind.Check{{Name: name, Detail: "Wayland (" + env.Wayland + "): your session bus is not known (DBUS_SESSION_BUS_ADDRESS unset), and the tree and the portal are both on it"}}
	}
	out := []kind.Check{{Name: name, OK: true, Detail: "Wayland (" + env.Wayland + "): the tree by AT-SPI on your session bus, input and pixels by the desktop portal, once the operator opts in (desktop on)"}}
	r := dialPortal(ctx, env, o)
	defer r.close()
	a := &display{}
	_, a.bus, a.busErr = personsA11y(ctx, env.Bus)
	if a.bus != nil {
		defer a.bus.Close()
	}
	out = append(out, a.a11yCheck(ctx))
	return append(out, r.checks()...)
}

// OnToken: heard is told each use of the portal's restore token.
func (d *wlDesktop) OnToken(heard func(ctx context.Context, event string)) {
	d.road.mu.Lock()
	d.road.heard = heard
	d.road.mu.Unlock()
}
