package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// display is our testenv desktop with its X and AT-SPI connections.
type display struct {
	desk        *testenv.Desktop
	x           *x11.Display
	bus         *atspi.Bus // nil when the accessibility bus did not answer
	busErr      error
	walkTimeout time.Duration
	xtest       bool   // the server offers XTEST (probed at attach)
	injectWhy   string // why not
	shm         bool   // the server offers MIT-SHM

	mu     sync.Mutex
	apps   map[int]*testenv.App    // launched by this daemon, by PID
	frames map[uint32]atspi.Object // the AT-SPI frame of each X window, once found
	onBus  map[int]bool            // PIDs seen registered on the accessibility bus
}

func (d *display) Record() json.RawMessage {
	b, _ := json.Marshal(d.desk.State())
	return b
}

func (d *display) Name() string { return d.desk.Display }

// Probe says which roads exist for the app of pid. The tree road needs the
// accessibility bus and the app registered on it (pid 0 asks about the
// display only).
func (d *display) Probe(ctx context.Context, pid int) target.Probe {
	p := target.Probe{Tree: d.bus != nil, Capture: true}
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
		p.TreeWhy = fmt.Sprintf("the application (pid %d) is not on the accessibility bus: it exposes no tree", pid)
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

func (d *display) Launch(ctx context.Context, argv []string) (daemon.Window, error) {
	app, err := d.desk.Launch(ctx, argv...)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return daemon.Window{}, target.Refuse(target.CodeAppNotFound, "no application %q on this machine (not in PATH); nothing was started", argv[0]).With("app", argv[0])
	case errors.Is(err, fs.ErrNotExist):
		return daemon.Window{}, target.Refuse(target.CodeAppNotFound, "no file %s; nothing was started", argv[0]).With("app", argv[0])
	case errors.Is(err, fs.ErrPermission):
		return daemon.Window{}, target.Refuse(target.CodeAppNotFound, "%s is not an executable program (permission denied); nothing was started", argv[0]).With("app", argv[0])
	case errors.Is(err, testenv.ErrExited):
		return daemon.Window{}, target.Refuse(target.CodeAppExited, "%s exited before it showed a window: %v", argv[0], err).With("app", argv[0])
	case errors.Is(err, context.DeadlineExceeded):
		return daemon.Window{}, target.Refuse(target.CodeTimeout, "%s showed no window in time; it was stopped", argv[0]).Wrap(err)
	case err != nil:
		return daemon.Window{}, err
	}
	d.mu.Lock()
	d.apps[app.PID] = app
	d.mu.Unlock()
	w := window(app.Window)
	d.waitFrame(ctx, w)
	return w, nil
}

// frameWait bounds how long Launch waits for an application's window to
// appear on the accessibility bus.
const frameWait = 10 * time.Second

// waitFrame waits (bounded) until the window's frame is on the
// accessibility bus, so that the first snapshot after open reads a whole
// tree. An application that never registers (no accessibility support) is
// not an error: its snapshot will say so.
func (d *display) waitFrame(ctx context.Context, w daemon.Window) {
	if d.bus == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, frameWait)
	defer cancel()
	t := tree{d}
	for {
		if _, err := t.frame(ctx, w); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func window(w x11.Window) daemon.Window {
	g := w.Geometry
	return daemon.Window{XID: uint32(w.ID), PID: w.PID, Title: w.Title, Bounds: target.Rect{X: g.X, Y: g.Y, W: g.Width, H: g.Height}, Viewable: w.Viewable}
}

func (d *display) Window(ctx context.Context, xid uint32) (daemon.Window, error) {
	w, err := d.x.Window(ctx, x11.WindowID(xid))
	if err != nil {
		return daemon.Window{}, err
	}
	return window(w), nil
}

// Alive reports whether pid runs (a zombie does not).
func (d *display) Alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
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

// Stop ends an application: through its App when this daemon launched it,
// else by PID (an app an earlier daemon launched): SIGTERM, then SIGKILL.
func (d *display) Stop(ctx context.Context, pid int) error {
	d.mu.Lock()
	app := d.apps[pid]
	delete(d.apps, pid)
	d.mu.Unlock()
	if app != nil {
		return app.Stop()
	}
	// A PID an earlier daemon recorded may since belong to someone else:
	// only a process that carries our desktop's marker is ours to end.
	if !d.desk.Owns(pid) {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return nil // already gone
	}
	deadline := time.Now().Add(3 * time.Second)
	for d.Alive(pid) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			if d.desk.Owns(pid) {
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

// Raise raises the window and gives it the focus (x11's Focus does both).
func (d *display) Raise(ctx context.Context, w daemon.Window) error {
	return d.x.Focus(ctx, x11.WindowID(w.XID))
}

// Stack lists the top-level windows, bottom first.
func (d *display) Stack(ctx context.Context) ([]daemon.Window, error) {
	ws, err := d.x.Windows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]daemon.Window, len(ws))
	for i, w := range ws {
		out[i] = window(w)
	}
	return out, nil
}

func (d *display) Tree() daemon.TreeReader {
	if d.bus == nil {
		return nil
	}
	return tree{d}
}

func (d *display) Input() daemon.Injector {
	if !d.xtest {
		return nil
	}
	return injector{d.x}
}

func (d *display) Capture() daemon.Capturer { return capturer{d.x} }

// Doctor probes our display: its X server, XTEST, MIT-SHM and AT-SPI.
func (d *display) Doctor(ctx context.Context) []daemon.Check {
	w, h := d.x.ScreenSize()
	out := []daemon.Check{{Name: "display", OK: true, Detail: fmt.Sprintf("our Xvfb %s, %dx%d", d.desk.Display, w, h)}}
	if d.xtest {
		out = append(out, daemon.Check{Name: "XTEST", OK: true, Detail: "the server offers it: key and pointer injection (the keys and point roads)"})
	} else {
		out = append(out, daemon.Check{Name: "XTEST", Detail: d.injectWhy + "; key, type without a tree road, click --at and scroll are refused no_injection_backend"})
	}
	if d.shm {
		out = append(out, daemon.Check{Name: "MIT-SHM", OK: true, Detail: "the server offers it: window grabs through shared memory"})
	} else {
		out = append(out, daemon.Check{Name: "MIT-SHM", Detail: "the server does not offer it: window grabs go through GetImage (slower)"})
	}
	if d.bus == nil {
		out = append(out, daemon.Check{Name: "AT-SPI", Detail: fmt.Sprintf("the accessibility bus did not answer: %v", d.busErr)})
	} else if apps, err := d.bus.Applications(ctx); err != nil {
		out = append(out, daemon.Check{Name: "AT-SPI", Detail: "the registry did not answer: " + err.Error()})
	} else {
		out = append(out, daemon.Check{Name: "AT-SPI", OK: true, Detail: fmt.Sprintf("bus %s, %d applications registered", d.desk.A11yAddress, len(apps))})
	}
	return out
}

// Healthy checks that our X server and session bus answer.
func (d *display) Healthy(ctx context.Context) error { return d.desk.Alive(ctx) }

// Close stops the desktop and everything on it (including applications an
// earlier daemon launched: they carry the desktop's marker).
func (d *display) Close() error {
	var errs []error
	if d.bus != nil {
		errs = append(errs, d.bus.Close())
	}
	errs = append(errs, d.x.Close(), d.desk.Close())
	return errors.Join(errs...)
}
