package xvfb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// ready waits for a fixture's ready line.
func ready(t *testing.T, ctx context.Context, log *testenv.FixtureLog) testenv.Event {
	t.Helper()
	ev, err := log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" })
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// checkLaunched: Launch answered the window the fixture says is its own,
// made by the process the fixture says it is.
func checkLaunched(t *testing.T, ctx context.Context, f *testenv.Fixture, title string) testenv.Event {
	t.Helper()
	ev := ready(t, ctx, f.Log)
	if uint32(f.Window.ID) != ev.XID || f.Window.PID != ev.PID || f.Window.Title != title || !f.Window.Viewable {
		t.Fatalf("Launch answered window %s %q (pid %d, viewable %v); the fixture says 0x%x, pid %d",
			f.Window.ID, f.Window.Title, f.Window.PID, f.Window.Viewable, ev.XID, ev.PID)
	}
	return ev
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil && !exited(pid) }

func exited(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(b)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ')' {
			return i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
		}
	}
	return false
}

// TestLaunchTk: a Tk window (no _NET_WM_PID) opens.
func TestLaunchTk(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchTkFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	ev := checkLaunched(t, ctx, f, "vibespace tk fixture")
	if ev.PID != f.PID {
		t.Fatalf("the Tk fixture is pid %d, Launch started %d", ev.PID, f.PID)
	}
	if err := f.Stop(); err != nil || alive(ev.PID) {
		t.Fatalf("Stop: %v; alive after: %v", err, alive(ev.PID))
	}
}

// TestLaunchXClient: a plain X client's window (no _NET_WM_PID) opens.
func TestLaunchXClient(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchXClientFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if ev := checkLaunched(t, ctx, f, "vibespace xclient fixture"); ev.PID != f.PID {
		t.Fatalf("the client is pid %d, Launch started %d", ev.PID, f.PID)
	}
}

// TestLaunchThroughLaunchers: a launcher that starts the program and waits
// for it, and one that starts it and exits, still open: the window is the
// program's, the answer names the program's process, and Stop ends it.
func TestLaunchThroughLaunchers(t *testing.T) {
	d := testenv.SharedDesktop(t)
	script, err := testenv.Script(d, "tk")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, shell string }{
		// "; true" keeps the shell from exec'ing its last command.
		{"waits", testenv.FixturePython + " " + script + " --log %s; true"},
		{"leaves", testenv.FixturePython + " " + script + " --log %s & exit 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			logPath := filepath.Join(t.TempDir(), "tk.jsonl")
			a, err := d.Launch(ctx, "/bin/sh", "-c", fmt.Sprintf(c.shell, logPath))
			if err != nil {
				t.Fatal(err)
			}
			f := &testenv.Fixture{App: a, Log: testenv.OpenFixtureLog(logPath)}
			ev := checkLaunched(t, ctx, f, "vibespace tk fixture")
			if ev.PID == a.PID {
				t.Fatalf("the window's process is the launcher's (%d)", a.PID)
			}
			if root := xvfb.DescendsFrom(ev.PID, map[int]bool{a.PID: true}); root != a.PID {
				t.Fatalf("DescendsFrom(%d, {%d}) = %d", ev.PID, a.PID, root)
			}
			if err := a.Stop(); err != nil {
				t.Fatal(err)
			}
			if alive(ev.PID) {
				t.Fatalf("the program (pid %d) outlived Stop", ev.PID)
			}
		})
	}
}

// TestDescendsFrom: a process descends from itself and its ancestors, not
// from a stranger.
func TestDescendsFrom(t *testing.T) {
	self, parent := os.Getpid(), os.Getppid()
	if got := xvfb.DescendsFrom(self, map[int]bool{self: true}); got != self {
		t.Errorf("DescendsFrom(self, {self}) = %d", got)
	}
	if got := xvfb.DescendsFrom(self, map[int]bool{parent: true}); got != parent {
		t.Errorf("DescendsFrom(self, {parent}) = %d", got)
	}
	if got := xvfb.DescendsFrom(parent, map[int]bool{self: true}); got != 0 {
		t.Errorf("DescendsFrom(parent, {self}) = %d, want 0", got)
	}
	if got := xvfb.DescendsFrom(1<<30, map[int]bool{1 << 30: true}); got != 0 {
		t.Errorf("DescendsFrom of no process = %d, want 0", got)
	}
}
