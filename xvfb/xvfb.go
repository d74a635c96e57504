package xvfb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// Server starts a desktop's X server in place of the plain Xvfb that Start
// runs by default. Package xpra's seamless server is one: it runs its own
// Xvfb and manages the windows on it. Whatever the server, the desktop's
// session bus, accessibility bus, applications and teardown are this
// package's.
type Server interface {
	// StartX starts the X server as a process of h and answers its
	// display (":N") once the server accepts connections and whatever
	// manages it is ready.
	StartX(ctx context.Context, h Host) (display string, err error)
}

// Host is a desktop as its Server sees it while it starts the X server.
type Host struct{ d *Desktop }

// Dir is the desktop's directory (0700): a server keeps its files under it.
func (h Host) Dir() string { return h.d.Dir }

// Xauthority is the desktop's Xauthority file, holding its cookie: the X
// server must be started with -auth on it.
func (h Host) Xauthority() string { return h.d.xauthPath() }

// Env is the environment of the desktop's processes (see Desktop.Env),
// with XAUTHORITY set: a clean one, never the caller's.
func (h Host) Env() []string { return append(h.d.Env(), "XAUTHORITY="+h.d.xauthPath()) }

// StartDisplayFD runs cmd as a process of the desktop (its environment
// when cmd.Env is nil, its marker, its own process group, its log; stopped
// by Close) with a pipe as its file descriptor 3, and answers the display
// number the server writes there when it accepts connections (Xvfb's
// -displayfd 3, xpra's --displayfd=3): the server picks a free display
// itself, so none is ever raced for. exited is closed when the process
// has exited.
func (h Host) StartDisplayFD(ctx context.Context, cmd *exec.Cmd, name string) (display string, exited <-chan struct{}, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w}
	p, err := h.d.start(cmd, name)
	if err != nil {
		w.Close()
		return "", nil, err
	}
	w.Close() // the child has its copy; EOF on r now means the server died
	h.d.mu.Lock()
	h.d.server = p
	h.d.mu.Unlock()

	line, err := ReadyLine(ctx, r, nil)
	if ctx.Err() != nil {
		return "", nil, fmt.Errorf("xvfb: %s not ready: %w", name, ctx.Err())
	}
	n, perr := strconv.Atoi(line)
	if err != nil || perr != nil {
		return "", nil, fmt.Errorf("xvfb: %s did not report a display (%q, %v); its log: %s", name, line, errors.Join(err, perr), h.d.logTail(name))
	}
	return ":" + strconv.Itoa(n), p.done, nil
}

// LogTail is the end of the log of the desktop's latest process of name.
func (h Host) LogTail(name string) string { return h.d.logTail(name) }

// plainXvfb is the default Server: Xvfb alone, with XTEST and MIT-SHM.
type plainXvfb struct{ width, height int }

func (s plainXvfb) StartX(ctx context.Context, h Host) (string, error) {
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return "", fmt.Errorf("xvfb: Xvfb: %w", err)
	}
	cmd := exec.Command(bin,
		"-displayfd", "3",
		"-auth", h.Xauthority(),
		"-screen", "0", fmt.Sprintf("%dx%dx24", s.width, s.height),
		"-nolisten", "tcp", "-noreset",
		"+extension", "XTEST", "+extension", "MIT-SHM",
	)
	disp, _, err := h.StartDisplayFD(ctx, cmd, "Xvfb")
	return disp, err
}

// startX starts the desktop's X server and admits our own uid to it.
func (d *Desktop) startX(ctx context.Context, s Server) error {
	if err := writeXauth(d.xauthPath()); err != nil {
		return err
	}
	disp, err := s.StartX(ctx, Host{d})
	if err != nil {
		return err
	}
	d.Display = disp
	return d.allowOwnUser(ctx)
}
