package xvfb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/x11"
)

// App is an application launched into a Desktop.
type App struct {
	PID  int
	Argv []string
	// Window is its first mapped top-level window, when Launch returned.
	// Window.PID is the process that made it, as the X server says: PID
	// itself, or a process it started (a launcher that forks the real
	// program, or forks it and exits).
	Window x11.Window

	d *Desktop
	p *proc
}

// Shower is a Server that keeps a new window hidden until it is asked to
// show it (xpra's seamless server with no client attached: the window is
// mapped by its application but unviewable, its pixels black and input
// to it lost). Launch asks it to show the application's first window and
// waits until the window is viewable.
type Shower interface {
	Show(ctx context.Context, x *x11.Display, w x11.Window) error
}

// ErrExited is returned by Launch when the application exits before it maps
// a window.
var ErrExited = errors.New("xvfb: application exited before mapping a window")

// Launch starts argv on the desktop and returns once it shows a window: a
// mapped, viewable top-level window made by its process or by one it
// started (DescendsFrom). Which process made a window the X server says
// (x11.TopLevels), so a toolkit that sets no _NET_WM_PID (Tk, a plain X
// client) opens too. A launcher that forks the program and exits 0 is
// waited past while its process group lives. A program that is not found
// is an error wrapping exec.ErrNotFound, with nothing left running.
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
	d.logf("%s (pid %d) mapped window %s %q %v (made by pid %d)", argv[0], a.PID, w.ID, w.Title, w.Geometry, w.PID)
	return a, nil
}

// waitWindow polls the X server until a window of a's process tree is
// mapped, a (and, for a launcher that exited 0, its process group) has
// exited, or ctx ends. The answer's PID is the process that made it.
func (d *Desktop) waitWindow(ctx context.Context, a *App) (x11.Window, error) {
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		return x11.Window{}, err
	}
	defer disp.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	roots := map[int]bool{a.PID: true}
	ours := func(pid int) bool { return DescendsFrom(pid, roots) != 0 }
	exited := a.p.done
	shower, _ := d.opts.Server.(Shower)
	asked := map[x11.WindowID]bool{}
	for {
		ws, err := disp.WindowsOf(ctx, ours)
		if err == nil {
			for _, w := range ws {
				if w.Geometry.Width <= 1 || w.Geometry.Height <= 1 {
					continue
				}
				if w.Viewable {
					return w, nil
				}
				if shower != nil && !asked[w.ID] {
					// The server keeps it hidden until asked; the next
					// look sees it viewable. One it does not manage yet
					// (just mapped) is asked again on the next look.
					if err := shower.Show(ctx, disp, w); err != nil {
						d.logf("%s (pid %d): window %s not shown yet: %v", a.Argv[0], a.PID, w.ID, err)
					} else {
						asked[w.ID] = true
					}
				}
			}
		}
		if exited == nil && !groupAlive(a.PID) {
			return x11.Window{}, fmt.Errorf("%w: %s: it exited 0 and so did every process it started; its output: %s", ErrExited, a.Argv[0], d.logTail(a.p.name))
		}
		select {
		case <-exited:
			if a.p.err == nil && groupAlive(a.PID) {
				exited = nil // a launcher that started the program and left
				continue
			}
			return x11.Window{}, fmt.Errorf("%w: %s: %v; its output: %s", ErrExited, a.Argv[0], a.p.err, d.logTail(a.p.name))
		case <-ctx.Done():
			return x11.Window{}, fmt.Errorf("xvfb: %s (pid %d) mapped no window: %w", a.Argv[0], a.PID, ctx.Err())
		case <-tick.C:
		}
	}
}

// maxDepth bounds the walk up a chain of parents.
const maxDepth = 64

// DescendsFrom says which of roots process pid is, or descends from: the
// nearest by its chain of parents (/proc/<pid>/stat), else the root whose
// process group it is in — a process whose parent exited was adopted by
// init, but keeps the group its launcher gave it (Launch starts every
// program in a group of its own). 0 if none, or pid is not a live process.
func DescendsFrom(pid int, roots map[int]bool) int {
	ppid, group, ok := stat(pid)
	if !ok {
		return 0
	}
	if roots[pid] {
		return pid
	}
	for p, n := ppid, 1; p > 1 && n < maxDepth; n++ {
		if roots[p] {
			return p
		}
		if p, _, ok = stat(p); !ok {
			break
		}
	}
	if roots[group] {
		return group
	}
	return 0
}

// groupAlive reports whether a live process is in process group pgid.
func groupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, g, ok := stat(pid); ok && g == pgid {
			return true
		}
	}
	return false
}

// Stop ends the application: SIGTERM to its process group, SIGKILL after a
// grace period; it is reaped before Stop returns. A launcher that exited
// leaves its group to end the same way.
func (a *App) Stop() error {
	a.p.stop(3 * time.Second)
	select {
	case <-a.p.done:
	default:
		return fmt.Errorf("xvfb: pid %d did not exit", a.PID)
	}
	if !groupAlive(a.PID) {
		return nil
	}
	_ = syscall.Kill(-a.PID, syscall.SIGTERM)
	deadline := time.Now().Add(3 * time.Second)
	for groupAlive(a.PID) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-a.PID, syscall.SIGKILL)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
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
