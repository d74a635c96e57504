package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// TestDamagedStateFile (issue 35 row 1, as a user meets it): the daemon
// killed with -9, state.json cut short by hand, then a plain command. The
// next daemon starts (no lockout, no 20 s wait), sets the damaged file
// aside, restores from the copy it keeps, and says so once; the window
// opened before is still driven (its app's own log hears the key); status
// lists what happened. With the copy cut too, it starts afresh, says what
// could not be restored, and never hands out the lost window's handle
// again; the display it had started is stopped, not left running out of
// reach.
func TestDamagedStateFile(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	e.Kill9()
	state := filepath.Join(e.Home, "state.json")
	cut := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b[:len(b)/3], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cut(state)

	out := e.OK("s1", "list")
	if strings.Count(out, "state.json was damaged") != 1 || !strings.Contains(out, "restored from its copy") || !strings.Contains(out, id) {
		t.Fatalf("the first answer after the damage:\n%s", out)
	}
	if again := e.OK("s1", "list"); strings.Contains(again, "damaged") {
		t.Fatalf("told twice:\n%s", again)
	}
	from := log.Len()
	e.OK("s1", "key", id, "F7")
	wait(t, log, from, "the key after the restore", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "F7" })
	if st := e.OK("s1", "status"); !strings.Contains(st, "fault: ") || !strings.Contains(st, "state.json was damaged") {
		t.Fatalf("status:\n%s", st)
	}
	aside, _ := filepath.Glob(state + ".damaged-*")
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}

	// The daemon the command started, killed as a crash would.
	pid := e.DaemonPID()
	if pid == 0 {
		t.Fatal("no daemon runs")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !e.WaitGone(pid, 30*time.Second) {
		t.Fatalf("the daemon (pid %d) outlived SIGKILL", pid)
	}
	cut(state)
	cut(state + ".copy")
	out = e.OK("s2", "list")
	if !strings.Contains(out, "could not be restored") || !strings.Contains(out, "were stopped, with the applications on them: desktop "+e.Desk.ID) {
		t.Fatalf("the first answer after both were damaged:\n%s", out)
	}
	// Nothing of the earlier display runs on unseen (newEnv's cleanup
	// checks its processes and directory are gone).
	if _, err := os.Stat(e.Desk.Dir); !os.IsNotExist(err) {
		t.Fatalf("the earlier display's directory is left: %v", err)
	}
	if again, _, _ := e.OpenFixture("s2"); again == id {
		t.Fatalf("the lost handle %s was minted again", id)
	}
}
