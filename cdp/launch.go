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
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/internal/chromeflags"
	"github.com/vibespace/vibespace/internal/linetail"
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
	// reads its own process's environment. TMPDIR is always the browser's
	// own temporary directory (Browser.TempDir), whatever Env says.
	Env []string
	// StartTimeout bounds the wait for readiness when ctx has no earlier
	// deadline; 0 means 30 s.
	StartTimeout time.Duration
	// CallTimeout bounds each CDP call whose context has no deadline; 0
	// means DefaultCallTimeout.
	CallTimeout time.Duration
	// Outlive lets the browser shut itself down cleanly when the process
	// that launched it dies without closing it: the kernel then closes that
	// process's end of the debugging pipe, and Chromium, reading EOF,
	// quits as Browser.close would, writing what it kept in memory to disk.
	// By default the kernel SIGKILLs it instead (nothing is flushed). A
	// persistent profile's browser wants Outlive: Chromium writes cookies
	// to disk only every ~30 s and on a clean close.
	Outlive bool
	// Logger receives the browser's stderr (at debug level) and lifecycle
	// lines; nil discards them.
	Logger *slog.Logger
	// Calls, when set, sees the method of every CDP command sent
	// (DialOptions.Calls).
	Calls func(method string)
}

// baseFlags are passed to every browser we start: chromeflags.Quiet (the
// network is closed, so everything that phones home is off). CDP runs over
// the pipe Launch hands the browser (fd 3 its commands, fd 4 its replies
// and events): it listens on no port, so no other process, of this user or
// another, can reach it.
var baseFlags = append(chromeflags.Quiet(), "--remote-debugging-pipe")

// refusedFlags would open the browser to other processes: a DevTools
// port (any local user could connect to it and drive every tab) or another
// pipe.
var refusedFlags = []string{"--remote-debugging-port", "--remote-debugging-address", "--remote-debugging-pipe", "--remote-debugging-io-pipes"}

// Browser is a running Chromium and the CDP connection to it. It lives until
// Close, or until the context given to Launch ends.
type Browser struct {
	conn   *Conn
	cmd    *exec.Cmd
	pgid   int
	tmpDir string // removed by Close; "" when the caller owns the profile
	// scratch is the browser's TMPDIR, made by Launch and removed with
	// the browser: Chromium's own temporary files (its singleton socket's
	// org.chromium.Chromium.* directory) live there, not in /tmp, so a
	// browser killed before it could remove them leaves nothing behind.
	scratch string
	log     *slog.Logger
	exited  chan struct{}
	stderr  *linetail.Tail
	stopCtx context.CancelFunc
	remote  bool // Connect's: not ours to close or kill
	// display is the X display a headed browser shows on ("" headless):
	// each tab it opens gets a window of its own there (Context.NewTab).
	display string

	closeOnce sync.Once
	closeErr  error
}

// Launch starts Chromium in its own process group with CDP on a pipe of
// its own, and waits until it answers Browser.getVersion (bounded by ctx
// and StartTimeout). The browser is killed and reaped when ctx ends, when
// Close is called, when it exits by itself, or when Launch fails.
func Launch(ctx context.Context, o Options) (*Browser, error) {
	if !o.Headless && o.Display == "" {
		return nil, errors.New("cdp: launch: a headed browser needs Options.Display (or set Headless)")
	}
	for _, f := range o.ExtraFlags {
		for _, r := range refusedFlags {
			if f == r || strings.HasPrefix(f, r+"=") {
				return nil, fmt.Errorf("cdp: launch: flag %s refused: CDP runs on the pipe Launch owns, never on a port", f)
			}
		}
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
	b := &Browser{log: log, exited: make(chan struct{}), stderr: linetail.New(40)}
	if !o.Headless {
		b.display = o.Display
	}
	dataDir := o.UserDataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "vibespace-chromium-*"); err != nil {
			return nil, fmt.Errorf("cdp: launch: %w", err)
		}
		b.tmpDir = dataDir
	}
	if b.scratch, err = os.MkdirTemp("", TempDirPrefix+"*"); err != nil {
		b.removeTmp()
		return nil, fmt.Errorf("cdp: launch: %w", err)
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

	env := slices.Clone(o.Env) // appended to below: never the caller's array
	if env == nil {
		env = []string{"PATH=/usr/bin:/bin", "HOME=" + dataDir}
	}
	if !o.Headless {
		env = append(env, "DISPLAY="+o.Display)
	}
	env = append(env, "TMPDIR="+b.scratch) // exec keeps the last of a name

	// stderr is a file, not a copier goroutine: renderers inherit it, and
	// Wait must not wait for them. The debugging pipe: the browser reads
	// commands from cmdR (its fd 3) and writes to evW (its fd 4).
	var pipes [6]*os.File
	closeAll := func() {
		for _, f := range pipes {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			closeAll()
			b.removeTmp()
			return nil, fmt.Errorf("cdp: launch: %w", err)
		}
	}
	errR, errW, cmdR, cmdW, evR, evW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdout = nil
	cmd.Stderr = errW
	cmd.ExtraFiles = []*os.File{cmdR, evW} // fd 3, fd 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if o.Outlive {
		cmd.SysProcAttr.Pdeathsig = 0
	}
	startedAt := time.Now()
	if err := cmd.Start(); err != nil {
		closeAll()
		b.removeTmp()
		return nil, fmt.Errorf("cdp: launch %s: %w", bin, err)
	}
	// The child's ends are the child's alone: with ours closed, our read
	// end sees EOF when the browser is gone, and the browser sees EOF when
	// we close our write end (or die).
	errW.Close()
	cmdR.Close()
	evW.Close()
	b.cmd = cmd
	b.pgid = cmd.Process.Pid
	go func() {
		cmd.Wait()
		close(b.exited)
	}()
	log.Debug("cdp: chromium started", "pid", b.pgid)
	go b.readStderr(errR)
	conn := newPipeConn(evR, cmdW, DialOptions{CallTimeout: o.CallTimeout, Logger: log, Calls: o.Calls})
	b.conn = conn

	startTimeout := o.StartTimeout
	if startTimeout <= 0 {
		startTimeout = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	// Ready is the first answer. A browser that exits first closes its
	// end of the pipe, which ends the call; exited ends it too, in case a
	// helper process still held that end.
	rctx, rcancel := context.WithCancel(sctx)
	go func() {
		select {
		case <-b.exited:
			rcancel()
		case <-rctx.Done():
		}
	}()
	err = conn.Call(rctx, "Browser.getVersion", nil, nil)
	rcancel()
	if err != nil {
		if errors.Is(err, ErrClosed) { // its end closed: it is exiting
			select {
			case <-b.exited:
			case <-time.After(2 * time.Second):
			}
		}
		exited := b.ExitState()
		b.kill()
		conn.Close()
		if exited != nil {
			return nil, fmt.Errorf("cdp: chromium exited before it was ready (%s): %s", exited, b.stderr.String())
		}
		if sctx.Err() != nil {
			err = sctx.Err()
		}
		return nil, fmt.Errorf("cdp: chromium not ready: %w; its stderr: %s", err, b.stderr.String())
	}
	log.Debug("cdp: chromium ready", "pid", b.pgid, "after", time.Since(startedAt))

	// The browser lives as long as ctx: a daemon passes its own lifetime.
	// One that exits by itself (it crashed, was killed, or saw its pipe
	// close) is reaped like a closed one: its group, its temporary profile.
	stopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b.stopCtx = stop
	go func() {
		select {
		case <-ctx.Done():
			b.Close()
		case <-stopCtx.Done():
		case <-b.exited:
			conn.shutdown(fmt.Errorf("%w: the browser exited", ErrClosed))
			b.Close()
		}
	}()
	return b, nil
}

// readStderr keeps the browser's stderr in its tail (for error
// messages) and the debug log. It returns at EOF, when every process of
// the group has closed its stderr.
func (b *Browser) readStderr(r io.ReadCloser) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		b.stderr.Add(line)
		b.log.Debug("chromium: " + line)
	}
}

// PID is the browser's main process id; it leads the browser's process group.
func (b *Browser) PID() int { return b.pgid }

// Display is the X display a headed browser shows its windows on, "" for
// a headless one (or one Connect reached).
func (b *Browser) Display() string { return b.display }

// Conn is the browser-level CDP connection.
func (b *Browser) Conn() *Conn { return b.conn }

// Exited is closed when the browser's main process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// ExitState is how the browser's main process ended ("exit status 0",
// "signal: killed"), or nil while it runs.
func (b *Browser) ExitState() *os.ProcessState {
	select {
	case <-b.exited:
		if b.cmd == nil {
			return nil
		}
		return b.cmd.ProcessState
	default:
		return nil
	}
}

// Close asks the browser to quit (Browser.close, so a profile is flushed to
// disk; closing the pipe would do the same), kills its whole process group if it has not exited within a grace
// period, waits for the group to be gone, and removes a temporary profile.
// It is idempotent and returns the first close's result.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() {
		if b.remote {
			b.closeErr = b.conn.Close() // somebody else's browser: only disconnect
			return
		}
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
	if b.scratch != "" {
		os.RemoveAll(b.scratch)
	}
}

// TempDirPrefix begins the name of every browser's own temporary
// directory (Browser.TempDir), under os.TempDir().
const TempDirPrefix = "vibespace-chromium-tmp-"

// TempDir is the browser's TMPDIR: a directory Launch made for it alone,
// removed when the browser is stopped or reaped (Close, or its own exit).
// Chromium keeps its temporary files there, among them the directory of
// its singleton socket (org.chromium.Chromium.*), which a browser killed
// with -9 cannot remove itself. "" for a browser Connect reached.
func (b *Browser) TempDir() string { return b.scratch }
