package clitest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// shared is the one daemon a test binary's tests may share (Shared):
// started by the first test that asks, stopped by Main once every test
// has run.
var shared struct {
	mu    sync.Mutex
	env   *Env // its Home, Run, Dir and Serve; T is the test that started it
	err   string
	tests int // tests given an Env on it, naming their sessions
}

// Shared is an Env on the test binary's one daemon, started (StartServe
// with flags, the same for every caller) by the first test that asks and
// stopped by Main: what a daemon of its own per test would cost, once.
// The test's sessions are its own — the session s the test names is
// t<n>.s on the daemon (Session), so no other test's session, tab,
// budget or trace is its — and its scratch directory is its own; the
// state directory (Home) is the daemon's, every test's. A data race the
// daemon reports fails the test that sees it, and the binary. The test
// must not stop the daemon (Kill9, Stop): a test that needs that, or a
// daemon's state of its own, takes New.
func Shared(t testing.TB, bin string, flags ...string) *Env {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.err != "" {
		t.Fatalf("the shared daemon did not start: %s", shared.err)
	}
	if shared.env == nil {
		dir, err := os.MkdirTemp("", "vibespace-shared-")
		if err != nil {
			t.Fatal(err)
		}
		e := &Env{T: t, Bin: bin, Dir: dir, Home: filepath.Join(dir, "home"), Run: filepath.Join(dir, "run")}
		if err := os.MkdirAll(e.Run, 0o700); err != nil {
			t.Fatal(err)
		}
		shared.err = "it failed in " + t.Name()
		up := false
		defer func() { // a failed start ends t here, and shared.err says so to the next
			if !up {
				if e.Serve != nil {
					e.Serve.Process.Kill()
					<-e.ServeDone
				}
				os.RemoveAll(dir)
			}
		}()
		e.StartServe(flags...)
		up, shared.err, shared.env = true, "", e
	}
	if shared.env.Bin != bin || !slices.Equal(shared.env.Serve.Args[2:], flags) {
		t.Fatalf("the shared daemon runs %v, this test asks for %s %v", shared.env.Serve.Args, bin, flags)
	}
	shared.tests++
	e := &Env{T: t, Bin: bin, Dir: t.TempDir(), Home: shared.env.Home, Run: shared.env.Run,
		prefix: fmt.Sprintf("t%d.", shared.tests), daemonDir: shared.env.Dir, used: &sessionsUsed{}}
	t.Cleanup(func() {
		if logs := raceLogs(shared.env); logs != "" {
			t.Errorf("the shared daemon reported a data race:\n%s", logs)
		}
	})
	return e
}

// Session is the name session s of this Env has on its daemon: s itself,
// or on the shared daemon the test's own name for it.
func (e *Env) Session(s string) string { return e.prefix + s }

// Sessions are the sessions this Env's commands ran as, by the names the
// test gave them, in the order first used.
func (e *Env) Sessions() []string {
	if e.used == nil {
		return nil
	}
	e.used.mu.Lock()
	defer e.used.mu.Unlock()
	return slices.Clone(e.used.names)
}

// stopShared ends the shared daemon, if a test started it, and removes its
// directory: it answers what went wrong (a daemon that did not stop on
// SIGTERM, a data race it reported), "" when nothing did.
func stopShared() string {
	shared.mu.Lock()
	e := shared.env
	shared.env = nil
	shared.mu.Unlock()
	if e == nil {
		return ""
	}
	defer os.RemoveAll(e.Dir)
	var problems []string
	e.Serve.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.ServeDone:
	case <-time.After(30 * time.Second):
		problems = append(problems, "the shared daemon did not stop on SIGTERM; killed")
		e.Serve.Process.Kill()
		<-e.ServeDone
	}
	if logs := raceLogs(e); logs != "" {
		problems = append(problems, "the shared daemon reported a data race:\n"+logs)
	}
	return strings.Join(problems, "\n")
}

// raceLogs is every log of e's daemons that reports a data race, named and
// whole; "" when none does.
func raceLogs(e *Env) string {
	var out []string
	for _, f := range []string{filepath.Join(e.Dir, "serve.log"), filepath.Join(e.Home, "daemon.log"), filepath.Join(e.Home, "daemon.stderr")} {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "DATA RACE") {
			out = append(out, filepath.Base(f)+":\n"+string(b))
		}
	}
	return strings.Join(out, "\n")
}
