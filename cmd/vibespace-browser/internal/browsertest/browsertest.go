// Package browsertest is what the tests of vibespace-browser share, in the
// command's own folder and in the test-only packages beside it (each its
// own test binary, so go test runs them side by side): an isolated
// vibespace driven through the command (Env), and the readers of its
// answers.
package browsertest

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// Chromium is the browser the daemon under test starts.
const Chromium = clitest.Chromium

// Env is one isolated vibespace driven through vibespace-browser.
type Env struct{ *clitest.Env }

// Bin is the vibespace-browser binary Main built (with -race under -race).
var Bin string

// Main is the TestMain of each package of the command's tests: it builds
// the command and its daemon (Bin).
func Main(m *testing.M) { clitest.Main(m, "vibespace-browser", &Bin) }

// New makes an Env for Bin; a failed test shows what its daemon logged.
func New(t testing.TB) *Env {
	t.Helper()
	testenv.NeedIntegration(t)
	clitest.NeedChromium(t)
	e := &Env{clitest.New(t, Bin)}
	e.LogOnFailure()
	return e
}

// Shared makes an Env on the test binary's one daemon (clitest.Shared),
// its Chromium shared as the sessions of one daemon share it: a test that
// neither stops the daemon nor needs its state alone takes it instead of
// New and Serve. Its sessions, their browser contexts and tabs are its
// own; at its end the tabs its sessions list are closed, so that no page
// of it goes on working beside the next test.
func Shared(t testing.TB) *Env {
	t.Helper()
	testenv.NeedIntegration(t)
	clitest.NeedChromium(t)
	e := &Env{clitest.Shared(t, Bin, "--chromium", Chromium)}
	e.LogOnFailure()
	e.waitAhead()
	t.Cleanup(func() {
		for _, s := range e.Sessions() {
			for _, tab := range e.Answer(s, "tab", "list").Targets {
				if r := e.CLI(s, "tab", "close", string(tab.ID)); r.Code != 0 {
					t.Logf("closing session %s's %s at the end: exit %d: %s%s", s, tab.ID, r.Code, r.Out, r.Errout)
				}
			}
		}
	})
	return e
}

// Serve starts the daemon as the test's child, and waits for its browser
// started ahead (waitAhead).
func (e *Env) Serve() {
	e.StartServe("--chromium", Chromium)
	e.waitAhead()
}

// waitAhead waits, when the daemon starts its shared browser ahead (the
// window road's, at its start), until that browser runs, as doctor's tab
// pane row says: the tests' daemons are used the moment they answer,
// where an operator's has started its browser by the time an agent's
// first verb comes. A daemon on the screencast road starts none ahead:
// nothing to wait for. A start that failed is the first verb's to make.
func (e *Env) waitAhead() {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := wire.Dial(ctx, e.Socket())
	if err != nil {
		e.T.Fatalf("the daemon's socket: %v", err)
	}
	defer c.Close()
	last := ""
	for {
		r, err := c.Call(ctx, wire.Request{Verb: "doctor", Session: "probe"})
		if err != nil {
			e.T.Fatalf("doctor, waiting for the browser started ahead (last said: %q): %v", last, err)
		}
		last = ""
		for _, ch := range r.Checks {
			if ch.Name == "tab pane" {
				last = ch.Detail
			}
		}
		if !strings.Contains(last, chromium.AheadStarting) {
			return
		}
		select {
		case <-ctx.Done():
			e.T.Fatalf("the browser started ahead did not run in 3 minutes: doctor says %q", last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// RefusedJSON runs a command with --json and fails unless it is refused
// with code (exit 1): the answer carries the code and its facts.
func (e *Env) RefusedJSON(code, s string, args ...string) daemon.Response {
	e.T.Helper()
	r := e.CLI(s, append([]string{"--json"}, args...)...)
	var resp daemon.Response
	if err := json.Unmarshal([]byte(r.Out), &resp); err != nil {
		e.T.Fatalf("%v: not a JSON answer (exit %d): %v\n%s%s", args, r.Code, err, r.Out, r.Errout)
	}
	if r.Code != 1 || resp.OK || string(resp.Code) != code {
		e.T.Fatalf("%v: want refused %s with exit 1, got exit %d: %s", args, code, r.Code, r.Out)
	}
	return resp
}

// OKJSON runs a command with --json and fails unless it succeeded.
func (e *Env) OKJSON(s string, args ...string) daemon.Response {
	e.T.Helper()
	resp := e.Answer(s, args...)
	if !resp.OK {
		e.T.Fatalf("%v: refused %s: %s (facts %v)", args, resp.Code, resp.Message, resp.Facts)
	}
	return resp
}

// Snapshot is the current tab's tree as JSON.
func (e *Env) Snapshot(s string, args ...string) *target.Snapshot {
	e.T.Helper()
	resp := e.OKJSON(s, append([]string{"snapshot"}, args...)...)
	if resp.Snapshot == nil || resp.Snapshot.Root == nil {
		e.T.Fatalf("snapshot without a tree: %+v", resp)
	}
	return resp.Snapshot
}

// EvalString evaluates expr in the session's tab and answers its string
// value: the page's own answer, a road other than the verbs under test.
func (e *Env) EvalString(s, expr string) string {
	e.T.Helper()
	resp := e.OKJSON(s, "eval", expr)
	var v string
	if err := json.Unmarshal(resp.Value, &v); err != nil {
		e.T.Fatalf("eval %s: %s: %v", expr, resp.Value, err)
	}
	return v
}

// Ref is the ref of the node with role and name.
func Ref(t testing.TB, s *target.Snapshot, role, name string) string {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil || n.Ref == "" {
		t.Fatalf("no %s %q with a ref in the snapshot:\n%s", role, name, s.Text())
	}
	return n.Ref
}

// RefLine matches a text snapshot's line role "name" @eN.
var RefLine = regexp.MustCompile(`(?m)^\s*(.+?) "((?:[^"\\]|\\.)*)" (@e\d+)`)

// TextRef finds role "name" @eN in a text snapshot.
func TextRef(t testing.TB, text, role, name string) string {
	t.Helper()
	for _, m := range RefLine.FindAllStringSubmatch(text, -1) {
		if m[1] == role && m[2] == name {
			return m[3]
		}
	}
	t.Fatalf("no %s %q @ref in:\n%s", role, name, text)
	return ""
}

// ProfileLine is the profile part of a text answer's header line, from
// "profile: " on.
func ProfileLine(t testing.TB, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if _, p, ok := strings.Cut(l, "profile: "); ok {
			return "profile: " + p
		}
	}
	t.Fatalf("the answer names no profile:\n%s", out)
	return ""
}

// WaitCtx bounds waiting for the page to report.
func WaitCtx(t testing.TB) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 60*time.Second)
}
