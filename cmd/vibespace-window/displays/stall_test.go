package displays_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/vibespace/vibespace/testenv"
)

// xserverPID is the pid of the daemon's Xvfb (its -auth file lives in the
// display's own directory).
func (e *env) xserverPID() int {
	e.T.Helper()
	ents, _ := os.ReadDir("/proc")
	auth := filepath.Join(e.Desk.Dir, "Xauthority")
	for _, en := range ents {
		pid, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if filepath.Base(args[0]) == "Xvfb" && strings.Contains(string(b), auth) {
			return pid
		}
	}
	e.T.Fatal("the display's X server was not found")
	return 0
}

// TestStoppedXServer: with the daemon's X server stopped (SIGSTOP), list
// answers from what the daemon knows, marking the windows, and a verb is
// refused display_not_answering — neither waits for the X calls' 30 s
// deadline (before, list took 30 s and answered the windows unmarked).
// Once the server runs again, everything is as before, and the app lived.
func TestStoppedXServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	x := e.xserverPID()
	if err := syscall.Kill(x, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(x, syscall.SIGCONT)
		}
	}()
	for range 2 {
		if out := e.OK("s1", "list"); !strings.Contains(out, id) || !strings.Contains(out, "has not answered since") {
			t.Fatalf("list with the X server stopped:\n%s", out)
		}
	}
	e.Refused("display_not_answering", "s1", "key", id, "Return")
	e.Refused("display_not_answering", "s1", "snapshot", id)
	e.Refused("display_not_answering", "s1", "open", "/bin/true") // nothing is started on it
	syscall.Kill(x, syscall.SIGCONT)
	stopped = false
	if out := e.OK("s1", "list"); strings.Contains(out, "has not answered") {
		t.Fatalf("list once the X server runs again:\n%s", out)
	}
	from := log.Len()
	e.OK("s1", "key", id, "Return")
	wait(t, log, from, "Return after the X server resumed", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "Return" })
}
