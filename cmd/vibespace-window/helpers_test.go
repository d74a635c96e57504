package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/testenv"
)

// bin is the vibespace-window binary TestMain built (with -race under
// -race).
var bin string

func TestMain(m *testing.M) {
	clitest.RelayMain() // ssh's ProxyCommand to the remote-host test's sshd
	clitest.Main(m, "vibespace-window", &bin)
}

// env is one isolated vibespace (clitest.Env) with the fixture app.
type env struct {
	*clitest.Env
	fixtureSrc string
	desk       *testenv.State // the daemon's display, once it is up
	fixtures   atomic.Int64
}

type result = clitest.Result

func newEnv(t testing.TB) *env {
	t.Helper()
	testenv.NeedIntegration(t)
	src, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{fixtureSrc: src}
	// Registered before clitest.New's cleanup, so it runs after the
	// daemon stopped: nothing of its display may be left.
	t.Cleanup(func() {
		if e.desk != nil {
			if leaks := testenv.Leaks([]*testenv.Desktop{{ID: e.desk.ID, Dir: e.desk.Dir}}); len(leaks) > 0 {
				t.Errorf("left behind:\n  %s", strings.Join(leaks, "\n  "))
			}
		}
	})
	e.Env = clitest.New(t, bin)
	return e
}

// backend decodes the record the daemon's state file keeps under key
// ("displays", "session_displays") into v, and answers the file.
func (e *env) backend(key string, v any) []byte {
	e.T.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "state.json"))
	if err != nil {
		e.T.Fatal(err)
	}
	var st struct {
		Backends map[string]json.RawMessage `json:"backends"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		e.T.Fatal(err)
	}
	json.Unmarshal(st.Backends[key], v)
	return b
}

// readDesk records the daemon's display from its state file.
func (e *env) readDesk() *testenv.State {
	e.T.Helper()
	var displays map[string]testenv.State
	b := e.backend("displays", &displays)
	d := displays["xvfb"]
	if d.ID == "" {
		e.T.Fatalf("no display record in state: %s", b)
	}
	e.desk = &d
	return &d
}

// openFixture opens the fixture app as session s.
func (e *env) openFixture(s string) (id string, log *testenv.FixtureLog, pid int) {
	e.T.Helper()
	logPath := filepath.Join(e.Dir, "fixture-"+strconv.FormatInt(e.fixtures.Add(1), 10)+".jsonl")
	resp := e.Answer(s, "open", testenv.FixturePython, e.fixtureSrc, "--log", logPath)
	if !resp.OK {
		e.T.Fatalf("open fixture: %+v", resp)
	}
	if e.desk == nil {
		e.readDesk()
	}
	log = testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(e.T.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		e.T.Fatal(err)
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
