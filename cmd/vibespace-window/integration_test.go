package main_test

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func TestWholeLoop(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	out := e.OK("s1", "list")
	if !strings.Contains(out, id+` "vibespace fixture"`) || !strings.Contains(out, "held by s1") {
		t.Fatalf("list: %s", out)
	}
	text := e.OK("s1", "snapshot", id, "--interactive")
	if !strings.Contains(text, `push button "Alpha" @e`) {
		t.Fatalf("snapshot -i:\n%s", text)
	}
	snap := e.Snapshot("s1", id)

	from := log.Len()
	out = e.OK("s1", "click", id, node(t, snap, "push button", "Alpha").Ref)
	if !strings.Contains(out, "[by tree]") || !strings.Contains(out, id+` "vibespace fixture" · lease: yours`) {
		t.Fatalf("click answer: %s", out)
	}
	wait(t, log, from, "the click on Alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })

	from = log.Len()
	e.OK("s1", "type", id, node(t, snap, "text", "Name").Ref, "héllo wörld")
	wait(t, log, from, "the text in the entry", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "entry" && ev.Text == "héllo wörld"
	})

	// Keys: focus the notes by a click at its centre, then type and press.
	notes := node(t, snap, "text", "Notes")
	from = log.Len()
	out = e.OK("s1", "click", id, "--at", e.Centre(t, "s1", id, notes))
	if !strings.Contains(out, "[by point]") {
		t.Fatal(out)
	}
	wait(t, log, from, "focus on the notes", func(ev testenv.Event) bool { return ev.Type == "focus" && ev.Widget == "notes" })
	// type and key answer only once the application has handled the keys
	// (a GTK client answers _NET_WM_PING after the events queued before
	// it), so the fixture's own log already holds their effect when the
	// verb returns: no waiting here.
	handled := func(what string, from int, match func(testenv.Event) bool) {
		t.Helper()
		evs, err := log.Events()
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs[min(from, len(evs)):] {
			if match(ev) {
				return
			}
		}
		t.Fatalf("%s answered before the application handled the keys: its log lacks them", what)
	}
	from = log.Len()
	out = e.OK("s1", "type", id, "typed as keys")
	// (The answer's effect may say "confirmed": what the application
	// cannot confirm is said as "cannot confirm".)
	if strings.Contains(out, "cannot confirm") {
		t.Fatalf("the fixture speaks _NET_WM_PING, yet type could not confirm: %s", out)
	}
	handled("type", from, func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "notes" && ev.Text == "typed as keys"
	})
	from = log.Len()
	e.OK("s1", "key", id, "ctrl+a")
	handled("key", from, func(ev testenv.Event) bool {
		return ev.Type == "key" && ev.Keysym == "a" && len(ev.Modifiers) == 1 && ev.Modifiers[0] == "control"
	})
	from = log.Len()
	e.OK("s1", "scroll", id, "down", "--by", "2", "--at", e.Centre(t, "s1", id, row1(t, snap)))
	wait(t, log, from, "the scroll", func(ev testenv.Event) bool { return ev.Type == "scroll" })

	// A node without Action is refused no_action: never a coordinate click.
	area := snap.Root.Find(func(n *target.Node) bool { return n.Name == "Press area" && !n.Implements("Action") })
	if area == nil || area.Ref == "" {
		t.Fatal("the fixture's Press area (no Action) is not in the snapshot")
	}
	{
		from = log.Len()
		r := e.Refused("no_action", "s1", "click", id, area.Ref)
		if !strings.Contains(r.Errout, "interfaces=") {
			t.Fatalf("no_action names the node's interfaces: %s", r.Errout)
		}
		if evs, _ := log.Events(); len(evs) > from {
			for _, ev := range evs[from:] {
				if ev.Type == "button" {
					t.Fatal("a no_action click reached the application")
				}
			}
		}
	}
	e.CheckAudit(t, "héllo", "typed as keys")
}

// row1 is the first row of the fixture's list.
func row1(t *testing.T, s *target.Snapshot) *target.Node {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Name == "Row 1" && n.Bounds != nil })
	if n == nil {
		t.Fatal("no Row 1 in the snapshot")
	}
	return n
}

func TestSessions(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, pid := e.OpenFixture("s1")
	if out := e.OK("s2", "list"); strings.Contains(out, id) {
		t.Fatalf("s2 lists s1's window: %s", out)
	}
	e.Refused("not_exposed", "s2", "snapshot", id)
	e.Refused("not_exposed", "s2", "key", id, "Return")
	e.OK("s1", "share", id, "--with", "s2")
	r := e.Refused("held", "s2", "key", id, "Return")
	if !strings.Contains(r.Errout, "holder=s1") {
		t.Fatalf("held names the holder: %s", r.Errout)
	}
	e.Refused("held", "s2", "attach", id)
	e.OK("s1", "detach", id)
	from := log.Len()
	e.OK("s2", "key", id, "Return")
	wait(t, log, from, "s2's Return", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "Return" })
	e.Refused("held", "s1", "key", id, "Return")
	e.Refused("held", "s1", "close", id)
	out := e.OK("s2", "close", id)
	if !strings.Contains(out, "stopped") {
		t.Fatalf("close: %s", out)
	}
	if syscall.Kill(pid, 0) == nil && !clitest.Exited(pid) {
		t.Fatalf("the application (pid %d) still runs after close", pid)
	}
	if out := e.OK("s1", "list"); strings.Contains(out, id) {
		t.Fatalf("a closed window is still listed: %s", out)
	}
	e.Refused("unknown_target", "s2", "snapshot", id)
}

// keysDown asks the X server, over the test's own connection, which keys
// are down now.
func keysDown(t *testing.T, display string) []int {
	t.Helper()
	x, err := x11.Open(t.Context(), display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	down, err := x.KeysDown(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return down
}

func TestTakeover(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	e.OK("s1", "share", id, "--with", "operator") // a session takes over only what it sees
	snap := e.Snapshot("s1", id)
	e.OK("s1", "click", id, "--at", e.Centre(t, "s1", id, node(t, snap, "text", "Notes")))
	// 400 ASCII characters, then 1000 Greek letters that the keymap lacks
	// (1400 in all, under the 1500 that can be typed as keys): those are
	// typed through rebound spare keycodes, each batch synced with the
	// application, so the verb is surely still in flight when the takeover
	// arrives (plain ASCII can finish first on a quiet machine).
	var greek strings.Builder
	for i := range 1000 {
		greek.WriteRune('α' + rune(i%24))
	}
	long := strings.Repeat("takeover-secret ", 25) + greek.String()
	from := log.Len()
	typed := make(chan result, 1)
	go func() { typed <- e.CLI("s1", "type", id, long) }()
	wait(t, log, from, "typing to begin", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "notes" })
	out := e.OK("operator", "takeover", id, "--as", "alice")
	if !strings.Contains(out, "paused") {
		t.Fatalf("takeover answer: %s", out)
	}
	r := <-typed
	if r.Code != 1 || !strings.Contains(r.Errout, "[window_paused]") || !strings.Contains(r.Errout, "partial=true") {
		t.Fatalf("the type in flight: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	if down := keysDown(t, e.Desk.Display); len(down) > 0 {
		t.Fatalf("keys still down after takeover: %v", down)
	}
	evs, _ := log.Events()
	last := ""
	for _, ev := range evs {
		if ev.Type == "text" && ev.Widget == "notes" {
			last = ev.Text
		}
	}
	if len(last) >= len(long) {
		t.Fatal("the whole text arrived: the takeover did not cut it")
	}
	r = e.Refused("window_paused", "s1", "snapshot", id)
	if !strings.Contains(r.Errout, "alice") {
		t.Fatalf("window_paused names who: %s", r.Errout)
	}
	e.Refused("window_paused", "s1", "key", id, "Return")
	e.Refused("window_paused", "s1", "handback", id, "--as", "alice") // the paused agent cannot hand itself back
	e.OK("operator", "handback", id, "--as", "alice")
	first := e.OK("s1", "key", id, "End")
	if strings.Count(first, "control came back") != 1 {
		t.Fatalf("the first answer after handback: %s", first)
	}
	if second := e.OK("s1", "key", id, "End"); strings.Contains(second, "control came back") {
		t.Fatalf("told twice: %s", second)
	}
	e.CheckAudit(t, "takeover-secret")
}

func TestKill9AndRestart(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	live, log, _ := e.OpenFixture("s1")
	dead, _, deadPID := e.OpenFixture("s1")
	e.OK("s1", "share", live, "--with", "s2")
	e.Kill9()
	syscall.Kill(deadPID, syscall.SIGKILL)
	// The CLI starts a daemon by itself when none answers.
	out := e.OK("s1", "list")
	if st := e.Answer("s1", "status"); !st.OK || st.Status.PID == 0 {
		t.Fatalf("status after restart: %+v", st)
	}
	if !strings.Contains(out, live) || !strings.Contains(out, "held by s1") || strings.Contains(out, dead+" ") {
		t.Fatalf("after kill -9 and restart, list:\n%s", out)
	}
	if out := e.OK("s2", "list"); !strings.Contains(out, live) {
		t.Fatal("the share did not survive")
	}
	e.Refused("unknown_target", "s1", "snapshot", dead)
	from := log.Len()
	e.OK("s1", "key", live, "Return")
	wait(t, log, from, "Return after restart", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "Return" })
	// The daemon the CLI started (not our child) is stopped by the cleanup,
	// which then checks that nothing of the display is left.
}

func TestFrozenApp(t *testing.T) {
	e := newEnv(t)
	e.StartServe("--walk-timeout", "4s")
	frozen, _, pid := e.OpenFixture("s1")
	other, log, _ := e.OpenFixture("s1")
	e.Snapshot("s1", frozen) // its frame is known before it freezes
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	snap := make(chan result, 1)
	go func() { snap <- e.CLI("s1", "snapshot", frozen) }()
	from := log.Len()
	e.OK("s1", "key", other, "Return")
	wait(t, log, from, "Return on the other window", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "Return" })
	e.Snapshot("s1", other)
	r := <-snap
	if r.Code != 0 || !strings.Contains(r.Out, "unreadable") {
		t.Fatalf("the frozen snapshot: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, _, _ := e.OpenFixture("s1")
	before := markedPIDs(e.Desk.ID)
	e.Refused("app_not_found", "s1", "open", "no-such-app-vibespace")
	e.Refused("app_not_found", "s1", "open", "./no-such-app-vibespace") // a path: fs.ErrNotExist
	notExec := filepath.Join(e.Dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Refused("app_not_found", "s1", "open", notExec) // fs.ErrPermission
	if after := markedPIDs(e.Desk.ID); len(after) != len(before) {
		t.Fatalf("a failed open left processes: before %v after %v", before, after)
	}
	e.Refused("outside_window", "s1", "click", id, "--at", "5000,10")
	e.Refused("outside_window", "s1", "scroll", id, "up", "--at", "10,-3")
	r := e.Refused("bad_chord", "s1", "key", id, "ctrl+nosuchkey")
	if !strings.Contains(r.Errout, "nosuchkey") {
		t.Fatalf("bad_chord names the part: %s", r.Errout)
	}
	e.Snapshot("s1", id)
	e.Refused("bad_ref", "s1", "click", id, "@x1")
	e.Refused("bad_ref", "s1", "click", id, "@e9999")
	r = e.Refused("text_too_long", "s1", "type", id, strings.Repeat("x", 1501))
	if !strings.Contains(r.Errout, "1500") {
		t.Fatalf("text_too_long names the limit: %s", r.Errout)
	}
	e.Refused("unknown_target", "s1", "snapshot", "win:99")
	e.Refused("unknown_target", "s1", "snapshot", "window-1")

	// Malformed and oversized requests on the socket: an error answer, and
	// the daemon keeps serving.
	sock := e.Answer("s1", "status").Status.Socket
	for _, bad := range []string{"not json\n", strings.Repeat("{", daemon.DefaultMaxRequest+5) + "\n"} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		go c.Write([]byte(bad))
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || !strings.Contains(line, `"code":"bad_request"`) {
			t.Fatalf("answer to a bad request: %q %v", line, err)
		}
		e.OK("s1", "status")
	}
	// A second daemon for the same state refuses to start.
	if r := e.CLI("s1", "serve"); r.Code != 2 || !strings.Contains(r.Errout, "already running") {
		t.Fatalf("a second serve: exit %d\n%s", r.Code, r.Errout)
	}
	e.OK("s1", "status")
	e.CheckAudit(t)
}

// TestFirstSnapshotIsWhole: the first snapshot right after open reads the
// whole tree (the bridge's cache once answered 11 nodes of 260 here).
func TestFirstSnapshotIsWhole(t *testing.T) {
	testenv.NeedIntegration(t, "gtk3-widget-factory")
	e := newEnv(t)
	e.StartServe()
	resp := e.Answer("s1", "open", "gtk3-widget-factory")
	if !resp.OK {
		t.Fatalf("open: %+v", resp)
	}
	e.ReadDesk()
	snap := e.Snapshot("s1", string(resp.Target.ID))
	if snap.Census.Nodes < 200 || snap.Census.Action < 50 {
		t.Fatalf("first snapshot: %+v", snap.Census)
	}
	b := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Close" })
	if b == nil || b.Ref == "" {
		t.Fatal("no Close button in the first snapshot")
	}
}
