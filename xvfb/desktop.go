package xvfb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure Start.
type Options struct {
	// Width and Height of the screen; default 1920×1080.
	Width, Height int
	// Logf, if set, receives progress lines.
	Logf func(format string, args ...any)
	// Detach lets the processes outlive the calling process (a daemon that
	// is killed must find its display still running on restart). By default
	// every child is killed when the process that started it dies.
	Detach bool
	// Dir is the parent of the desktop's temp dir; default os.TempDir().
	Dir string
	// Server starts the X server; nil is a plain Xvfb of Width × Height.
	Server Server
	// Owner, when set, is carried by every process of the desktop as
	// VIBESPACE_OWNER: who started it (a daemon names its state
	// directory's digest), so Sweep can find the desktops an owner that
	// lost its records left running.
	Owner string
	// XOnly starts the X server alone: no session bus, no AT-SPI bus nor
	// registry. A display only a browser's windows show on, read as
	// pixels and never walked, needs none of them.
	XOnly bool
}

// Desktop is a private X display with its own session bus and AT-SPI bus.
type Desktop struct {
	Display     string // ":N"
	BusAddress  string // the private session bus
	A11yAddress string // the AT-SPI bus
	// A11ySwitch says whether org.a11y.Status's switches are on, for the
	// toolkits that wait to be asked (Qt, Chromium): "on (…)" or why not.
	A11ySwitch string
	Dir        string // everything of this desktop lives under it
	RuntimeDir string // XDG_RUNTIME_DIR
	ConfigDir  string // XDG_CONFIG_HOME
	ID         string // the VIBESPACE_TESTENV marker value

	opts Options

	mu     sync.Mutex
	procs  []*proc // started by us, in start order
	apps   []*App
	closed bool
	// server is the process of the X server, or of what manages it
	// (xpra): watched for its end (server.go). nil until known.
	server *proc
}

// proc is a child process we started and will reap.
type proc struct {
	name string
	cmd  *exec.Cmd     // nil for a process an earlier daemon started (watched by pidfd: server.go)
	pid  int           // its PID
	done chan struct{} // closed when Wait returned
	err  error         // Wait's result, valid after done
	at   time.Time     // when it ended, valid after done
	log  string        // path of its stdout+stderr
	// unwatch stops watching a process we did not start (server.go).
	unwatch func()
}

// Start brings up a desktop: Xvfb, the session bus, the AT-SPI bus and
// registry (Xvfb alone with Options.XOnly). On error everything already
// started is torn down.
func Start(ctx context.Context, o Options) (*Desktop, error) {
	if o.Width == 0 {
		o.Width = 1920
	}
	if o.Height == 0 {
		o.Height = 1080
	}
	var idb [6]byte
	_, _ = rand.Read(idb[:])
	id := hex.EncodeToString(idb[:])
	dir, err := os.MkdirTemp(o.Dir, "vibespace-testenv-"+id+"-")
	if err != nil {
		return nil, err
	}
	d := &Desktop{Dir: dir, ID: id, opts: o}
	d.RuntimeDir = filepath.Join(dir, "run")
	d.ConfigDir = filepath.Join(dir, "config")
	for _, sub := range []string{"run", "config", "cache", "data", "home", "logs", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	t0 := time.Now()
	srv := o.Server
	if srv == nil {
		srv = plainXvfb{o.Width, o.Height}
	}
	if err := d.startX(ctx, srv); err != nil {
		d.Close()
		return nil, err
	}
	if o.XOnly {
		d.logf("desktop %s up in %v: display %s, X alone", id, time.Since(t0).Round(time.Millisecond), d.Display)
		return d, nil
	}
	if err := d.startBus(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.startA11y(ctx); err != nil {
		d.Close()
		return nil, err
	}
	d.logf("desktop %s up in %v: display %s, bus %s", id, time.Since(t0).Round(time.Millisecond), d.Display, d.BusAddress)
	return d, nil
}

func (d *Desktop) logf(format string, args ...any) {
	if d.opts.Logf != nil {
		d.opts.Logf("xvfb: "+format, args...)
	}
}

// Env is the environment for a process of this desktop: a clean one, not
// the caller's, with PATH and the locale carried over.
func (d *Desktop) Env() []string {
	env := []string{
		markerVar + "=" + d.ID,
		"HOME=" + filepath.Join(d.Dir, "home"),
		"XDG_RUNTIME_DIR=" + d.RuntimeDir,
		"XDG_CONFIG_HOME=" + d.ConfigDir,
		"XDG_CACHE_HOME=" + filepath.Join(d.Dir, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(d.Dir, "data"),
		// The desktop's own temp dir, removed with it: what its
		// applications leave there (Chromium's singleton directories,
		// when one is killed) never piles up in the shared /tmp.
		"TMPDIR=" + filepath.Join(d.Dir, "tmp"),
		"GSETTINGS_BACKEND=memory",
		"GTK_USE_PORTAL=0",
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
	}
	if p := os.Getenv("PATH"); p != "" {
		env = append(env, "PATH="+p)
	} else {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	if d.opts.Owner != "" {
		env = append(env, OwnerVar+"="+d.opts.Owner)
	}
	if d.Display != "" {
		env = append(env, "DISPLAY="+d.Display, "XAUTHORITY="+d.xauthPath())
	}
	if d.BusAddress != "" {
		// Always set: without it GLib autolaunches a stray bus.
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+d.BusAddress)
	}
	return env
}

// start runs cmd as a child of this desktop: its environment, its own
// process group, output to a log file, reaped by a goroutine.
func (d *Desktop) start(cmd *exec.Cmd, name string) (*proc, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return nil, errors.New("xvfb: desktop is closed")
	}
	logPath := filepath.Join(d.Dir, "logs", fmt.Sprintf("%s-%d.log", filepath.Base(name), time.Now().UnixNano()))
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if cmd.Env == nil {
		cmd.Env = d.Env()
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !d.opts.Detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{}), log: logPath}
	go func() {
		p.err = cmd.Wait()
		p.at = time.Now()
		close(p.done)
	}()
	d.mu.Lock()
	d.procs = append(d.procs, p)
	d.mu.Unlock()
	return p, nil
}

// logTail returns the last lines of the most recent log of the named process.
func (d *Desktop) logTail(name string) string {
	d.mu.Lock()
	var path string
	for _, p := range d.procs {
		if p.name == name {
			path = p.log
		}
	}
	d.mu.Unlock()
	return TailFile(path, 2000)
}

// TailFile is the end of the log file at path, at most max bytes, for a
// failure message: "(no log)" when there is no path, "(empty)" when it
// holds nothing.
func TailFile(path string, max int) string {
	if path == "" {
		return "(no log)"
	}
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = "…" + s[len(s)-max:]
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// stop ends one child: SIGTERM to its process group, SIGKILL after grace.
func (p *proc) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	pid := p.pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	_ = syscall.Kill(pid, syscall.SIGCONT) // a stopped process cannot handle SIGTERM
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	}
}

// Close tears the desktop down: applications, every peer of both buses,
// the buses, Xvfb, then anything else still carrying this desktop's marker.
// It removes the temp dir. It reports processes it could not end.
func (d *Desktop) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	apps := append([]*App(nil), d.apps...)
	procs := append([]*proc(nil), d.procs...)
	server := d.server
	d.mu.Unlock()
	if server != nil && server.unwatch != nil {
		server.unwatch()
	}

	for _, a := range apps {
		a.p.stop(3 * time.Second)
	}
	// Bus-activated services were forked by the bus daemons and are
	// re-parented to PID 1: only the buses know them.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	var peers []int
	for _, addr := range []string{d.A11yAddress, d.BusAddress} {
		if addr == "" {
			continue
		}
		if pids, err := busPeerPIDs(ctx, addr); err == nil {
			for _, p := range pids {
				if hasMarker(p, d.ID) {
					peers = append(peers, p)
				}
			}
		}
	}
	cancel()
	left := terminate(peers, 2*time.Second)
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(2 * time.Second)
	}
	left = append(left, terminate(MarkedPIDs(d.ID), 2*time.Second)...)
	var errs []error
	if len(left) > 0 {
		var names []string
		for _, p := range left {
			names = append(names, fmt.Sprintf("%d (%s)", p, ProcName(p)))
		}
		errs = append(errs, fmt.Errorf("%w: %s", errLeft, strings.Join(names, ", ")))
	}
	if err := os.RemoveAll(d.Dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
