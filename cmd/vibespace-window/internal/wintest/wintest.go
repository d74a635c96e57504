// Package wintest is what the tests of vibespace-window share, in the
// command's own folder and in the test-only packages beside it (each its
// own test binary, so go test runs them side by side): an isolated
// vibespace with the GTK 3 fixture app at hand (Env), and the wait for a
// fixture's event.
package wintest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// Env is one isolated vibespace (clitest.Env) with the fixture app.
type Env struct {
	*clitest.Env
	FixtureSrc string         // testenv/fixture/fixture.py
	Desk       *testenv.State // the daemon's display, once it is up
	Fixtures   atomic.Int64   // fixtures opened, naming their logs
}

// Bin is the vibespace-window binary Main built (with -race under -race).
var Bin string

// Main is the TestMain of each package of the command's tests: it builds
// the command and its daemon (Bin), and relays ssh's ProxyCommand to the
// remote-host tests' sshd when it is run as that.
func Main(m *testing.M) {
	clitest.RelayMain()
	clitest.Main(m, "vibespace-window", &Bin)
}

// New makes an Env for Bin: at its end, once its daemon stopped, nothing
// of the daemon's display may be left.
func New(t testing.TB) *Env {
	t.Helper()
	testenv.NeedIntegration(t)
	e := &Env{FixtureSrc: Fixture(t, "fixture.py")}
	// Registered before clitest.New's cleanup, so it runs after the
	// daemon stopped: nothing of its display may be left.
	t.Cleanup(func() {
		if e.Desk != nil {
			if leaks := testenv.Leaks([]*testenv.Desktop{{ID: e.Desk.ID, Dir: e.Desk.Dir}}); len(leaks) > 0 {
				t.Errorf("left behind:\n  %s", strings.Join(leaks, "\n  "))
			}
		}
	})
	e.Env = clitest.New(t, Bin)
	// No browser started ahead (the window road's, at the daemon's
	// start): these tests drive windows, and each starts daemons of its
	// own, which would each start one for nothing.
	e.Extra = append(e.Extra, daemoncall.BrowserAheadEnv+"=false")
	return e
}

// Fixture is the path of the fixture script name (testenv/fixture/name),
// from the module's root.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(clitest.ModuleRoot(t), "testenv", "fixture", name)
}

// Backend decodes the record the daemon's state file keeps under key
// ("displays", "session_displays") into v, and answers the file.
func (e *Env) Backend(key string, v any) []byte {
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

// ReadDesk records the daemon's display from its state file.
func (e *Env) ReadDesk() *testenv.State {
	e.T.Helper()
	var displays map[string]testenv.State
	b := e.Backend("displays", &displays)
	d := displays["xvfb"]
	if d.ID == "" {
		e.T.Fatalf("no display record in state: %s", b)
	}
	e.Desk = &d
	return &d
}

// OpenFixture opens the fixture app as session s, and waits for its
// "ready" line.
func (e *Env) OpenFixture(s string) (id string, log *testenv.FixtureLog, pid int) {
	e.T.Helper()
	logPath := filepath.Join(e.Dir, "fixture-"+strconv.FormatInt(e.Fixtures.Add(1), 10)+".jsonl")
	resp := e.Answer(s, "open", testenv.FixturePython, e.FixtureSrc, "--log", logPath)
	if !resp.OK {
		e.T.Fatalf("open fixture: %+v", resp)
	}
	if e.Desk == nil {
		e.ReadDesk()
	}
	log = testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(e.T.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		e.T.Fatal(err)
	}
	return string(resp.Target.ID), log, resp.Target.PID
}

// Wait waits (30 s at most) for a fixture event from index from.
func Wait(t *testing.T, log *testenv.FixtureLog, from int, what string, match func(testenv.Event) bool) testenv.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ev, err := log.WaitFrom(ctx, from, match)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
	return ev
}

// Node finds a node of the snapshot by role and name.
func Node(t *testing.T, s *target.Snapshot, role, name string) *target.Node {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil {
		t.Fatalf("no %s %q in the snapshot", role, name)
	}
	return n
}

// Snapshot is the window id's tree as session s reads it (JSON).
func (e *Env) Snapshot(s, id string) *target.Snapshot {
	e.T.Helper()
	resp := e.Answer(s, "snapshot", id)
	if !resp.OK || resp.Snapshot == nil {
		e.T.Fatalf("snapshot: %+v", resp)
	}
	return resp.Snapshot
}

// Centre is the centre of n in the window's own pixels.
func (e *Env) Centre(t *testing.T, s, id string, n *target.Node) string {
	t.Helper()
	shot := e.Answer(s, "screenshot", id, "--out", filepath.Join(e.Dir, "shot.png"))
	if !shot.OK || n.Bounds == nil {
		t.Fatalf("screenshot %+v / bounds %v", shot, n.Bounds)
	}
	return fmt.Sprintf("%d,%d", n.Bounds.X-shot.Bounds.X+n.Bounds.W/2, n.Bounds.Y-shot.Bounds.Y+n.Bounds.H/2)
}

// CheckAudit checks the audit log: one line per verb, never the typed text.
func (e *Env) CheckAudit(t *testing.T, typed ...string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range typed {
		if strings.Contains(string(b), s) {
			t.Fatalf("the audit log contains typed text %q", s)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["verb"] == nil || m["session"] == nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
	}
}

// MarkedPIDs lists live processes carrying the desktop's marker.
func MarkedPIDs(id string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	want := "VIBESPACE_TESTENV=" + id
	for _, en := range ents {
		var pid int
		if _, err := fmt.Sscanf(en.Name(), "%d", &pid); err != nil || clitest.Exited(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", en.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if kv == want {
				out = append(out, pid)
			}
		}
	}
	return out
}

// Listed is what list answers session s, by handle.
func (e *Env) Listed(s string) map[string]wire.TargetInfo {
	e.T.Helper()
	resp := e.Answer(s, "list")
	if !resp.OK {
		e.T.Fatalf("list: %+v", resp)
	}
	out := map[string]wire.TargetInfo{}
	for _, ti := range resp.Targets {
		out[string(ti.ID)] = ti
	}
	return out
}

// SnapBody is a text snapshot answer from its header on.
func SnapBody(t testing.TB, out string) string {
	t.Helper()
	// The header line is left out when the previous answer said it
	// (daemon/headers): the snapshot's own header may come first.
	i := strings.Index("\n"+out, "\n# ")
	if i < 0 {
		t.Fatalf("no snapshot header in:\n%s", out)
	}
	return out[i:]
}

// EffectOf fails unless resp answered with an effect of word.
func EffectOf(t *testing.T, resp wire.Response, word target.EffectWord) *target.Effect {
	t.Helper()
	if !resp.OK || resp.Effect == nil || resp.Effect.Word != word {
		t.Fatalf("want effect %s, got %+v (ok %v %s: %s, did %q)", word, resp.Effect, resp.OK, resp.Code, resp.Message, resp.Did)
	}
	return resp.Effect
}
