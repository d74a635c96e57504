package xvfb

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A desktop's X server (or the server that manages it: xpra) is watched
// for its end, so that whoever uses the desktop hears at once that it died
// and how, instead of finding out from a call that fails. A server this
// process started is its child: its end and its wait status come from
// Wait. A server an earlier process started (Adopt) is watched through a
// pidfd, which says that it ended but not how.

// ServerEnd is how the desktop's server process ended.
type ServerEnd struct {
	Name string    // its program: "Xvfb", "xpra"
	PID  int       // its PID
	At   time.Time // when it ended (when this process saw it end)
	// How says how it ended, for a person: "killed by signal 9
	// (SIGKILL)", "exited with status 1", or that it is not known.
	How string
}

// ServerGone is closed when the desktop's server process has ended. It is
// nil (never closed) when that process is not known: a desktop adopted
// from a record that did not name it.
func (d *Desktop) ServerGone() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.server == nil {
		return nil
	}
	return d.server.done
}

// ServerEnd says how the desktop's server ended; ok is false while it
// runs, or when it is not known.
func (d *Desktop) ServerEnd() (end ServerEnd, ok bool) {
	d.mu.Lock()
	p := d.server
	d.mu.Unlock()
	if p == nil {
		return ServerEnd{}, false
	}
	select {
	case <-p.done:
	default:
		return ServerEnd{}, false
	}
	return ServerEnd{Name: p.name, PID: p.pid, At: p.at, How: how(p)}, true
}

// how says in words how p ended.
func how(p *proc) string {
	if p.cmd == nil {
		return "its end was seen, not how it ended (an earlier daemon started it)"
	}
	var ee *exec.ExitError
	if !errors.As(p.err, &ee) {
		if p.err == nil {
			return "exited with status 0"
		}
		return p.err.Error()
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled():
		return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), unix.SignalName(ws.Signal()))
	case ok && ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	}
	return ee.Error()
}

// watchServer watches the server process pid of an adopted desktop, if it
// runs and carries the desktop's marker (a PID reused by another process
// is never taken for ours).
func (d *Desktop) watchServer(name string, pid int) {
	if pid <= 0 || !hasMarker(pid, d.ID) || !alive(pid) {
		return
	}
	p, err := watchPID(name, pid)
	if err != nil {
		d.logf("cannot watch %s (pid %d) for its end: %v", name, pid, err)
		return
	}
	d.mu.Lock()
	d.server = p
	d.mu.Unlock()
}

// watchPID watches a process that is not our child through a pidfd: done
// is closed when it ends (or when unwatch is called: then at is zero and
// nobody asks).
func watchPID(name string, pid int) (*proc, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("pidfd_open: %w", err)
	}
	var stop [2]int
	if err := unix.Pipe2(stop[:], unix.O_CLOEXEC); err != nil {
		unix.Close(fd)
		return nil, err
	}
	p := &proc{name: name, pid: pid, done: make(chan struct{})}
	stopped := make(chan struct{})
	p.unwatch = func() {
		select {
		case <-stopped:
		default:
			close(stopped)
			unix.Close(stop[1]) // wakes the poll: its read end hangs up
		}
	}
	go func() {
		defer unix.Close(fd)
		defer unix.Close(stop[0])
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stop[0]), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			break
		}
		select {
		case <-stopped:
			return // unwatched: the desktop is being closed on purpose
		default:
		}
		p.at = time.Now()
		close(p.done)
	}()
	return p, nil
}

// serverNames are the programs that serve a desktop's display: an xpra
// managing its own Xvfb, or a plain Xvfb.
var serverNames = []string{"xpra", "Xvfb"}

// findServer finds the server process of desktop id among its processes,
// for a record that did not name it: the xpra if one runs (its Xvfb is
// its child), else the Xvfb. 0 when neither runs.
func findServer(id string) (name string, pid int) {
	pids := MarkedPIDs(id)
	for _, want := range serverNames {
		for _, p := range pids {
			if ProcName(p) == want && (want != "xpra" || isXpraStart(p)) {
				return want, p
			}
		}
	}
	return "", 0
}

// isXpraStart reports whether pid is `xpra start` (not one of the short
// `xpra control` or `xpra info` runs beside it).
func isXpraStart(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	args := strings.Split(string(b), "\x00")
	return slices.Contains(args, "start")
}

// ServerPID is the process of the X server, or of what manages it (an
// Xpra server, whose children run it): 0 until known.
func (d *Desktop) ServerPID() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.server == nil {
		return 0
	}
	return d.server.pid
}
