package main_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// TestKill9DuringType: a daemon killed while a long type is under way
// (issue 11 item 6: the CLI said "read from daemon: EOF" although the keys
// had reached the application, and a retry typed them twice). The CLI says
// outcome_unknown; the daemon it starts next says, once, on the next answer
// on that window, that the type was cut by a restart.
func TestKill9DuringType(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	e.OK("s1", "click", id, "--at", e.Centre(t, "s1", id, node(t, snap, "text", "Notes")))
	// Greek letters the keymap lacks are typed through rebound keycodes,
	// each batch synced with the application: the type is surely still in
	// flight when the first of them arrives (as in TestTakeover).
	var long strings.Builder
	for i := range 1400 {
		long.WriteRune('α' + rune(i%24))
	}
	from := log.Len()
	typed := make(chan result, 1)
	go func() { typed <- e.CLI("s1", "type", id, long.String()) }()
	wait(t, log, from, "typing to begin", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "notes" })
	e.Kill9()
	// Should the test stop early, a daemon re-attaches the display so that
	// the cleanup stops it with its applications (runs before clitest's).
	t.Cleanup(func() {
		if e.DaemonPID() == 0 {
			e.CLI("s1", "status")
		}
	})
	r := <-typed
	if r.Code != 2 || !strings.Contains(r.Errout, "unanswered: ") || !strings.Contains(r.Errout, "[outcome_unknown]") || !strings.Contains(r.Errout, "before you retry") {
		t.Fatalf("the type the daemon died in: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	// The CLI starts a daemon by itself; its first answer on the window
	// says what was cut, and only once.
	first := e.OK("s1", "snapshot", id)
	if !strings.Contains(first, "note: type by s1 at ") || !strings.Contains(first, "was cut by a daemon restart; its effect is unknown") {
		t.Fatalf("the first answer on %s after the restart:\n%s", id, first)
	}
	if second := e.OK("s1", "snapshot", id); strings.Contains(second, "cut by a daemon restart") {
		t.Fatalf("told twice:\n%s", second)
	}
	e.CheckAudit(t, "αβγδ") // whole lines, never the typed text
	if b, _ := os.ReadFile(filepath.Join(e.Home, "audit.jsonl")); !strings.Contains(string(b), `"verb":"type","ok":false,"code":"outcome_unknown"`) {
		t.Fatalf("the audit does not record the cut type:\n%s", b)
	}
}

// TestIdleConnectionsDoNotLockOut: 66 connections that send nothing
// (issue 11 item 5: every CLI call was refused busy, or failed with a broken
// pipe, until the 30 s idle timeout) leave the daemon serving everyone
// else.
func TestIdleConnectionsDoNotLockOut(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	sock := e.Socket()
	for range 66 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	for i := range 5 {
		start := time.Now()
		r := e.CLI("s1", "list")
		if r.Code != 0 {
			t.Fatalf("list %d beside 66 idle connections: exit %d\n%s%s", i, r.Code, r.Out, r.Errout)
		}
		t.Logf("list %d answered in %v", i, time.Since(start))
	}
}

// TestLongInputIsCut: a refusal repeats at most a little of what it was
// given (issue 11 item 10: a 40 KB chord was echoed whole on stderr).
func TestLongInputIsCut(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	chord := strings.Repeat("ctrl+", 8000) + "x"
	r := e.Refused("bad_chord", "s1", "key", "win:1", chord)
	if len(r.Errout) > 1024 || !strings.Contains(r.Errout, "…(40001 bytes)") {
		t.Fatalf("%d bytes of stderr for a bad chord:\n%.400s", len(r.Errout), r.Errout)
	}
	handle := "win:" + strings.Repeat("9", 40000)
	r = e.Refused("unknown_target", "s1", "snapshot", handle)
	if len(r.Errout) > 1024 {
		t.Fatalf("%d bytes of stderr for an unknown handle:\n%.400s", len(r.Errout), r.Errout)
	}
	if r := e.CLI("s1", "click", "win:1", "--at", strings.Repeat("1", 40000)); r.Code != 2 || len(r.Errout) > 1024 {
		t.Fatalf("--at: exit %d, %d bytes of stderr:\n%.400s", r.Code, len(r.Errout), r.Errout)
	}
}
