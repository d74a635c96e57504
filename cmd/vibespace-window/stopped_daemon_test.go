package main_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// TestStoppedDaemon (issue 35, row 10): with the daemon's process stopped
// (SIGSTOP), list gives up daemon_gone and click outcome_unknown, each
// exit 2 and naming the stopped process — not after the call's whole
// deadline with no code, as before. Continued, the same daemon answers.
func TestStoppedDaemon(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	pid := e.Serve.Process.Pid
	e.OK("s1", "list")
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	says := fmt.Sprintf("the daemon's process (pid %d) is stopped (state T in /proc/%d/stat", pid, pid)
	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"list"}, "daemon_gone"},
		{[]string{"click", "win:1", "@e1"}, "outcome_unknown"},
	} {
		r := e.CLI("s1", c.args...)
		if r.Code != 2 || !strings.Contains(r.Errout, "unanswered: ") || !strings.Contains(r.Errout, "["+c.code+"]") ||
			!strings.Contains(r.Errout, says) || !strings.Contains(r.Errout, fmt.Sprintf("kill -CONT %d", pid)) {
			t.Fatalf("%v with the daemon stopped: want exit 2, unanswered [%s] naming pid %d stopped; got exit %d\nstdout: %s\nstderr: %s",
				c.args, c.code, pid, r.Code, r.Out, r.Errout)
		}
		t.Logf("%v: %s", c.args, strings.TrimSpace(r.Errout))
	}
	resp := e.Answer("s1", "list")
	if resp.OK || resp.Code != "daemon_gone" || fmt.Sprint(resp.Facts["pid"]) != fmt.Sprint(pid) || resp.Facts["state"] != "T" {
		t.Fatalf("list --json with the daemon stopped: %+v", resp)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	e.OK("s1", "list")
	if out := e.OK("s1", "status"); !strings.Contains(out, fmt.Sprintf("daemon pid %d ", pid)) {
		t.Fatalf("status once the daemon is continued: not the same daemon:\n%s", out)
	}
}
