// Package clitest runs the vibespace command lines as an agent does in the
// integration tests: a binary built once per test run (with -race when the
// tests run under -race), an isolated state directory per test, the
// daemon in the foreground as the test's child or started by the CLI
// itself, and every daemon stopped and checked for data races at the end.
package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

// Race is true when this binary was built with -race (race.go); the
// command under test is then built with -race too, so the daemon the
// integration tests drive is checked for data races as well.
var Race bool

// Main is a CLI test package's TestMain: it builds name (see Build) into
// *bin, runs the tests and removes the build.
func Main(m *testing.M, name string, bin *string) {
	b, remove, err := Build(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	*bin = b
	code := m.Run()
	if problems := stopShared(); problems != "" {
		fmt.Fprintln(os.Stderr, problems)
		code = max(code, 1)
	}
	remove()
	os.Exit(code)
}

// Build builds the command cmd/name into a temporary directory, and
// vibespace-daemon beside it (the command starts the daemon from there),
// with -race when this test binary has it: from the command's own folder
// or from a test-only package beside it. remove deletes them.
func Build(name string) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", name+"-bin-")
	if err != nil {
		return "", nil, err
	}
	for _, b := range []struct{ name, pkg string }{{name, cmdPkg + name}, {daemoncall.DaemonName, daemonPkg}} {
		if _, err := BuildInto(dir, b.name, b.pkg); err != nil {
			os.RemoveAll(dir)
			return "", nil, err
		}
	}
	return filepath.Join(dir, name), func() { os.RemoveAll(dir) }, nil
}

// BuildInto builds the package pkg as dir/name, as Build builds its
// commands (BuildTags, -race when this test binary has it): another
// command beside the one under test, talking to the same daemon.
func BuildInto(dir, name, pkg string) (string, error) {
	out := filepath.Join(dir, name)
	args := []string{"build", "-tags", BuildTags}
	if Race {
		args = append(args, "-race")
	}
	if b, err := exec.Command("go", append(args, "-o", out, pkg)...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", name, err, b)
	}
	return out, nil
}

// BuildTags are the tags the commands are built with, as make build does:
// urfave_cli_no_docs leaves out urfave/cli's man and markdown writers
// (and their markdown parser's start-up work on every call).
const BuildTags = "urfave_cli_no_docs"

// cmdPkg is where the commands are; daemonPkg is the daemon's program.
const (
	cmdPkg    = "github.com/vibespace/vibespace/cmd/"
	daemonPkg = cmdPkg + "vibespace-daemon"
)

// Chromium is the browser the daemons under test start.
const Chromium = "/usr/bin/chromium"

// NeedChromium fails the test when Chromium is missing under
// VIBESPACE_INTEGRATION=1 (make deps installs it), else skips it saying so.
func NeedChromium(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(Chromium); err != nil {
		if os.Getenv("VIBESPACE_INTEGRATION") == "1" {
			t.Fatalf("%s is missing (make deps installs chromium): %v", Chromium, err)
		}
		t.Skipf("SKIP: %s is missing: %v", Chromium, err)
	}
}

// LogOnFailure makes a failed test show what the daemon logged: the
// foreground daemon's log and the state directory's daemon.log.
func (e *Env) LogOnFailure() {
	e.T.Cleanup(func() {
		if !e.T.Failed() {
			return
		}
		for _, f := range []string{e.ServeLog(), filepath.Join(e.Home, "daemon.log")} {
			if b, err := os.ReadFile(f); err == nil {
				e.T.Logf("%s:\n%s", filepath.Base(f), b)
			}
		}
	})
}

// Env is one isolated vibespace: its own VIBESPACE_HOME and runtime dir.
type Env struct {
	T         testing.TB
	Bin       string // the command under test
	Home, Run string // VIBESPACE_HOME, XDG_RUNTIME_DIR
	Dir       string // the test's scratch directory
	// Extra is added to every command's environment ("K=V").
	Extra []string

	Serve     *exec.Cmd // the foreground daemon, when the test started one
	ServeDone chan struct{}

	// On the shared daemon (Shared): what this test's sessions are named
	// before, and the directory of the daemon's serve.log.
	prefix, daemonDir string
	used              *sessionsUsed // the sessions the commands ran as (Sessions)
}

// sessionsUsed are the sessions an Env's commands ran as, in the order
// first used; a copy of the Env (another command on the same daemon)
// adds to the same.
type sessionsUsed struct {
	mu    sync.Mutex
	names []string
}

func (u *sessionsUsed) add(s string) {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if !slices.Contains(u.names, s) {
		u.names = append(u.names, s)
	}
}

// ServeLog is the path of the foreground daemon's log.
func (e *Env) ServeLog() string {
	if e.daemonDir != "" {
		return filepath.Join(e.daemonDir, "serve.log")
	}
	return filepath.Join(e.Dir, "serve.log")
}

// New makes an Env for bin under t.TempDir and stops every daemon of it
// when the test ends.
func New(t testing.TB, bin string) *Env {
	t.Helper()
	dir := t.TempDir()
	e := &Env{T: t, Bin: bin, Dir: dir, Home: filepath.Join(dir, "home"), Run: filepath.Join(dir, "run")}
	if err := os.MkdirAll(e.Run, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

// Environ is a clean environment for the CLI as session s: nothing of the
// caller's vibespace, display or bus.
func (e *Env) Environ(s string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "VIBESPACE_"), strings.HasPrefix(k, "XDG_"), k == "DISPLAY", k == "DBUS_SESSION_BUS_ADDRESS":
			continue
		}
		out = append(out, kv)
	}
	e.used.add(s)
	out = append(out, "VIBESPACE_HOME="+e.Home, "XDG_RUNTIME_DIR="+e.Run, "VIBESPACE_SESSION="+e.Session(s))
	return append(out, e.Extra...)
}

// Result is one run of the CLI.
type Result struct {
	Code        int
	Out, Errout string
}

// CLI runs the binary as session s.
func (e *Env) CLI(s string, args ...string) Result {
	e.T.Helper()
	return e.CLIEnv(s, nil, args...)
}

// CLIEnv runs the binary as session s with extra environment ("K=V").
func (e *Env) CLIEnv(s string, extra []string, args ...string) Result {
	e.T.Helper()
	return e.run(s, extra, nil, args)
}

// CLIStdin runs the binary as session s with stdin fed from in (a pipe, not
// a terminal).
func (e *Env) CLIStdin(s, in string, args ...string) Result {
	e.T.Helper()
	return e.run(s, nil, strings.NewReader(in), args)
}

func (e *Env) run(s string, extra []string, stdin io.Reader, args []string) Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Env = append(e.Environ(s), extra...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Out: out.String(), Errout: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		e.T.Fatalf("run %v: %v", args, err)
	}
	return r
}

// OK runs the CLI and fails the test unless it exits 0.
func (e *Env) OK(s string, args ...string) string {
	e.T.Helper()
	r := e.CLI(s, args...)
	if r.Code != 0 {
		e.T.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Out, r.Errout)
	}
	return r.Out
}

// Refused runs the CLI and fails unless it exits 1 with code on stderr.
func (e *Env) Refused(code, s string, args ...string) Result {
	e.T.Helper()
	r := e.CLI(s, args...)
	if r.Code != 1 || !strings.Contains(r.Errout, "refused: ") || !strings.Contains(r.Errout, "["+code+"]") {
		e.T.Fatalf("%v: want refused [%s], got exit %d\nstdout: %s\nstderr: %s", args, code, r.Code, r.Out, r.Errout)
	}
	return r
}

// Answer runs the CLI with --json and decodes the daemon's answer.
func (e *Env) Answer(s string, args ...string) wire.Response {
	e.T.Helper()
	r := e.CLI(s, append([]string{"--json"}, args...)...)
	var resp wire.Response
	if err := json.Unmarshal([]byte(r.Out), &resp); err != nil {
		e.T.Fatalf("%v: not a JSON answer (exit %d): %v\n%s\n%s", args, r.Code, err, r.Out, r.Errout)
	}
	return resp
}

// StartServe runs "serve" in the foreground as our child and waits until
// it answers.
func (e *Env) StartServe(flags ...string) {
	e.T.Helper()
	e.startDaemon(exec.Command(e.Bin, append([]string{"serve"}, flags...)...))
}

// StartDaemon runs the daemon's program (built beside the command under
// test) in the foreground as our child, with the daemon's flags, and waits
// until it answers: for a command that has no serve of its own.
func (e *Env) StartDaemon(flags ...string) {
	e.T.Helper()
	e.startDaemon(exec.Command(filepath.Join(filepath.Dir(e.Bin), daemoncall.DaemonName), flags...))
}

func (e *Env) startDaemon(cmd *exec.Cmd) {
	e.T.Helper()
	cmd.Env = e.Environ("serve")
	logf, err := os.OpenFile(filepath.Join(e.Dir, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		e.T.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.Serve, e.ServeDone = cmd, make(chan struct{})
	done := e.ServeDone
	go func() { cmd.Wait(); close(done) }()
	e.waitUp()
}

// Socket is the daemon's socket for this Env.
func (e *Env) Socket() string {
	e.T.Helper()
	_, sock, err := wire.Paths(func(k string) string {
		return map[string]string{"VIBESPACE_HOME": e.Home, "XDG_RUNTIME_DIR": e.Run}[k]
	})
	if err != nil {
		e.T.Fatal(err)
	}
	return sock
}

// waitUp polls the daemon's socket (directly, not through the CLI, which
// would start a second daemon racing ours) until ours answers.
func (e *Env) waitUp() {
	e.T.Helper()
	sock := e.Socket()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if c, err := wire.Dial(ctx, sock); err == nil {
			st, err := c.Call(ctx, wire.Request{Verb: "status", Session: "probe"})
			c.Close()
			if err == nil && st.OK && st.Status.PID == e.Serve.Process.Pid {
				cancel()
				return
			}
		}
		cancel()
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(e.Dir, "serve.log"))
			e.T.Fatalf("the daemon did not come up:\n%s", b)
		}
		select {
		case <-e.ServeDone:
			b, _ := os.ReadFile(filepath.Join(e.Dir, "serve.log"))
			e.T.Fatalf("serve exited:\n%s", b)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Kill9 kills the foreground daemon as a crash would.
func (e *Env) Kill9() {
	e.T.Helper()
	e.Serve.Process.Signal(syscall.SIGKILL)
	<-e.ServeDone
	e.Serve = nil
}

// Stop ends the daemons of this Env with SIGTERM (the foreground one, and
// one the CLI started by itself), then fails the test if a daemon log
// reported a data race.
func (e *Env) Stop() {
	if e.Serve != nil {
		e.Serve.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.ServeDone:
		case <-time.After(30 * time.Second):
			e.T.Errorf("the daemon did not stop on SIGTERM; killing it")
			e.Serve.Process.Kill()
			<-e.ServeDone
		}
		e.Serve = nil
	}
	e.StopAutostarted()
	if logs := raceLogs(e); logs != "" {
		e.T.Errorf("the daemon reported a data race:\n%s", logs)
	}
}

// DaemonPID is the PID in the daemon's lock file, if that process is a live
// one of our daemon binary; 0 otherwise.
func (e *Env) DaemonPID() int {
	b, err := os.ReadFile(filepath.Join(e.Home, "daemon.lock"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || !e.ours(pid) {
		return 0
	}
	return pid
}

// ours reports whether pid is a live (not zombie) process of our daemon,
// the vibespace-daemon built beside the command under test.
func (e *Env) ours(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(cmdline), filepath.Join(filepath.Base(filepath.Dir(e.Bin)), daemoncall.DaemonName)) && !Exited(pid)
}

// StopAutostarted ends a daemon the CLI started by itself (not our child):
// the PID in its lock file, if that process is one of our daemon binary.
func (e *Env) StopAutostarted() {
	pid := e.DaemonPID()
	if pid == 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	if !e.WaitGone(pid, 30*time.Second) {
		e.T.Errorf("the autostarted daemon %d did not stop on SIGTERM; killing it", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// WaitGone waits until pid has exited (or is a zombie), bounded.
func (e *Env) WaitGone(pid int, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	for syscall.Kill(pid, 0) == nil && !Exited(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// Exited reports whether pid is gone or a zombie waiting for its parent —
// all of it: a killed multi-threaded process shows its leader as a zombie
// while its other threads still exit, and until the last one has, its
// files (a daemon's listening socket among them) are still open. A client
// that connected then is reset when they close.
func Exited(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return true
	}
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if err != nil {
			continue // that thread is gone
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X' {
			return false
		}
	}
	return true
}

// LastLine is the last line of a command's output: the body after the
// profile and target lines.
func LastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// CheckSharedRules checks that help, one command line's whole help, says
// the rules both command lines keep alike: a ref may be written without its
// "@", and a call the daemon went away from is unanswered, outcome_unknown
// or daemon_gone (a busy daemon is retried first).
func CheckSharedRules(t testing.TB, help string) {
	t.Helper()
	flat := strings.Join(strings.Fields(help), " ")
	for _, w := range []string{`"@" may be left out (e7 is @e7), in both command lines`, "unanswered: … [outcome_unknown]", "[daemon_gone]", "busy"} {
		if !strings.Contains(flat, w) {
			t.Errorf("help does not say %q", w)
		}
	}
}

// HomeHoldsNot fails the test when any file under the state directory
// holds s (text an agent typed, which no log, audit or trace may keep),
// or when there is no file there to look in.
func (e *Env) HomeHoldsNot(s string) {
	e.T.Helper()
	n := 0
	filepath.WalkDir(e.Home, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, rerr := os.ReadFile(p)
		if rerr != nil {
			return nil
		}
		n++
		if bytes.Contains(b, []byte(s)) {
			e.T.Errorf("%s holds the text typed", p)
		}
		return nil
	})
	if n == 0 {
		e.T.Fatal("nothing under the state directory to look in")
	}
}
