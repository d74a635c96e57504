package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
	"github.com/vibespace/vibespace/xvfb"
)

// display is an X display with its X and AT-SPI connections: our own
// (an Xvfb, or the one an Xpra server manages) or the user's own desktop
// (theirs.go).
type display struct {
	host        host
	xp          *xpra.Display // the Xpra server managing it; nil for a plain Xvfb
	x           *x11.Display
	bus         *atspi.Bus // nil when the accessibility bus did not answer
	busErr      error
	walkTimeout time.Duration
	xtest       bool   // the server offers XTEST (probed at attach)
	injectWhy   string // why not
	shm         bool   // the server offers MIT-SHM
	ownPixels   bool   // each window's pixels are kept in its own pixmap (Composite, at attach)
	ownWhy      string // why not

	mu     sync.Mutex
	pixels *x11.Display                  // the live view's own connection, opened on its first frames
	apps   map[int]*xvfb.App             // launched by this daemon, by PID
	frames map[x11.WindowID]atspi.Object // the AT-SPI frame of each X window, once found
	onBus  map[int]bool                  // PIDs seen registered on the accessibility bus
	// showing are the hidden windows being shown in the background
	// (xpra: seamless.go).
	showing map[x11.WindowID]bool
	person  *x11.InputWatch // the person's own input, watched on their desktop (person.go)

	reg  registryWatch                    // our desktop's AT-SPI registry, watched (registry.go)
	logf func(format string, args ...any) // progress lines (Options.Logf); never nil
}

var (
	_ kind.Display   = (*display)(nil)
	_ kind.Stacker   = (*display)(nil)
	_ kind.OwnPixels = (*display)(nil)
	_ kind.Attacher  = (*display)(nil)
	_ kind.Watched   = (*display)(nil)
)

// KeepsOwnPixels: a grab reads a window's own pixels, covered or not.
func (d *display) KeepsOwnPixels() bool { return d.ownPixels }

func (d *display) Record() json.RawMessage {
	b, _ := json.Marshal(d.host.record())
	return b
}

func (d *display) Name() string { return d.host.display() }

// probe says which roads exist for the app of pid. The tree road needs the
// accessibility bus and the app registered on it (pid 0 asks about the
// display only).
func (d *display) probe(ctx context.Context, pid int) target.Probe {
	p := target.Probe{Tree: d.bus != nil, TreeVia: "the AT-SPI tree", Capture: true, CaptureVia: "a grab of the window's own pixels (Composite), covered or not"}
	if !d.ownPixels {
		p.CaptureVia = "a grab of the window's pixels, raised first where another covers it (" + d.ownWhy + ")"
	}
	if d.xtest {
		p.Injection = "xtest"
	} else {
		p.InjectionWhy = d.injectWhy
	}
	switch {
	case d.bus == nil:
		p.TreeWhy = fmt.Sprintf("the accessibility bus did not answer: %v", d.busErr)
	case pid > 0 && !d.registered(ctx, pid):
		p.Tree = false
		p.TreeWhy = d.notOnBus(pid)
	}
	return p
}

// registryTimeout bounds asking the registry which applications it has.
const registryTimeout = 2 * time.Second

// registered reports whether the app of pid is on the accessibility bus.
// A yes is remembered (an app does not leave the bus while it runs); a no
// is asked again next time (it may register late). When the registry does
// not answer, the answer is yes: the walk then says what it could read,
// never a guess that the tree is absent.
func (d *display) registered(ctx context.Context, pid int) bool {
	d.mu.Lock()
	ok := d.onBus[pid]
	d.mu.Unlock()
	if ok {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	apps, err := d.bus.Applications(ctx)
	if err != nil {
		return true
	}
	for _, a := range apps {
		if a.PID == pid {
			d.mu.Lock()
			d.onBus[pid] = true
			d.mu.Unlock()
			return true
		}
	}
	return false
}

// Launch starts argv and answers its first mapped window, once the window
// is on the accessibility bus (bounded: an application without
// accessibility support is not an error, its snapshot says so). A Chromium
// or Electron app gets its accessibility switched on (a11y.go) and is
// waited for until its page is in the tree.
func (d *display) Launch(ctx context.Context, argv []string) (kind.Target, error) {
	plan := planLaunch(argv)
	app, err := d.host.launch(ctx, plan.argv...)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return nil, target.Refuse(target.CodeAppNotFound, "no application %s on this machine (not in PATH); nothing was started", target.Echo(argv[0])).With("app", target.Clip(argv[0]))
	case errors.Is(err, fs.ErrNotExist):
		return nil, target.Refuse(target.CodeAppNotFound, "no file %s; nothing was started", argv[0]).With("app", argv[0])
	case errors.Is(err, fs.ErrPermission):
		return nil, target.Refuse(target.CodeAppNotFound, "%s is not an executable program (permission denied); nothing was started", argv[0]).With("app", argv[0])
	case errors.Is(err, xvfb.ErrExited):
		return nil, target.Refuse(target.CodeAppExited, "%s exited before it showed a window: %v", argv[0], err).With("app", argv[0])
	case errors.Is(err, context.DeadlineExceeded):
		return nil, target.Refuse(target.CodeTimeout, "%s showed no window in time; it was stopped", argv[0]).Wrap(err)
	case err != nil:
		return nil, err
	}
	// The window's process is the app's own, or one it started (a
	// launcher that forks the program): that is the process the target
	// lives with.
	d.mu.Lock()
	d.apps[app.Window.PID] = app
	d.mu.Unlock()
	w := d.window(app.Window.ID, app.Window.PID)
	w.set(app.Window)
	w.waitFrame(ctx)
	plan.settle(ctx, w)
	return w, nil
}

// Window finds a window again by its key, as a restarted daemon does.
func (d *display) Window(ctx context.Context, key string, pid int) (kind.Target, error) {
	id, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	w := d.window(id, pid)
	if _, err := w.Info(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

func (d *display) window(id x11.WindowID, pid int) *window {
	return &window{d: d, id: id, pid: pid}
}

// keyOf is a window's key: its X id in hex ("0x600003").
func keyOf(id x11.WindowID) string { return fmt.Sprintf("0x%x", uint32(id)) }

func parseKey(key string) (x11.WindowID, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(key, "0x"), 16, 32)
	if err != nil || !strings.HasPrefix(key, "0x") {
		return 0, target.Refuse(target.CodeWindowGone, "%q names no window of an X display", key)
	}
	return x11.WindowID(n), nil
}

// alive reports whether pid runs (a zombie does not). A process of
// another user (a window of the person's desktop made by a root GUI) runs:
// signalling it is refused, it is not gone.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the ")" that ends the command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// stop ends an application: through its App when this daemon launched it,
// else by PID (an app an earlier daemon launched): SIGTERM, then SIGKILL.
func (d *display) stop(ctx context.Context, pid int) error {
	d.mu.Lock()
	app := d.apps[pid]
	delete(d.apps, pid)
	d.mu.Unlock()
	if app != nil {
		return app.Stop()
	}
	// A PID an earlier daemon recorded may since belong to someone else:
	// only a process that carries our desktop's marker is ours to end.
	if !d.host.owns(pid) {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return nil // already gone
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			if d.host.owns(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			break
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	return nil
}

// Stack lists the top-level windows, bottom first.
func (d *display) Stack(ctx context.Context) ([]kind.Info, error) {
	ws, err := d.x.Windows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]kind.Info, len(ws))
	for i, w := range ws {
		out[i] = info(w)
	}
	return out, nil
}

func info(w x11.Window) kind.Info {
	g := w.Geometry
	return kind.Info{Key: keyOf(w.ID), PID: w.PID, Title: w.Title, Bounds: target.Rect{X: g.X, Y: g.Y, W: g.Width, H: g.Height}, Viewable: w.Viewable}
}

// Doctor probes our display: its X server, XTEST, MIT-SHM and AT-SPI.
func (d *display) Doctor(ctx context.Context) []kind.Check {
	w, h := d.x.ScreenSize()
	out := []kind.Check{{Name: "display", OK: true, Detail: fmt.Sprintf("our Xvfb %s, %dx%d", d.Name(), w, h)}}
	if d.xp != nil {
		out[0].Detail = fmt.Sprintf("an xpra seamless display %s, %dx%d, %s", d.Name(), w, h, d.watchWords())
	}
	if d.xtest {
		out = append(out, kind.Check{Name: "XTEST", OK: true, Detail: "the server offers it: key and pointer injection (the keys and point roads)"})
	} else {
		out = append(out, kind.Check{Name: "XTEST", Detail: d.injectWhy + "; key, type without a tree road, click --at and scroll are refused no_injection_backend"})
	}
	if d.shm {
		out = append(out, kind.Check{Name: "MIT-SHM", OK: true, Detail: "the server offers it: window grabs through shared memory"})
	} else {
		out = append(out, kind.Check{Name: "MIT-SHM", Detail: "the server does not offer it: window grabs go through GetImage (slower)"})
	}
	out = append(out, d.a11yCheck(ctx))
	return append(out, d.switchCheck(ctx))
}

// Healthy checks that our X server and session bus answer, and on an Xpra
// display that xpra's socket does.
func (d *display) Healthy(ctx context.Context) error {
	if err := d.host.alive(ctx); err != nil {
		return err
	}
	if d.xp != nil {
		return d.xp.Alive(ctx) // its X server may outlive an xpra that died
	}
	return nil
}

// pixelsConn is the connection the live view's frames are read on: one of
// their own, so that a pane's steady captures and the agents' verbs do not
// queue behind each other on one connection.
func (d *display) pixelsConn(ctx context.Context) (*x11.Display, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pixels != nil {
		return d.pixels, nil
	}
	x, err := d.host.openX(ctx)
	if err != nil {
		return nil, target.Refuse(target.CodeNoCapture, "the live view cannot read the pixels of display %s: %v", d.Name(), err).Wrap(err)
	}
	d.pixels = x
	return x, nil
}

// Close closes our connections and stops what its host started (on our
// desktops: the desktop and every application on it, including those an
// earlier daemon launched, which carry its marker; on the person's own
// desktop: nothing).
func (d *display) Close() error {
	var errs []error
	d.unwatchRegistry()
	if d.bus != nil {
		errs = append(errs, d.bus.Close())
	}
	d.mu.Lock()
	px := d.pixels
	d.pixels = nil
	d.mu.Unlock()
	if px != nil {
		errs = append(errs, px.Close())
	}
	errs = append(errs, d.x.Close(), d.host.close())
	return errors.Join(errs...)
}
