package cdp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure Launch. The zero value is not enough: set Headless, or
// Display for a headed browser.
type Options struct {
	// Binary is the Chromium program; "" means "chromium", found in PATH.
	Binary string
	// UserDataDir is the profile directory. "" means a fresh temporary
	// directory that Close removes.
	UserDataDir string
	// Headless runs the browser with --headless=new. Without it, Display
	// must name the X display to show windows on.
	Headless bool
	// Display is the X display (":N") of a headed browser.
	Display string
	// ExtraFlags are appended to the flags Launch always passes.
	ExtraFlags []string
	// Env is the browser's whole environment. nil means a minimal one:
	// PATH, HOME (the user-data dir) and, when headed, DISPLAY. Launch never
	// reads its own process's environment.
	Env []string
	// StartTimeout bounds the wait for readiness when ctx has no earlier
	// deadline; 0 means 30 s.
	StartTimeout time.Duration
	// CallTimeout bounds each CDP call whose context has no deadline; 0
	// means DefaultCallTimeout.
	CallTimeout time.Duration
	// Outlive keeps the browser running when the process that launched it
	// dies without closing it (by default the kernel kills it then). A
	// persistent profile's browser wants that: Chromium writes cookies to
	// disk only every ~30 s and on a clean close, so a daemon killed with
	// -9 must leave it for the next daemon to close cleanly.
	Outlive bool
	// Logger receives the browser's stderr (at debug level, minus the
	// DevTools URL) and lifecycle lines; nil discards them.
	Logger *slog.Logger
}

// baseFlags are passed to every browser we start (notes/browser.md): the
// network is closed, so everything that phones home is off.
var baseFlags = []string{
	"--disable-gpu",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-quic",
	"--disable-breakpad",
	"--disable-crash-reporter",
	"--password-store=basic",
	"--remote-debugging-port=0",
}

// Browser is a running Chromium and the CDP connection to it. It lives until
// Close, or until the context given to Launch ends.
type Browser struct {
	conn    *Conn
	cmd     *exec.Cmd
	pgid    int
	tmpDir  string // removed by Close; "" when the caller owns the profile
	log     *slog.Logger
	exited  chan struct{}
	stderr  *tailBuffer
	stopCtx context.CancelFunc

	closeOnce sync.Once
	closeErr  error
}

// Launch starts Chromium in its own process group, waits for its
// "DevTools listening on" line (bounded by ctx and StartTimeout) and
// connects to it. The browser is killed and reaped when ctx ends, when
// Close is called, or when Launch fails.
func Launch(ctx context.Context, o Options) (*Browser, error) {
	if !o.Headless && o.Display == "" {
		return nil, errors.New("cdp: launch: a headed browser needs Options.Display (or set Headless)")
	}
	bin := o.Binary
	if bin == "" {
		bin = "chromium"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("cdp: launch: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Browser{log: log, exited: make(chan struct{}), stderr: newTailBuffer(40)}
	dataDir := o.UserDataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "vibespace-chromium-*"); err != nil {
			return nil, fmt.Errorf("cdp: launch: %w", err)
		}
		b.tmpDir = dataDir
	}
	args := append([]string(nil), baseFlags...)
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium refuses to run as root with its sandbox
	}
	if o.Headless {
		args = append(args, "--headless=new")
	}
	args = append(args, "--user-data-dir="+dataDir)
	args = append(args, o.ExtraFlags...)
	args = append(args, "about:blank")

	env := o.Env
	if env == nil {
		env = []string{"PATH=/usr/bin:/bin", "HOME=" + dataDir}
	}
	if !o.Headless {
		env = append(env, "DISPLAY="+o.Display)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		b.removeTmp()
		return nil, fmt.Errorf("cdp: launch: %w", err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdout = nil
	cmd.Stderr = pw // a file, not a copier goroutine: renderers inherit it, Wait must not wait for them
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if o.Outlive {
		cmd.SysProcAttr.Pdeathsig = 0
	}
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		b.removeTmp()
		return nil, fmt.Errorf("cdp: launch %s: %w", bin, err)
	}
	pw.Close()
	b.cmd = cmd
	b.pgid = cmd.Process.Pid
	go func() {
		cmd.Wait()
		close(b.exited)
	}()
	log.Debug("cdp: chromium started", "pid", b.pgid)

	urlc := make(chan string, 1)
	go b.readStderr(pr, urlc)

	startTimeout := o.StartTimeout
	if startTimeout <= 0 {
		startTimeout = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var wsURL string
	select {
	case wsURL = <-urlc:
	case <-b.exited:
		b.kill()
		return nil, fmt.Errorf("cdp: chromium exited before it was ready (%s): %s", cmd.ProcessState, b.stderr.String())
	case <-sctx.Done():
		b.kill()
		return nil, fmt.Errorf("cdp: chromium not ready: %w; its stderr: %s", sctx.Err(), b.stderr.String())
	}
	conn, err := Dial(sctx, wsURL, DialOptions{CallTimeout: o.CallTimeout, Logger: log})
	if err != nil {
		b.kill()
		return nil, err
	}
	b.conn = conn

	// The browser lives as long as ctx: a daemon passes its own lifetime.
	stopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b.stopCtx = stop
	go func() {
		select {
		case <-ctx.Done():
			b.Close()
		case <-stopCtx.Done():
		case <-b.exited:
			conn.shutdown(fmt.Errorf("%w: the browser exited", ErrClosed))
		}
	}()
	return b, nil
}

// readStderr scans the browser's stderr: the first "DevTools listening on"
// line gives the endpoint (it is never logged or kept, since it grants
// control of the browser); every other line goes to the tail buffer and the
// debug log. It returns at EOF, when every process of the group has closed
// its stderr.
func (b *Browser) readStderr(r io.ReadCloser, urlc chan<- string) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if !found {
			if _, u, ok := strings.Cut(line, "DevTools listening on "); ok {
				found = true
				urlc <- strings.TrimSpace(u)
				continue
			}
		}
		if strings.Contains(line, "ws://") {
			continue // never keep an endpoint
		}
		b.stderr.add(line)
		b.log.Debug("chromium: " + line)
	}
}

// PID is the browser's main process id; it leads the browser's process group.
func (b *Browser) PID() int { return b.pgid }

// Conn is the browser-level CDP connection.
func (b *Browser) Conn() *Conn { return b.conn }

// Exited is closed when the browser's main process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Close asks the browser to quit (Browser.close, so a profile is flushed to
// disk), kills its whole process group if it has not exited within a grace
// period, waits for the group to be gone, and removes a temporary profile.
// It is idempotent and returns the first close's result.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() {
		if b.stopCtx != nil {
			b.stopCtx()
		}
		if b.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_ = b.conn.Call(ctx, "Browser.close", nil, nil)
			cancel()
			select {
			case <-b.exited:
			case <-time.After(5 * time.Second):
			}
			b.conn.Close()
		}
		b.closeErr = b.kill()
	})
	return b.closeErr
}

// kill sends SIGKILL to the process group, reaps the main process, and waits
// (bounded) until no live process of the group remains; then removes a
// temporary profile.
func (b *Browser) kill() error {
	_ = syscall.Kill(-b.pgid, syscall.SIGKILL)
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("cdp: chromium %d did not exit after SIGKILL", b.pgid)
	}
	var left []int
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Helpers (zygote, renderers) were reparented when the main process
		// died; SIGKILL again catches one that was forking meanwhile.
		left = GroupProcesses(b.pgid)
		if len(left) == 0 {
			break
		}
		_ = syscall.Kill(-b.pgid, syscall.SIGKILL)
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.removeTmp()
	if len(left) > 0 {
		return fmt.Errorf("cdp: chromium group %d: processes %v still alive", b.pgid, left)
	}
	b.log.Debug("cdp: chromium stopped", "pid", b.pgid)
	return nil
}

func (b *Browser) removeTmp() {
	if b.tmpDir != "" {
		os.RemoveAll(b.tmpDir)
	}
}
