package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/testenv"
)

// bin is the vibespace-window binary TestMain built, with buildFlags.
var (
	bin        string
	buildFlags = []string{"build"}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vibespace-window-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = filepath.Join(dir, "vibespace-window")
	if out, err := exec.Command("go", append(buildFlags, "-o", bin, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build vibespace-window: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one isolated vibespace: its own VIBESPACE_HOME and runtime dir.
type env struct {
	t          testing.TB
	home, run  string
	dir        string
	fixtureSrc string
	serve      *exec.Cmd
	serveDone  chan struct{}
	desk       *testenv.State // the daemon's display, once it is up
	fixtures   atomic.Int64
}

func newEnv(t testing.TB) *env {
	t.Helper()
	testenv.NeedIntegration(t)
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: dir, home: filepath.Join(dir, "home"), run: filepath.Join(dir, "run"), fixtureSrc: src}
	if err := os.MkdirAll(e.run, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.stop)
	return e
}

// environ is a clean environment for the CLI as session s.
func (e *env) environ(s string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "VIBESPACE_"), strings.HasPrefix(k, "XDG_"), k == "DISPLAY", k == "DBUS_SESSION_BUS_ADDRESS":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "VIBESPACE_HOME="+e.home, "XDG_RUNTIME_DIR="+e.run, "VIBESPACE_SESSION="+s)
}

type result struct {
	code        int
	out, errout string
}

// cli runs the built binary as session s.
func (e *env) cli(s string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = e.environ(s)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{out: out.String(), errout: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run %v: %v", args, err)
	}
	return r
}

// ok runs the CLI and fails the test unless it exits 0.
func (e *env) ok(s string, args ...string) string {
	e.t.Helper()
	r := e.cli(s, args...)
	if r.code != 0 {
		e.t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.out, r.errout)
	}
	return r.out
}

// refused runs the CLI and fails unless it exits 1 with code on stderr.
func (e *env) refused(code, s string, args ...string) result {
	e.t.Helper()
	r := e.cli(s, args...)
	if r.code != 1 || !strings.Contains(r.errout, "refused: ") || !strings.Contains(r.errout, "["+code+"]") {
		e.t.Fatalf("%v: want refused [%s], got exit %d\nstdout: %s\nstderr: %s", args, code, r.code, r.out, r.errout)
	}
	return r
}

// answer runs the CLI with --json and decodes the daemon's answer.
func (e *env) answer(s string, args ...string) daemon.Response {
	e.t.Helper()
	r := e.cli(s, append([]string{"--json"}, args...)...)
	var resp daemon.Response
	if err := json.Unmarshal([]byte(r.out), &resp); err != nil {
		e.t.Fatalf("%v: not a JSON answer (exit %d): %v\n%s\n%s", args, r.code, err, r.out, r.errout)
	}
	return resp
}

// startServe runs "serve" in the foreground as our child and waits until it
// answers.
func (e *env) startServe(flags ...string) {
	e.t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, flags...)...)
	cmd.Env = e.environ("serve")
	logf, err := os.OpenFile(filepath.Join(e.dir, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.serve, e.serveDone = cmd, make(chan struct{})
	done := e.serveDone
	go func() { cmd.Wait(); close(done) }()
	e.waitUp()
}

// waitUp polls the daemon's socket (directly, not through the CLI, which
// would start a second daemon racing ours) until ours answers.
func (e *env) waitUp() {
	e.t.Helper()
	_, sock, err := daemon.Paths(func(k string) string {
		return map[string]string{"VIBESPACE_HOME": e.home, "XDG_RUNTIME_DIR": e.run}[k]
	})
	if err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(e.t.Context(), 5*time.Second)
		if c, err := daemon.Dial(ctx, sock); err == nil {
			st, err := c.Call(ctx, daemon.Request{Verb: "status", Session: "probe"})
			c.Close()
			if err == nil && st.OK && st.Status.PID == e.serve.Process.Pid {
				cancel()
				return
			}
		}
		cancel()
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(e.dir, "serve.log"))
			e.t.Fatalf("the daemon did not come up:\n%s", b)
		}
		select {
		case <-e.serveDone:
			b, _ := os.ReadFile(filepath.Join(e.dir, "serve.log"))
			e.t.Fatalf("serve exited:\n%s", b)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill9 kills the daemon as a crash would; its display and apps live on.
func (e *env) kill9() {
	e.t.Helper()
	e.serve.Process.Signal(syscall.SIGKILL)
	<-e.serveDone
	e.serve = nil
}

// stop ends the daemon with SIGTERM (it stops its display and apps), then
// checks that nothing of its display is left.
func (e *env) stop() {
	if e.serve != nil {
		e.serve.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.serveDone:
		case <-time.After(30 * time.Second):
			e.t.Errorf("the daemon did not stop on SIGTERM; killing it")
			e.serve.Process.Kill()
			<-e.serveDone
		}
		e.serve = nil
	}
	e.stopAutostarted()
	for _, f := range []string{filepath.Join(e.dir, "serve.log"), filepath.Join(e.home, "daemon.log")} {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "DATA RACE") {
			e.t.Errorf("the daemon reported a data race (%s):\n%s", filepath.Base(f), b)
		}
	}
	if e.desk != nil {
		if leaks := testenv.Leaks([]*testenv.Desktop{{ID: e.desk.ID, Dir: e.desk.Dir}}); len(leaks) > 0 {
			e.t.Errorf("left behind:\n  %s", strings.Join(leaks, "\n  "))
		}
	}
}

// stopAutostarted ends a daemon the CLI started by itself (not our child):
// the PID in its lock file, if that process is a vibespace-window.
func (e *env) stopAutostarted() {
	b, err := os.ReadFile(filepath.Join(e.home, "daemon.lock"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "vibespace-window") || isZombie(pid) {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
		if time.Now().After(deadline) {
			e.t.Errorf("the autostarted daemon %d did not stop on SIGTERM; killing it", pid)
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readDesk records the daemon's display from its state file.
func (e *env) readDesk() *testenv.State {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.home, "state.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	var st struct {
		Backends map[string]json.RawMessage `json:"backends"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		e.t.Fatal(err)
	}
	var d testenv.State
	if err := json.Unmarshal(st.Backends["display"], &d); err != nil || d.ID == "" {
		e.t.Fatalf("no display record in state: %s", b)
	}
	e.desk = &d
	return &d
}

// openFixture opens the fixture app as session s.
func (e *env) openFixture(s string) (id string, log *testenv.FixtureLog, pid int) {
	e.t.Helper()
	logPath := filepath.Join(e.dir, "fixture-"+strconv.FormatInt(e.fixtures.Add(1), 10)+".jsonl")
	resp := e.answer(s, "open", testenv.FixturePython, e.fixtureSrc, "--log", logPath)
	if !resp.OK {
		e.t.Fatalf("open fixture: %+v", resp)
	}
	if e.desk == nil {
		e.readDesk()
	}
	log = testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(e.t.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		e.t.Fatal(err)
	}
	return string(resp.Target.ID), log, resp.Target.PID
}

// wait waits for a fixture event from index from.
func wait(t *testing.T, log *testenv.FixtureLog, from int, what string, match func(testenv.Event) bool) testenv.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ev, err := log.WaitFrom(ctx, from, match)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
	return ev
}
