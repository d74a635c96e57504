package displays_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// Issue 35, rows 3, 8 and 11: a process of our display killed with -9 under
// the daemon. Each test kills a real process by its PID and checks the
// effects through the process table and the X server, not the daemon.

// markedProc is the live process of desktop id whose command name is comm
// (as /proc/PID/comm has it, 15 bytes at most) and whose command line
// holds every one of args; 0 when none is.
func markedProc(id, comm string, args ...string) int {
	for _, pid := range markedPIDs(id) {
		c, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
		line, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if strings.TrimSpace(string(c)) != comm {
			continue
		}
		all := true
		for _, a := range args {
			all = all && strings.Contains(string(line), a)
		}
		if all {
			return pid
		}
	}
	return 0
}

// listsHandle reports whether a list answer lists the window id.
func listsHandle(list wire.Response, id string) bool {
	for _, ti := range list.Targets {
		if string(ti.ID) == id {
			return true
		}
	}
	return false
}

// mustKill9 kills pid with SIGKILL and waits until the process table says
// it is gone.
func (e *env) mustKill9(pid int, what string) {
	e.T.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		e.T.Fatalf("kill -9 %s (pid %d): %v", what, pid, err)
	}
	if !e.WaitGone(pid, 30*time.Second) {
		e.T.Fatalf("%s (pid %d) still runs after kill -9", what, pid)
	}
}

// xAnswers reports whether display's X server accepts a connection.
func xAnswers(t *testing.T, display string, was []int) bool {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	x, err := x11.Open(ctx, display)
	if err != nil {
		return false
	}
	x.Close()
	// The display's number is free once its server died, and another
	// test's X server (of this package or another run beside it) may take
	// it at once: only one of the dead display's own processes answering
	// counts.
	pid, ok := xServerPID(display)
	return !ok || slices.Contains(was, pid)
}

// xServerPID is the process listening on display's socket (the peer of a
// connection to it); false where it cannot be told.
func xServerPID(display string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(display, ".", 2)[0], ":"))
	if err != nil {
		return 0, false
	}
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strconv.Itoa(n), 5*time.Second)
	if err != nil {
		return 0, false
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return 0, false
	}
	return int(cred.Pid), true
}

// noneLeft waits (bounded) until nothing of desktop d runs and its
// directory is gone, and fails the test naming what is left.
func noneLeft(t *testing.T, d testenv.State, what string) {
	t.Helper()
	var leaks []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		if leaks = testenv.Leaks([]*testenv.Desktop{{ID: d.ID, Dir: d.Dir}}); len(leaks) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(leaks) > 0 {
		t.Fatalf("%s: left behind:\n  %s", what, strings.Join(leaks, "\n  "))
	}
}

// TestXvfbKilled (issue 35 row 3): our Xvfb killed with -9. list is honest
// at once (the window is gone), a verb on the window is refused
// window_gone saying when and why — and still after the display was
// started again, never unknown_target for a handle we minted — the
// session that held it is told once, and the daemon's log says so.
// Before, list showed the window, snapshot answered "internal: x11 … EOF",
// and after the display restarted, unknown_target.
func TestXvfbKilled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.StartServe()
	id, _, app := e.OpenFixture("s1")
	e.Snapshot("s1", id)
	old := *e.Desk
	x := e.xserverPID()
	was := append(markedPIDs(old.ID), x)
	e.mustKill9(x, "the display's Xvfb")
	if xAnswers(t, old.Display, was) {
		t.Fatalf("the X server of %s still answers after kill -9", old.Display)
	}

	list := e.Answer("s1", "list")
	if !list.OK || listsHandle(list, id) {
		t.Fatalf("list after the display died: %+v", list)
	}
	why := []string{id + " was lost at ", "Xvfb pid " + strconv.Itoa(x), old.Display, "killed by signal 9"}
	for _, w := range why {
		if !strings.Contains(list.Note, w) {
			t.Fatalf("the session that held %s was not told it was lost (want %q): %q", id, w, list.Note)
		}
	}
	if again := e.Answer("s1", "list"); strings.Contains(again.Note, "was lost") {
		t.Fatalf("told twice: %q", again.Note)
	}
	if other := e.Answer("s2", "list"); strings.Contains(other.Note, id) {
		t.Fatalf("a session that never held %s was told of it: %q", id, other.Note)
	}
	r := e.Refused(string(target.CodeWindowGone), "s1", "snapshot", id)
	for _, w := range why {
		if !strings.Contains(r.Errout, w) {
			t.Fatalf("snapshot of the lost window does not say %q:\n%s", w, r.Errout)
		}
	}
	// The application went with its display, and nothing of the display
	// is left.
	if !e.WaitGone(app, 30*time.Second) {
		t.Fatalf("the application (pid %d) still runs after its display died", app)
	}
	noneLeft(t, old, "the dead display")

	// The display starts again on the next open; the lost handle stays
	// lost, and is never another window's.
	e.Desk = nil
	id2, _, _ := e.OpenFixture("s1")
	if id2 == id || e.Desk.ID == old.ID {
		t.Fatalf("after the restart: %s on %s (before: %s on %s)", id2, e.Desk.Display, id, old.Display)
	}
	if nx := e.xserverPID(); nx == x {
		t.Fatalf("the same X server pid %d", nx)
	}
	r = e.Refused(string(target.CodeWindowGone), "s1", "key", id, "Return")
	if !strings.Contains(r.Errout, id+" was lost at ") || !strings.Contains(r.Errout, "killed by signal 9") {
		t.Fatalf("key on the lost window after the display restarted:\n%s", r.Errout)
	}
	e.Snapshot("s1", id2)

	log, _ := os.ReadFile(filepath.Join(e.Dir, "serve.log"))
	if !strings.Contains(string(log), "a display died") || !strings.Contains(string(log), string(id)) {
		t.Fatalf("the daemon's log does not say the display died and what was lost:\n%s", log)
	}
}

// TestXpraKilled (issue 35 row 8): a session's xpra server killed with -9.
// Its windows are lost as when our Xvfb dies, watch --xpra is refused
// no_attach saying the xpra display died and when (before, it printed the
// dead socket), and the session's next open --display xpra starts a new
// one (the dead one is not restarted by itself).
func TestXpraKilled(t *testing.T) {
	testenv.NeedIntegration(t, "xpra")
	var xd, nd testenv.State
	noXpraLeft(t, &xd, &nd)
	e := newEnv(t)
	e.StartServe()
	id, app, _ := e.openOnXpra(t, "s1")
	xd = e.xpraDisplay("s1")
	e.OK("s1", "watch", "--xpra", id)
	srv := markedProc(xd.ID, "xpra", "start")
	if srv == 0 {
		t.Fatalf("no xpra server process of display %s", xd.Display)
	}
	was := append(markedPIDs(xd.ID), srv)
	e.mustKill9(srv, "the xpra server")

	list := e.Answer("s1", "list")
	if !list.OK || listsHandle(list, id) {
		t.Fatalf("list after the xpra server died: %+v", list)
	}
	if !strings.Contains(list.Note, id+" was lost at ") || !strings.Contains(list.Note, "xpra server pid "+strconv.Itoa(srv)) {
		t.Fatalf("the session was not told its window was lost: %q", list.Note)
	}
	r := e.Refused(string(target.CodeNoAttach), "s1", "watch", "--xpra", id)
	if !strings.Contains(r.Errout, "xpra display "+xd.Display) || !strings.Contains(r.Errout, "died at ") || !strings.Contains(r.Errout, "killed by signal 9") || strings.Contains(r.Errout, "socket://") {
		t.Fatalf("watch --xpra on a window of the dead xpra display:\n%s", r.Errout)
	}
	e.Refused(string(target.CodeWindowGone), "s1", "snapshot", id)
	if !e.WaitGone(app, 30*time.Second) {
		t.Fatalf("the application (pid %d) still runs after its xpra display died", app)
	}
	noneLeft(t, xd, "the dead xpra display")
	if xAnswers(t, xd.Display, was) {
		t.Fatalf("the X server of the dead xpra display %s still answers", xd.Display)
	}

	// The session's next open starts a new xpra display.
	logPath := filepath.Join(e.Dir, "xpra-fixture-2.jsonl")
	if r := e.Answer("s1", "open", "--display", "xpra", testenv.FixturePython, e.FixtureSrc, "--log", logPath); !r.OK || string(r.Target.ID) == id {
		t.Fatalf("open --display xpra after the first died: %+v", r)
	}
	if nd = e.xpraDisplay("s1"); nd.ID == xd.ID {
		t.Fatalf("the dead xpra display is still recorded: %+v", nd)
	}
	log, _ := os.ReadFile(filepath.Join(e.Dir, "serve.log"))
	if !strings.Contains(string(log), "a display died") {
		t.Fatalf("the daemon's log does not say the xpra display died:\n%s", log)
	}
}

// TestRegistryKilled (issue 35 row 11): the AT-SPI registry of our display
// killed with -9. doctor says in its own words that the registry was not
// answering and that it was started again (before: "… [stale_ref]", and
// nothing restarted it); a new registry runs, and the window's tree reads
// again.
func TestRegistryKilled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.StartServe()
	id, _, app := e.OpenFixture("s1")
	node(t, e.Snapshot("s1", id), "push button", "Alpha")
	reg := markedProc(e.Desk.ID, "at-spi2-registr")
	if reg == 0 {
		t.Fatalf("no at-spi2-registryd of display %s", e.Desk.Display)
	}
	e.mustKill9(reg, "the AT-SPI registry")

	doc := e.OK("s1", "doctor")
	if strings.Contains(doc, "[stale_ref]") || strings.Contains(doc, "stale_ref") {
		t.Fatalf("doctor leaks a refusal code:\n%s", doc)
	}
	if !strings.Contains(doc, "accessibility registry") || !strings.Contains(doc, "not answering") || !strings.Contains(doc, "started again") && !strings.Contains(doc, "started it again") {
		t.Fatalf("doctor does not say the registry was not answering and what it did:\n%s", doc)
	}
	now := markedProc(e.Desk.ID, "at-spi2-registr")
	if now == 0 || now == reg {
		t.Fatalf("no new at-spi2-registryd runs (was %d, now %d)", reg, now)
	}
	node(t, e.Snapshot("s1", id), "push button", "Alpha")
	if syscall.Kill(app, 0) != nil {
		t.Fatal("the application died")
	}
}

// TestXvfbKilledAfterRestart: the Xvfb of a display a restarted daemon
// re-attached (an earlier daemon, killed with -9, started it: it is not
// the new daemon's child) killed with -9 is seen dying too, and its window
// lost with a word.
func TestXvfbKilledAfterRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.StartServe()
	id, _, app := e.OpenFixture("s1")
	old := *e.Desk
	x := e.xserverPID()
	e.Kill9()
	if ls := e.Listed("s1"); ls[id].PID != app { // the CLI starts a daemon, which re-attaches
		t.Fatalf("after the daemon's restart list has %s as %+v", id, ls[id])
	}
	e.mustKill9(x, "the display's Xvfb")
	r := e.Refused(string(target.CodeWindowGone), "s1", "snapshot", id)
	for _, w := range []string{id + " was lost at ", "Xvfb pid " + strconv.Itoa(x), old.Display + " "} {
		if !strings.Contains(r.Errout, w) {
			t.Fatalf("snapshot of the lost window does not say %q:\n%s", w, r.Errout)
		}
	}
	if list := e.Answer("s1", "list"); listsHandle(list, id) {
		t.Fatalf("list after the display died: %+v", list)
	}
	if !e.WaitGone(app, 30*time.Second) {
		t.Fatalf("the application (pid %d) still runs after its display died", app)
	}
	noneLeft(t, old, "the dead display")
}
