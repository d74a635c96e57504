// Package sshroad is the road to a daemon on another host through OpenSSH:
// one master connection per host (BatchMode, ControlMaster=auto,
// ControlPersist=10m) whose control socket has a short name in our 0700
// runtime directory; each call runs `<remote daemon> bridge` over it and
// speaks the wire protocol over that channel's stdin and stdout; the live
// view's ports are forwarded over the same master to 127.0.0.1 here. It
// runs the ssh program: it links no network package.
package sshroad

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Env is what the road reads from the environment.
type Env func(string) string

// Host is one remote host as VIBESPACE_HOST or --host name it.
type Host struct {
	// Name is how answers name it: user@host[:port].
	Name string
	dest string // [user@]host
	port string // "" for ssh's default
	// Config is ssh's -F ($VIBESPACE_SSH_CONFIG), "" for ssh's own.
	Config string
	// Daemon is the remote program ($VIBESPACE_REMOTE_DAEMON, else
	// vibespace-daemon on the remote PATH).
	Daemon string
	// Control is the master's control socket.
	Control string
	// SSH is the ssh program ("ssh" on PATH).
	SSH string
}

// DefaultDaemon is the remote program when VIBESPACE_REMOTE_DAEMON is unset.
const DefaultDaemon = "vibespace-daemon"

// Persist is how long the master stays up after its last use.
const Persist = "10m"

// Parse reads spec ("ssh://[user@]host[:port]", or "[user@]host") and the
// environment into a Host whose control socket lives in runDir (the 0700
// directory of our daemon's socket, made if missing).
func Parse(spec string, env Env, runDir string) (*Host, error) {
	rest, ok := strings.CutPrefix(spec, "ssh://")
	if !ok && strings.Contains(spec, "://") {
		return nil, fmt.Errorf("host %q: only ssh://[user@]host[:port] is a host", spec)
	}
	rest = strings.TrimSuffix(rest, "/")
	h := &Host{Config: env("VIBESPACE_SSH_CONFIG"), Daemon: env("VIBESPACE_REMOTE_DAEMON"), SSH: "ssh"}
	if h.Daemon == "" {
		h.Daemon = DefaultDaemon
	}
	user, hostport, hasUser := strings.Cut(rest, "@")
	if !hasUser {
		user, hostport = "", rest
	}
	host := hostport
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[:i], ":") {
		host, h.port = hostport[:i], hostport[i+1:]
		if n, err := strconv.Atoi(h.port); err != nil || n <= 0 || n > 65535 {
			return nil, fmt.Errorf("host %q: the port %q is not a port", spec, h.port)
		}
	}
	if host == "" || strings.HasPrefix(host, "-") || strings.ContainsAny(host+user, " \t\n/'\"\\") || (hasUser && user == "") {
		return nil, fmt.Errorf("host %q is not ssh://[user@]host[:port]", spec)
	}
	h.dest = host
	if hasUser {
		h.dest = user + "@" + host
	}
	h.Name = h.dest
	if h.port != "" {
		h.Name += ":" + h.port
	}
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return nil, fmt.Errorf("runtime dir: %w", err)
	}
	// A short name: ssh's %C (a 40-hex hash) with our directory overruns a
	// Unix socket's path.
	sum := fnv.New64a()
	sum.Write([]byte(h.Name + "\x00" + h.Config))
	h.Control = filepath.Join(runDir, "ssh-"+hex.EncodeToString(sum.Sum(nil))[:12])
	return h, nil
}

// args are ssh's options for every use of the master, then the
// destination, then more.
func (h *Host) args(more ...string) []string {
	a := []string{}
	if h.Config != "" {
		a = append(a, "-F", h.Config)
	}
	a = append(a, "-o", "BatchMode=yes", "-o", "ControlMaster=auto", "-o", "ControlPersist="+Persist,
		"-o", "ControlPath="+h.Control, "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=15")
	if h.port != "" {
		a = append(a, "-p", h.port)
	}
	return append(append(a, h.dest), more...)
}

// Failure is a road that did not reach the remote daemon: a refusal code
// (host_unreachable, no_remote_daemon, live_view_unavailable), a sentence
// and ssh's last stderr line.
type Failure struct {
	Code    target.Code
	Message string
	Stderr  string
	Exit    int
}

func (f *Failure) Error() string { return f.Message }

// Response is f as the answer the command line gives itself.
func (f *Failure) Response(host string) wire.Response {
	facts := map[string]any{"host": host}
	if f.Stderr != "" {
		facts["ssh_stderr"] = f.Stderr
	}
	if f.Exit != 0 {
		facts["ssh_exit"] = f.Exit
	}
	return wire.Response{V: wire.ProtocolVersion, Code: f.Code, Message: f.Message, Facts: facts}
}

// greetingWait bounds the bridge's greeting: the log-in, and starting the
// remote daemon when none answers there (its own bound is 20 s).
const greetingWait = 45 * time.Second

// reapWait bounds how long a closed bridge's ssh may take to exit before it
// is killed.
const reapWait = 5 * time.Second

// Bridge runs `<daemon> bridge` on the host over the master (starting the
// master when it is not up) and returns a Client speaking to the remote
// daemon, and what the bridge said of itself. Closing the Client ends the
// channel and reaps ssh. A failure is a *Failure.
func (h *Host) Bridge(ctx context.Context) (*wire.Client, string, error) {
	ours, theirs, err := wire.Socketpair()
	if err != nil {
		return nil, "", err
	}
	errf, err := os.CreateTemp(filepath.Dir(h.Control), "ssh-stderr-")
	if err != nil {
		syscall.Close(ours)
		theirs.Close()
		return nil, "", err
	}
	os.Remove(errf.Name()) // ours alone; ssh writes through its descriptor
	cmd := exec.Command(h.SSH, h.args("-T", "--", shellQuote(h.Daemon), "bridge")...)
	// Files, not pipes: a master ssh forks into the background keeps no
	// pipe of ours open, so Wait never waits on it.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, theirs, errf
	cmd.Env = sshEnv()
	if err := cmd.Start(); err != nil {
		syscall.Close(ours)
		theirs.Close()
		errf.Close()
		return nil, "", &Failure{Code: target.CodeHostUnreachable, Message: fmt.Sprintf("cannot run ssh to reach %s: %v", h.Name, err)}
	}
	theirs.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	reap := func() error {
		select {
		case <-exited:
		case <-time.After(reapWait):
			cmd.Process.Kill()
			<-exited
		}
		errf.Close()
		return nil
	}
	cl := wire.FromFD(ours, reap)
	wait := greetingWait
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		wait = max(time.Until(dl), time.Millisecond)
	}
	said, gerr := cl.Greeting(wait)
	if gerr == nil {
		return cl, said, nil
	}
	// No greeting: close our end (ssh sees its end of input), let ssh exit
	// and read why.
	syscall.Shutdown(ours, syscall.SHUT_RDWR)
	select {
	case <-exited:
	case <-time.After(reapWait):
		cmd.Process.Kill()
		<-exited
	}
	code := cmd.ProcessState.ExitCode()
	last := lastLine(errf)
	cl.Close()
	f := &Failure{Stderr: last, Exit: code}
	switch code {
	case 255:
		f.Code = target.CodeHostUnreachable
		f.Message = fmt.Sprintf("ssh could not reach or log in to %s (exit 255): %s", h.Name, orNothing(last))
	case 126, 127:
		f.Code = target.CodeNoRemoteDaemon
		f.Message = fmt.Sprintf("%s has no %s to run (exit %d): install it there, or set VIBESPACE_REMOTE_DAEMON to its path: %s", h.Name, h.Daemon, code, orNothing(last))
	default:
		f.Code = target.CodeNoRemoteDaemon
		f.Message = fmt.Sprintf("the bridge to the daemon on %s failed (%v, ssh exit %d): %s", h.Name, gerr, code, orNothing(last))
	}
	return nil, "", f
}

// Control runs `ssh -O <op>` on the master (check, exit, forward, cancel)
// with more options before the destination, bounded by ctx, and returns
// ssh's exit code and last stderr line.
func (h *Host) control(ctx context.Context, op string, more ...string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	a := append([]string{"-O", op}, more...)
	cmd := exec.CommandContext(ctx, h.SSH, append(a, h.args()...)...)
	var errb bytes.Buffer
	cmd.Stderr, cmd.Stdout = &errb, &errb
	cmd.Env = sshEnv()
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return -1, "", err
	}
	return cmd.ProcessState.ExitCode(), lastLineOf(errb.String()), nil
}

// Up reports whether the master is running (ssh -O check).
func (h *Host) Up(ctx context.Context) (bool, string) {
	code, last, err := h.control(ctx, "check")
	if err != nil {
		return false, err.Error()
	}
	return code == 0, last
}

// Stop ends the master (ssh -O exit).
func (h *Host) Stop(ctx context.Context) error {
	if code, last, err := h.control(ctx, "exit"); err != nil || code != 0 {
		return fmt.Errorf("ssh -O exit: %v %s", err, last)
	}
	return nil
}

// Forward forwards 127.0.0.1:port here to 127.0.0.1:port on the host over
// the master (which a Bridge started): the live view checks Host and
// Origin, so the port is the same at both ends. A port taken here is
// live_view_unavailable.
func (h *Host) Forward(ctx context.Context, port int) error {
	spec := fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", port, port)
	code, last, err := h.control(ctx, "forward", "-o", "ExitOnForwardFailure=yes", "-L", spec)
	if err != nil {
		return &Failure{Code: target.CodeLiveViewUnavailable, Message: fmt.Sprintf("cannot forward the live view's port %d from %s: %v", port, h.Name, err)}
	}
	if code != 0 {
		return &Failure{Code: target.CodeLiveViewUnavailable, Stderr: last, Exit: code,
			Message: fmt.Sprintf("cannot forward the live view's port %d from %s to 127.0.0.1:%d here (is it taken on this side?): %s", port, h.Name, port, orNothing(last))}
	}
	return nil
}

// sshEnv is ssh's environment: ours, without a display (no askpass, no X
// forwarding is wanted).
func sshEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "DISPLAY" || k == "SSH_ASKPASS" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// shellQuote quotes s for the remote shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lastLine is the last non-empty line of f (at most 4 KiB from its end).
func lastLine(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-4096, 0)
	b := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(b, off)
	return lastLineOf(string(b[:n]))
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	return l
}

func orNothing(s string) string {
	if s == "" {
		return "(ssh said nothing)"
	}
	return s
}
