// Package portaltest runs what the portal package's tests (and other
// packages' tests) talk to: a private dbus-daemon, a Go fake of
// xdg-desktop-portal's frontend (Fake), a Go fake of a portal backend
// (Backend) and Debian's real frontend in front of it (Frontend). The fakes
// speak the real wire protocol: the interface, method and signal names and
// signatures are the upstream ones.
package portaltest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/xvfb"
)

// IntegrationEnv makes a missing program a failure rather than a skip.
const IntegrationEnv = "VIBESPACE_INTEGRATION"

// Need skips t when a program is missing, or fails it under
// VIBESPACE_INTEGRATION=1.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	var miss []string
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			miss = append(miss, p+" not found")
		}
	}
	if len(miss) == 0 {
		return
	}
	msg := "portal test needs: " + strings.Join(miss, "; ")
	if os.Getenv(IntegrationEnv) == "1" {
		t.Fatalf("%s — %s=1, so this is a failure, not a skip", msg, IntegrationEnv)
	}
	t.Skipf("SKIP: %s", msg)
}

// Bus is a private dbus-daemon.
type Bus struct {
	Addr string // its address, "unix:path=…"
	Dir  string // a private directory the bus's socket lives in
	cmd  *exec.Cmd
	wait chan error
	once sync.Once
}

// PID is the daemon's process id.
func (b *Bus) PID() int { return b.cmd.Process.Pid }

// NewBus starts a private dbus-daemon for t and reaps it (by PID) when t
// ends.
func NewBus(t testing.TB) *Bus {
	t.Helper()
	Need(t, "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := StartBus(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("portaltest: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// StartBus starts a private dbus-daemon with its socket and config in dir.
func StartBus(ctx context.Context, dir string) (*Bus, error) {
	svc := filepath.Join(dir, "services")
	if err := os.MkdirAll(svc, 0o700); err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "bus")
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(xvfb.BusConfig(sock, svc)), 0o600); err != nil {
		return nil, err
	}
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return nil, fmt.Errorf("portaltest: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command(bin, "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("portaltest: dbus-daemon: %w", err)
	}
	w.Close()
	b := &Bus{Dir: dir, cmd: cmd, wait: make(chan error, 1)}
	go func() { b.wait <- cmd.Wait() }()
	addr, err := xvfb.ReadyLine(ctx, r, nil)
	switch {
	case ctx.Err() != nil:
		b.Close()
		return nil, fmt.Errorf("portaltest: dbus-daemon not ready: %w", ctx.Err())
	case err != nil:
		b.Close()
		return nil, fmt.Errorf("portaltest: dbus-daemon printed no address")
	}
	b.Addr = addr
	return b, nil
}

// Close kills the daemon by its PID and reaps it.
func (b *Bus) Close() { b.once.Do(func() { reap(b.cmd.Process, b.wait) }) }

// reap ends a child by its PID: SIGTERM, then SIGKILL after 5 s, and waits.
func reap(p *os.Process, wait <-chan error) {
	_ = p.Signal(syscall.SIGTERM)
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-wait:
	case <-t.C:
		_ = p.Kill()
		<-wait
	}
}
