package xvfb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/x11"
)

// App is an application launched into a Desktop.
type App struct {
	PID    int
	Argv   []string
	Window x11.Window // its first mapped top-level window, when Launch returned

	d *Desktop
	p *proc
}

// ErrExited is returned by Launch when the application exits before it maps
// a window.
var ErrExited = errors.New("xvfb: application exited before mapping a window")

// Launch starts argv on the desktop and returns once a mapped top-level
// window with _NET_WM_PID equal to its PID exists. A program that is not
// found is an error wrapping exec.ErrNotFound, with nothing left running.
func (d *Desktop) Launch(ctx context.Context, argv ...string) (*App, error) {
	if len(argv) == 0 {
		return nil, errors.New("xvfb: Launch needs a program")
	}
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("xvfb: %s: %w", argv[0], err)
	}
	cmd := exec.Command(bin, argv[1:]...)
	p, err := d.start(cmd, filepath.Base(argv[0]))
	if err != nil {
		return nil, err
	}
	a := &App{PID: cmd.Process.Pid, Argv: argv, d: d, p: p}
	d.mu.Lock()
	d.apps = append(d.apps, a)
	d.mu.Unlock()

	w, err := d.waitWindow(ctx, a)
	if err != nil {
		a.Stop()
		return nil, err
	}
	a.Window = w
	d.logf("%s (pid %d) mapped window %s %q %v", argv[0], a.PID, w.ID, w.Title, w.Geometry)
	return a, nil
}

// waitWindow polls the X server until a's window is mapped, a exits, or ctx
// ends.
func (d *Desktop) waitWindow(ctx context.Context, a *App) (x11.Window, error) {
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		return x11.Window{}, err
	}
	defer disp.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ws, err := disp.WindowsOfPID(ctx, a.PID)
		if err == nil {
			for _, w := range ws {
				if w.Viewable && w.Geometry.Width > 1 && w.Geometry.Height > 1 {
					return w, nil
				}
			}
		}
		select {
		case <-a.p.done:
			return x11.Window{}, fmt.Errorf("%w: %s: %v; its output: %s", ErrExited, a.Argv[0], a.p.err, d.logTail(a.p.name))
		case <-ctx.Done():
			return x11.Window{}, fmt.Errorf("xvfb: %s (pid %d) mapped no window: %w", a.Argv[0], a.PID, ctx.Err())
		case <-tick.C:
		}
	}
}

// Stop ends the application: SIGTERM to its process group, SIGKILL after a
// grace period; it is reaped before Stop returns.
func (a *App) Stop() error {
	a.p.stop(3 * time.Second)
	select {
	case <-a.p.done:
		return nil
	default:
		return fmt.Errorf("xvfb: pid %d did not exit", a.PID)
	}
}

// Signal sends sig to the application's process (SIGSTOP freezes it).
func (a *App) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("xvfb: unsupported signal %v", sig)
	}
	return syscall.Kill(a.PID, s)
}

// Exited is closed when the application has exited and been reaped.
func (a *App) Exited() <-chan struct{} { return a.p.done }

// Desktop is the desktop the application runs on.
func (a *App) Desktop() *Desktop { return a.d }
