package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonThatCannotStart (issue 35, row 1): when the daemon a command
// starts exits at once (here its lock file cannot be opened: a directory
// stands in its place), the command says so at once, exit 2 and
// no_daemon, quoting the daemon's own words from daemon.stderr — not
// after waiting out its start (20 s), pointing at a daemon.log that said
// nothing, as before. Once the cause is gone, the next command starts the
// daemon and is answered.
func TestDaemonThatCannotStart(t *testing.T) {
	e := newEnv(t)
	lock := filepath.Join(e.Home, "daemon.lock")
	if err := os.MkdirAll(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.CLI("s1", "list")
	if r.Code != 2 || !strings.Contains(r.Errout, "unreachable: ") || !strings.Contains(r.Errout, "[no_daemon]") ||
		!strings.Contains(r.Errout, "exited at once") || !strings.Contains(r.Errout, "daemon.stderr") ||
		!strings.Contains(r.Errout, "vibespace-daemon: daemon: lock file: open "+lock+": is a directory") {
		t.Fatalf("list with a daemon that cannot start: want exit 2, unreachable [no_daemon] quoting the daemon's error; got exit %d\nstdout: %s\nstderr: %s", r.Code, r.Out, r.Errout)
	}
	t.Logf("list: %s", strings.TrimSpace(r.Errout))
	resp := e.Answer("s1", "click", "win:1", "@e1")
	if resp.OK || resp.Code != "no_daemon" || !strings.Contains(resp.Message, "is a directory") || resp.Facts["pid"] == nil {
		t.Fatalf("click --json with a daemon that cannot start: %+v", resp)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if out := e.OK("s1", "list"); !strings.Contains(out, "no windows") {
		t.Fatalf("list once the daemon can start:\n%s", out)
	}
}
