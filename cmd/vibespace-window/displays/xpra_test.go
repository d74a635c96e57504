package displays_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
)

// xpraDisplay is the record of session s's xpra display in the daemon's
// state file.
func (e *env) xpraDisplay(s string) testenv.State {
	e.T.Helper()
	var displays []struct {
		Display string        `json:"display"`
		Session string        `json:"session"`
		Record  testenv.State `json:"record"`
	}
	b := e.Backend("session_displays", &displays)
	for _, d := range displays {
		if d.Display == "xpra" && d.Session == s && d.Record.ID != "" {
			return d.Record
		}
	}
	e.T.Fatalf("no xpra display record for %s in state: %s", s, b)
	return testenv.State{}
}

// xpraControl runs `xpra control` on display d as a person's client (or
// xpra's own window manager) would act on it: outside the daemon.
func xpraControl(t *testing.T, d testenv.State, args ...string) {
	t.Helper()
	xpraRun(t, d, "control", args...)
}

// xpraInfo is xpra's own account of display d (`xpra info`, parsed).
func xpraInfo(t *testing.T, d testenv.State) xpra.Info {
	t.Helper()
	in, err := xpra.ParseInfo(xpraRun(t, d, "info"))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// xpraRun runs `xpra <verb>` on display d, outside the daemon, and answers
// its output.
func xpraRun(t *testing.T, d testenv.State, verb string, args ...string) string {
	t.Helper()
	conf := filepath.Join(d.Dir, "xpra", "conf")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xpra", append([]string{verb, d.Display, "--socket-dir=" + filepath.Join(d.Dir, "xpra", "sockets")}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(d.Dir, "home"), "XDG_RUNTIME_DIR=" + filepath.Join(d.Dir, "run"),
		"XPRA_SYSTEM_CONF_DIRS=" + conf, "XPRA_USER_CONF_DIRS=" + conf, "XAUTHORITY=" + filepath.Join(d.Dir, "Xauthority"), "DISPLAY=" + d.Display}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xpra %s %v: %v: %s", verb, args, err, out)
	}
	return string(out)
}

// TestXpraDisplay: a window on the session's own xpra display is a target
// like any — its tree, a click by ref and at a point (the fixture's own log
// is the oracle), its pixels — and stays one when xpra hides it (a person
// minimised it: it is shown before the click, which lands), when a person
// attaches xpra's own client, and after the daemon is killed with -9.
// noXpraLeft checks, when the test ends, that nothing of the xpra
// displays ds is left. Call it before newEnv: cleanups run last first, so
// it runs after the daemon stopped.
func noXpraLeft(t *testing.T, ds ...*testenv.State) {
	t.Cleanup(func() {
		for _, d := range ds {
			if leaks := testenv.Leaks([]*testenv.Desktop{{ID: d.ID, Dir: d.Dir}}); d.ID != "" && len(leaks) > 0 {
				t.Errorf("an xpra display left behind:\n  %s", strings.Join(leaks, "\n  "))
			}
		}
	})
}

// openOnXpra opens the fixture on session s's xpra display and waits for
// it to be ready: its handle, its pid and its log.
func (e *env) openOnXpra(t *testing.T, s string) (id string, pid int, log *testenv.FixtureLog) {
	t.Helper()
	logPath := filepath.Join(e.Dir, "xpra-fixture.jsonl")
	resp := e.Answer(s, "open", "--display", "xpra", testenv.FixturePython, e.FixtureSrc, "--log", logPath)
	if !resp.OK {
		t.Fatalf("open --display xpra: %+v", resp)
	}
	log = testenv.OpenFixtureLog(logPath)
	wait(t, log, 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	return string(resp.Target.ID), resp.Target.PID, log
}

func TestXpraDisplay(t *testing.T) {
	testenv.NeedIntegration(t, "xpra")
	var xd, xd2 testenv.State
	noXpraLeft(t, &xd, &xd2)
	e := newEnv(t)
	e.StartServe()
	id, pid, log := e.openOnXpra(t, "s1")
	xd = e.xpraDisplay("s1")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	x, err := x11.Open(ctx, xd.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	xid := findXID(t, ctx, x, pid)
	viewable := func() bool {
		w, err := x.Window(ctx, xid)
		return err == nil && w.Viewable
	}
	if !viewable() {
		t.Fatal("open answered before xpra showed the window")
	}

	// The tree road and the point road.
	snap := e.Snapshot("s1", id)
	press := node(t, snap, "push button", "Alpha")
	from := log.Len()
	e.OK("s1", "click", id, press.Ref)
	wait(t, log, from, "click by ref", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	at := pointOf(t, e, id, press)
	from = log.Len()
	e.OK("s1", "click", id, "--at", at)
	wait(t, log, from, "click --at", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })

	// Hidden by xpra (as a person's client minimising it does): the click
	// shows it first and lands; never a click that goes nowhere.
	wid, ok, err := x.Cardinal(ctx, xid, "_XPRA_WID")
	if err != nil || !ok {
		t.Fatalf("_XPRA_WID: %v %v", ok, err)
	}
	xpraControl(t, xd, "unmap", strconv.Itoa(int(wid)))
	for viewable() {
		select {
		case <-ctx.Done():
			t.Fatal("xpra never hid the window")
		case <-time.After(50 * time.Millisecond):
		}
	}
	from = log.Len()
	e.OK("s1", "click", id, "--at", at)
	wait(t, log, from, "click --at on the window xpra had hidden", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	if !viewable() {
		t.Fatal("the click landed, but the X server says the window is not viewable")
	}

	// A second window opens on top of the first at 0,0 (xpra places them
	// so): a click at a point of the first raises it through xpra (a
	// restack asked of the X server is not honoured) and lands there.
	log2Path := filepath.Join(e.Dir, "xpra-fixture-2.jsonl")
	if r := e.Answer("s1", "open", "--display", "xpra", testenv.FixturePython, e.FixtureSrc, "--log", log2Path); !r.OK {
		t.Fatalf("open a second window on xpra: %+v", r)
	}
	log2 := testenv.OpenFixtureLog(log2Path)
	wait(t, log2, 0, "the second fixture ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	from, from2 := log.Len(), log2.Len()
	e.OK("s1", "click", id, "--at", at)
	wait(t, log, from, "click --at on the covered first window", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	for _, ev := range mustEvents(t, log2)[from2:] {
		if ev.Type == "click" {
			t.Fatalf("the click meant for the first window reached the second: %+v", ev)
		}
	}

	// watch --xpra prints how a person attaches.
	out := e.OK("s1", "watch", "--xpra", id, "--ssh", "ada@build-box")
	sock := ""
	for _, f := range strings.Fields(out) {
		if p, ok := strings.CutPrefix(f, "socket://"); ok && sock == "" {
			sock = p
		}
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 || !strings.Contains(out, "ada@build-box") || !strings.Contains(out, "ssh -N") {
		t.Fatalf("watch --xpra:\n%s", out)
	}
	e.Refused(string(target.CodeNoAttach), "s1", "watch", "--xpra", e.openFixtureID("s1"))

	// Another session's xpra display is its own: a person attached to
	// s1's never sees s2's windows.
	other := filepath.Join(e.Dir, "xpra-s2.jsonl")
	gtk4 := wintest.Fixture(t, "gtk4.py")
	r2 := e.Answer("s2", "open", "--display", "xpra", testenv.FixturePython, gtk4, "--log", other)
	if !r2.OK {
		t.Fatalf("s2 open --display xpra: %+v", r2)
	}
	if xd2 = e.xpraDisplay("s2"); xd2.Display == xd.Display || xd2.ID == xd.ID {
		t.Fatalf("s2's xpra display is s1's: %s", xd2.Display)
	}

	// A person runs the printed local command: s1's windows appear on
	// their desktop (a second Xvfb stands for it), and every answer about
	// them says a person may be driving, until they leave.
	person := testenv.NewDesktop(t)
	local := ""
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "xpra attach socket://") && local == "" {
			local = l
		}
	}
	detach := testenv.AttachXpra(t, person, local)
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	if _, err := testenv.WindowTitled(sctx, person.Display, 0, "vibespace fixture"); err != nil {
		t.Fatalf("s1's window never appeared on the person's display: %v", err)
	}
	scancel()
	// xpra's own accounts: s2's window is on s2's display, and none of
	// s1's display's windows is s2's (the person sees those only).
	in1, in2 := xpraInfo(t, xd), xpraInfo(t, xd2)
	if !slices.ContainsFunc(in2.Windows, func(w xpra.Window) bool { return w.PID == r2.Target.PID }) {
		t.Fatalf("s2's window (pid %d) is not on s2's xpra display: %+v", r2.Target.PID, in2.Windows)
	}
	if slices.ContainsFunc(in1.Windows, func(w xpra.Window) bool { return w.PID == r2.Target.PID }) || in1.Clients != 1 || in2.Clients != 0 {
		t.Fatalf("s1's display: %d clients, windows %+v; s2's: %d clients (s2's pid %d)", in1.Clients, in1.Windows, in2.Clients, r2.Target.PID)
	}
	var said string
	for deadline := time.Now().Add(30 * time.Second); ; {
		said = e.OK("s1", "list")
		if strings.Contains(said, "a person may be driving") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(said, "a person may be driving") || !strings.Contains(said, "xpra client") || !strings.Contains(said, "takeover "+id) {
		t.Fatalf("list while a person is attached:\n%s", said)
	}
	if ans := e.OK("s1", "key", id, "End"); !strings.Contains(ans, "a person may be driving") {
		t.Fatalf("an answer about the window while a person is attached:\n%s", ans)
	}
	if s2 := e.OK("s2", "list"); strings.Contains(s2, "a person may be driving") {
		t.Fatalf("s2's windows say a person drives them:\n%s", s2)
	}
	e.OK("s1", "takeover", id)
	e.Refused("window_paused", "s1", "key", id, "End")
	e.OK("s1", "handback", id)
	detach()
	for deadline := time.Now().Add(30 * time.Second); ; {
		said = e.OK("s1", "list")
		if !strings.Contains(said, "a person may be driving") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(said, "a person may be driving") {
		t.Fatalf("list after the person left:\n%s", said)
	}

	// kill -9: the same window answers again, the same process.
	e.Kill9()
	t.Cleanup(func() {
		if e.DaemonPID() == 0 {
			e.CLI("s1", "status")
		}
	})
	snap = e.Snapshot("s1", id)
	from = log.Len()
	e.OK("s1", "click", id, node(t, snap, "push button", "Alpha").Ref)
	wait(t, log, from, "click by ref after kill -9", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	if ls := e.Listed("s1"); ls[id].PID != pid {
		t.Fatalf("after the restart list has %s as %+v", id, ls[id])
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("the fixture died")
	}
	e.OK("s1", "close", id)
}

// openFixtureID opens the fixture on our Xvfb and answers its handle.
func (e *env) openFixtureID(s string) string {
	id, _, _ := e.OpenFixture(s)
	return id
}

// findXID is the X window of process pid on x's display.
func findXID(t *testing.T, ctx context.Context, x *x11.Display, pid int) x11.WindowID {
	t.Helper()
	ws, err := x.WindowsOfPID(ctx, pid)
	if err != nil || len(ws) == 0 {
		t.Fatalf("no window of pid %d: %v", pid, err)
	}
	return ws[0].ID
}

// pointOf is node n's centre in the pixels of the window's screenshot, as
// "x,y".
func pointOf(t *testing.T, e *env, id string, n *target.Node) string {
	t.Helper()
	shot := e.Answer("s1", "screenshot", id, "--out", filepath.Join(e.Dir, "pointof.png"))
	if !shot.OK || shot.Bounds == nil || n.Bounds == nil {
		t.Fatalf("screenshot: %+v", shot)
	}
	return strconv.Itoa(n.Bounds.X-shot.Bounds.X+n.Bounds.W/2) + "," + strconv.Itoa(n.Bounds.Y-shot.Bounds.Y+n.Bounds.H/2)
}

// mustEvents is every event of a fixture's log.
func mustEvents(t *testing.T, log *testenv.FixtureLog) []testenv.Event {
	t.Helper()
	evs, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	return evs
}
