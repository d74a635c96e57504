package windows_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/testenv"
)

// processRuns reports whether pid runs (not a zombie).
func processRuns(pid int) bool { return syscall.Kill(pid, 0) == nil && !clitest.Exited(pid) }

// openFixtureIn opens the fixture app as session s with open's own flags
// (--mode …) before it.
func (e *env) openFixtureIn(s string, flags ...string) (id string, log *testenv.FixtureLog, pid int, out string) {
	e.T.Helper()
	logPath := filepath.Join(e.Dir, "fixture-"+strconv.FormatInt(e.Fixtures.Add(1), 10)+".jsonl")
	args := append(append([]string{"open"}, flags...), testenv.FixturePython, e.FixtureSrc, "--log", logPath)
	out = e.OK(s, args...)
	if e.Desk == nil {
		e.ReadDesk()
	}
	log = testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(e.T.Context(), 30*time.Second)
	defer cancel()
	ready, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" })
	if err != nil {
		e.T.Fatal(err)
	}
	id, _, _ = strings.Cut(out, " ")
	return id, log, ready.PID, out
}

// nothingSince fails unless the fixture's log holds no click or button
// event from index from up to the key event that marks the end (a verb
// sent after the one that must have done nothing, so the log is read only
// once the application handled everything before it).
func nothingSince(t *testing.T, e *env, log *testenv.FixtureLog, s, id string, from int, what string) {
	t.Helper()
	e.OK(s, "key", id, "F7")
	end := wait(t, log, from, "the F7 after "+what, func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "F7" })
	evs, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs[from:] {
		if ev.Seq >= end.Seq {
			break
		}
		if ev.Type == "click" || ev.Type == "button" {
			t.Fatalf("%s reached the application: %+v", what, ev)
		}
	}
}

// TestWindowModes drives a GTK window through its three modes from the
// command line: pixels refuses the tree verbs and clicks at a pixel, tree
// refuses the pixel and clicks the node, auto does both; a bad word is
// bad_mode; the mode is kept across a daemon killed and restarted. Every
// effect is read from the fixture's own log.
func TestWindowModes(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	r := e.Refused("bad_mode", "s1", "open", "--mode", "pixel", testenv.FixturePython, e.FixtureSrc)
	if !strings.Contains(r.Errout, "auto, tree or pixels") {
		t.Fatalf("bad_mode says the words: %s", r.Errout)
	}
	id, log, pid, out := e.openFixtureIn("s1", "--mode", "pixels")
	if !strings.Contains(out, " · mode: pixels\n") {
		t.Fatalf("open --mode pixels answer:\n%s", out)
	}
	if out := e.OK("s1", "list"); strings.Count(out, "\n") != 1 || !strings.Contains(out, id+` "vibespace fixture"`) || !strings.Contains(out, "mode: pixels") {
		t.Fatalf("list (the refused open started nothing; the window says its mode):\n%s", out)
	}

	// pixels: the tree verbs are refused, naming how to switch.
	r = e.Refused("mode_pixels", "s1", "snapshot", id)
	if !strings.Contains(r.Errout, "vibespace-window mode "+id+" tree") || !strings.Contains(r.Errout, "mode: pixels") {
		t.Fatalf("mode_pixels says how to switch: %s", r.Errout)
	}
	e.Refused("mode_pixels", "s1", "click", id, "@e1")
	e.Refused("mode_pixels", "s1", "type", id, "@e1", "x")
	if a := e.Answer("s1", "snapshot", id); a.OK || a.Target == nil || a.Target.Mode != "pixels" {
		t.Fatalf("--json names the mode: %+v", a)
	}
	e.shot("s1", id)

	// tree: the tree reads; a pixel is refused and reaches nothing.
	out = e.OK("s1", "mode", id, "tree")
	if !strings.Contains(out, "mode: tree") || !strings.Contains(out, "was pixels") {
		t.Fatalf("mode tree: %s", out)
	}
	snap := e.Snapshot("s1", id)
	alpha := node(t, snap, "push button", "Alpha")
	at := e.Centre(t, "s1", id, alpha)
	from := log.Len()
	r = e.Refused("mode_tree", "s1", "click", id, "--at", at)
	if !strings.Contains(r.Errout, "vibespace-window mode "+id+" pixels") {
		t.Fatalf("mode_tree says how to switch: %s", r.Errout)
	}
	e.Refused("mode_tree", "s1", "scroll", id, "down", "--at", at)
	nothingSince(t, e, log, "s1", id, from, "a click --at refused mode_tree")
	from = log.Len()
	e.OK("s1", "click", id, alpha.Ref)
	wait(t, log, from, "the click on Alpha by its ref", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })

	// pixels again: the same pixel clicks the button.
	e.OK("s1", "mode", id, "pixels")
	from = log.Len()
	out = e.OK("s1", "click", id, "--at", at)
	if !strings.Contains(out, "[by point]") {
		t.Fatalf("click --at in pixels mode: %s", out)
	}
	wait(t, log, from, "the click at Alpha's pixel", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	from = log.Len()
	e.Refused("mode_pixels", "s1", "click", id, alpha.Ref)
	nothingSince(t, e, log, "s1", id, from, "a click @ref refused mode_pixels")

	// auto: resolved to tree (the fixture's frame has children); both run.
	out = e.OK("s1", "mode", id, "auto")
	if !strings.Contains(out, "mode: auto → tree") {
		t.Fatalf("mode auto: %s", out)
	}
	e.Snapshot("s1", id)
	from = log.Len()
	e.OK("s1", "click", id, "--at", at)
	wait(t, log, from, "the click at Alpha's pixel under auto", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	r = e.Refused("bad_mode", "s1", "mode", id, "banana")
	if !strings.Contains(r.Errout, `"banana" is not a mode`) {
		t.Fatal(r.Errout)
	}
	if out := e.OK("s1", "list"); !strings.Contains(out, "mode: auto → tree") {
		t.Fatalf("list after a bad word: %s", out)
	}

	// Kept across a daemon killed and restarted (the CLI starts one).
	e.OK("s1", "mode", id, "pixels")
	e.Kill9()
	if out := e.OK("s1", "list"); !strings.Contains(out, id+` "vibespace fixture"`) || !strings.Contains(out, "mode: pixels") {
		t.Fatalf("after a restart, list:\n%s", out)
	}
	e.Refused("mode_pixels", "s1", "snapshot", id)
	from = log.Len()
	e.OK("s1", "click", id, "--at", at)
	wait(t, log, from, "the click at Alpha's pixel after the restart", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	if !processRuns(pid) {
		t.Fatalf("the fixture (pid %d) died", pid)
	}
}

// TestAutoWithoutTree: an application that puts no tree on the bus opens
// as auto → pixels, saying why; its tree verbs are refused no_tree with the
// mode in the facts, and its pixels are clicked.
func TestAutoWithoutTree(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	logPath := filepath.Join(e.Dir, "no-bridge.jsonl")
	out := e.OK("s1", "open", "env", "NO_AT_BRIDGE=1", testenv.FixturePython, e.FixtureSrc, "--log", logPath)
	e.ReadDesk()
	log := testenv.OpenFixtureLog(logPath)
	ready := wait(t, log, 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	if !strings.Contains(out, "mode: auto → pixels (no accessible tree: the application (pid "+strconv.Itoa(ready.PID)+") is not on the accessibility bus)") {
		t.Fatalf("open answer:\n%s", out)
	}
	id, _, _ := strings.Cut(out, " ")
	r := e.Refused("no_tree", "s1", "snapshot", id)
	if !strings.Contains(r.Errout, "mode=auto") || !strings.Contains(r.Errout, "resolved=pixels") || !strings.Contains(r.Errout, "auto → pixels") {
		t.Fatalf("no_tree names the mode: %s", r.Errout)
	}
	if a := e.Answer("s1", "list"); len(a.Targets) != 1 || a.Targets[0].Resolved != "pixels" || !strings.Contains(a.Targets[0].ModeWhy, "not on the accessibility bus") {
		t.Fatalf("list --json: %+v", a.Targets)
	}
	// Its keys still arrive.
	from := log.Len()
	e.OK("s1", "key", id, "F7")
	wait(t, log, from, "F7", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "F7" })
	// tree mode on it: the law still says no tree.
	e.OK("s1", "mode", id, "tree")
	e.Refused("no_tree", "s1", "snapshot", id)
	if !processRuns(ready.PID) {
		t.Fatalf("the fixture (pid %d) died", ready.PID)
	}
}
