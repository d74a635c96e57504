package daemoncall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/sshroad"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// startWait bounds how long a command waits for a daemon it started.
const startWait = 20 * time.Second

// exitGrace is how long a command goes on looking for another daemon
// after the one it started exited without answering, before it says that
// one failed (see dialOrStart).
const exitGrace = 200 * time.Millisecond

// DesktopEnv names the caller's own desktop session from its environment
// (doctor, desktop on): its display, X authority, session bus, Wayland
// display, runtime directory, session type and current desktop.
func DesktopEnv(env Env) *wire.DesktopEnv {
	return &wire.DesktopEnv{
		Display: env("DISPLAY"), Xauthority: env("XAUTHORITY"), Bus: env("DBUS_SESSION_BUS_ADDRESS"),
		Wayland: env("WAYLAND_DISPLAY"), RuntimeDir: env("XDG_RUNTIME_DIR"), SessionType: env("XDG_SESSION_TYPE"),
		Current: env("XDG_CURRENT_DESKTOP"),
	}
}

// Session is the caller's session name: $VIBESPACE_SESSION, or "default".
func Session(env Env) string {
	if s := env("VIBESPACE_SESSION"); s != "" {
		return s
	}
	return "default"
}

// Connect dials the daemon, starting it (detached, in its own session,
// output to daemon.log in the state directory) when none answers. Its
// errors are Unreachable ones.
func Connect(ctx context.Context, o Options) (*wire.Client, error) {
	c, err := connect(ctx, o)
	if ee, ok := err.(*ExitError); ok {
		err = &ExitError{Code: ee.Code, Err: unreachable{ee.Err}}
	}
	return c, err
}

// unreachable marks an error of Connect.
type unreachable struct{ error }

func (u unreachable) Unwrap() error { return u.error }

// Unreachable reports whether err is Connect's: no daemon answered and
// none could be started, or the one started did not answer in time.
func Unreachable(err error) bool {
	var u unreachable
	return errors.As(err, &u)
}

func connect(ctx context.Context, o Options) (*wire.Client, error) {
	stateDir, sock, err := wire.Paths(o.Getenv)
	if err != nil {
		return nil, Usage("%v", err)
	}
	return dialOrStart(ctx, o, stateDir, sock)
}

// EnsureDaemon returns the socket of a daemon that answers, starting one
// as Connect does when none answers: for the bridge, which pipes another
// host's channel to it.
func EnsureDaemon(ctx context.Context, o Options) (string, error) {
	stateDir, sock, err := wire.Paths(o.Getenv)
	if err != nil {
		return "", Usage("%v", err)
	}
	c, err := dialOrStart(ctx, o, stateDir, sock)
	if err != nil {
		return "", err
	}
	c.Close()
	return sock, nil
}

func dialOrStart(ctx context.Context, o Options, stateDir, sock string) (*wire.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	c, err := wire.Dial(dctx, sock)
	cancel()
	if err == nil {
		return c, nil
	}
	d, err := startDaemon(o, stateDir)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(startWait)
	var exitedAt time.Time
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := wire.Dial(dctx, sock)
		cancel()
		if err == nil {
			return c, nil
		}
		select {
		case <-d.exited:
			// It exited without answering. It lost the race to another
			// daemon starting (that one holds the state directory's
			// lock): wait for that one. Otherwise it failed: say why at
			// once, in its own words, rather than wait out startWait —
			// after exitGrace, for the winner of a race to have written
			// its pid in the lock.
			if exitedAt.IsZero() {
				exitedAt = time.Now()
			}
			if !otherHolds(stateDir, d.pid) && time.Since(exitedAt) >= exitGrace {
				return nil, d.failed(sock)
			}
		default:
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, Internal(fmt.Errorf("started the daemon but it did not answer on %s within %v; see %s and %s",
				sock, startWait, filepath.Join(stateDir, "daemon.log"), d.stderr))
		}
		exited := d.exited // wakes the pause when it exits
		if !exitedAt.IsZero() {
			exited = nil // it has: the pause is the pause
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-exited:
		case <-ctx.Done():
		}
	}
}

// started is a daemon this command started.
type started struct {
	pid    int
	stderr string        // its standard error's file (DaemonStderr)
	from   int64         // that file's size before it started: what it wrote is past this
	exited chan struct{} // closed once it exited and was reaped
	status error         // its exit (cmd.Wait's error), once exited is closed
}

// startDaemon starts vibespace-daemon detached from us.
func startDaemon(o Options, stateDir string) (*started, error) {
	exe, err := DaemonPath(o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, Usage("state dir: %v", err)
	}
	logf, err := openStderr(stateDir)
	if err != nil {
		return nil, Usage("daemon stderr: %v", err)
	}
	defer logf.Close()
	d := &started{stderr: logf.Name(), exited: make(chan struct{})}
	if st, err := logf.Stat(); err == nil {
		d.from = st.Size()
	}
	cmd := exec.Command(exe)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, Usage("start the daemon: %v", err)
	}
	d.pid = cmd.Process.Pid
	// Reap it if it exits while we are still here (another daemon won the
	// race, or it failed); otherwise it outlives us and init reaps it.
	go func() {
		d.status = cmd.Wait()
		close(d.exited)
	}()
	return d, nil
}

// failed is the error of a daemon this command started that exited
// without answering: a no_daemon answer (startFailure) quoting the last
// lines it wrote to its standard error.
func (d *started) failed(sock string) error {
	how := "exit status 0"
	if d.status != nil {
		how = d.status.Error() // "exit status 2", "signal: killed"
	}
	said := "it wrote nothing to " + d.stderr
	if tail := stderrTail(d.stderr, d.from); tail != "" {
		said = "it said (" + d.stderr + "): " + tail
	}
	msg := fmt.Sprintf("no daemon answered, so %s was started (pid %d), but it exited at once (%s) without answering on %s; %s — fix what it says and try again (to watch it start: run %s in the foreground)",
		DaemonName, d.pid, how, sock, said, DaemonName)
	return Internal(&startFailure{msg: msg, facts: map[string]any{"pid": d.pid, "exit": how, "stderr": d.stderr}})
}

// startFailure is the error of a daemon this command started that exited
// without answering; Call answers it as no_daemon.
type startFailure struct {
	msg   string
	facts map[string]any
}

func (f *startFailure) Error() string { return f.msg }

// response is f as the answer Call gives itself.
func (f *startFailure) response() wire.Response {
	return wire.Response{V: wire.ProtocolVersion, Code: target.CodeNoDaemon, Message: f.msg, Facts: f.facts}
}

// Bounds on what a failed start quotes of the daemon's standard error.
const (
	tailLines = 3
	tailBytes = 4 << 10
)

// stderrTail is the last lines (tailLines, at most tailBytes read) that
// path holds past offset from, joined by " | ": a failed daemon's last
// words.
func stderrTail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= from {
		return ""
	}
	if st.Size()-from > tailBytes {
		from = st.Size() - tailBytes
	}
	b := make([]byte, st.Size()-from)
	n, _ := f.ReadAt(b, from)
	var lines []string
	for _, l := range strings.Split(string(b[:n]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, " | ")
}

// lockName is the daemon's lock file in the state directory (package
// daemon's): the daemon holding it wrote its pid there.
const lockName = "daemon.lock"

// otherHolds reports whether the state directory's lock names a live
// process other than pid (the daemon we started): another daemon, which
// won the race to start, or is starting still.
func otherHolds(stateDir string, pid int) bool {
	b, err := os.ReadFile(filepath.Join(stateDir, lockName))
	if err != nil {
		return false
	}
	holder, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || holder <= 0 || holder == pid {
		return false
	}
	_, gone := wire.ProcState(holder)
	return !gone
}

// Call connects (starting the daemon when needed) and sends one request as
// the caller's session, bounded by timeout. A failure to reach the daemon
// or to read its answer is an exit-2 error; a refusal is a normal answer.
// A busy answer is retried briefly (callRetrying); a connection that ended
// after the request was sent is the answer outcome_unknown or daemon_gone
// (unanswered), which exits 2.
func Call(ctx context.Context, o Options, req wire.Request, timeout time.Duration) (wire.Response, error) {
	if o.Capture != nil {
		return wire.Response{}, Usage("%s is no step a batch runs", req.Verb)
	}
	if req.Session == "" {
		req.Session = Session(o.Getenv)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A handle of another host's desktop goes there (elsewhere.go).
	ctx, req, via := routeHandle(ctx, req)
	resp, err := call(ctx, o, req)
	if again, spec, ok := elsewhere(req, resp); ok && err == nil && via == "" {
		via = spec
		resp, err = call(WithHost(ctx, spec), o, again)
	}
	return markHandle(resp, via), err
}

// call is Call's one request, to the host ctx or the environment names
// (this one when none).
func call(ctx context.Context, o Options, req wire.Request) (wire.Response, error) {
	host, err := RemoteHost(ctx, o)
	if err != nil {
		return wire.Response{}, err
	}
	resp, err := callRetrying(ctx, req, func() (wire.Response, error) {
		var cl *wire.Client
		var err error
		// A daemon on this host is dialled (wire.Dial): while the answer is
		// awaited its process is watched, and one stopped (or gone) is given
		// up on (wire.ErrStopped, answered by unanswered). A daemon on
		// another host is reached through ssh and a bridge: no process here
		// to watch, so one stopped there is waited for until timeout, as
		// before.
		if host != nil {
			cl, _, err = host.Bridge(ctx)
			var f *sshroad.Failure
			if errors.As(err, &f) {
				return f.Response(host.Name), nil
			}
		} else {
			cl, err = Connect(ctx, o)
			var sf *startFailure
			if errors.As(err, &sf) {
				return sf.response(), nil
			}
		}
		if err != nil {
			return wire.Response{}, err
		}
		defer cl.Close()
		resp, err := cl.Call(ctx, req)
		if r, ok := unanswered(req, err); ok {
			return r, nil
		}
		if err != nil {
			return wire.Response{}, Internal(err)
		}
		return resp, nil
	})
	if err == nil && host != nil && req.Verb == "watch" && resp.OK && resp.URL != "" {
		// The live view listens on the host's 127.0.0.1: its page's port
		// and its video's (ICE-TCP), each the same port here, forwarded
		// over the master (forward.go).
		resp = forwardLive(ctx, host, resp)
	}
	if err == nil && host != nil && req.Verb == "doctor" && resp.OK {
		resp.Checks = append(hostChecks(ctx, host, resp), resp.Checks...)
	}
	if err == nil && host != nil {
		// Every answer from another host names it.
		if resp.Facts == nil {
			resp.Facts = map[string]any{}
		}
		resp.Facts["host"] = host.Name
	}
	return resp, err
}

// livePort is the port of a live view's address, http://127.0.0.1:P/….
func livePort(u string) (int, bool) {
	rest, ok := strings.CutPrefix(u, "http://127.0.0.1:")
	if !ok {
		return 0, false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	p, err := strconv.Atoi(rest[:end])
	return p, err == nil && p > 0 && p < 65536
}

// hostChecks are doctor's rows for the other host the answer came from:
// what the road there can and cannot do from here.
func hostChecks(ctx context.Context, h *sshroad.Host, resp wire.Response) []wire.Check {
	var out []wire.Check
	if p, err := exec.LookPath(h.SSH); err != nil {
		out = append(out, wire.Check{Name: "host " + h.Name + ": ssh", Detail: "no ssh program here: " + err.Error()})
	} else {
		out = append(out, wire.Check{Name: "host " + h.Name + ": ssh", OK: true, Detail: p})
	}
	up, why := h.Up(ctx)
	detail := "master " + h.Control + " (ControlPersist " + sshroad.Persist + ")"
	if !up {
		detail = "no master running: " + why
	}
	out = append(out, wire.Check{Name: "host " + h.Name + ": master", OK: up, Detail: detail})
	d := "answers (this doctor is its own)"
	if resp.Status != nil {
		d = fmt.Sprintf("answers: pid %d", resp.Status.PID)
	}
	out = append(out, wire.Check{Name: "host " + h.Name + ": remote daemon", OK: true, Detail: d + ", " + h.Daemon + " bridge"})
	out = append(out, wire.Check{Name: "host " + h.Name + ": live view", OK: up,
		Detail: "watch forwards its page's port and its video's (ICE-TCP) over the master to the same ports on this side's 127.0.0.1, each proven free here first (refused live_view_unavailable, naming the port, when taken)"})
	return out
}
