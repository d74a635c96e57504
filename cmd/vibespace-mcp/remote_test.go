package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/testenv"
)

// TestRemoteHostMCP: the MCP server with VIBESPACE_HOST reaches the
// remote host's daemon (clitest.SSHHost) through ssh: status and
// window_list are answered there, and name the host.
func TestRemoteHostMCP(t *testing.T) {
	e := newEnv(t)
	h := clitest.NewSSHHost(t, filepath.Join(filepath.Dir(e.Bin), "vibespace-daemon"))
	t.Cleanup(func() { clitest.StopMasters(e.Run) })
	e.Extra = append(e.Extra, h.Environ()...)
	cs := e.client("s1")
	for _, tool := range []string{"status", "window_list"} {
		res := call(t, cs, tool, map[string]any{})
		got := text(res) + fmt.Sprint(res.StructuredContent)
		if res.IsError || !strings.Contains(got, h.Name) {
			t.Fatalf("%s over ssh does not name %s (error %v):\n%s", tool, h.Name, res.IsError, got)
		}
	}
	if len(h.RemotePIDs()) == 0 {
		t.Fatal("no process of the remote user: the daemon that answered is not the remote host's")
	}
}

// TestRemoteHostMCPFlag: --host sends the server's calls to the remote
// host's daemon as VIBESPACE_HOST does, and wins over it (the environment
// here names a port where no sshd listens); a --host ssh cannot reach is
// the tool error host_unreachable, with ssh's last words among the facts.
func TestRemoteHostMCPFlag(t *testing.T) {
	e := newEnv(t)
	h := clitest.NewSSHHost(t, filepath.Join(filepath.Dir(e.Bin), "vibespace-daemon"))
	t.Cleanup(func() { clitest.StopMasters(e.Run) })
	for _, kv := range h.Environ() {
		if strings.HasPrefix(kv, "VIBESPACE_HOST=") {
			kv = "VIBESPACE_HOST=" + h.DeadSpec()
		}
		e.Extra = append(e.Extra, kv)
	}
	cs := e.client("s1", "--host", h.Spec)
	for _, tool := range []string{"status", "window_list"} {
		res := call(t, cs, tool, map[string]any{})
		got := text(res) + fmt.Sprint(res.StructuredContent)
		if res.IsError || !strings.Contains(got, h.Name) {
			t.Fatalf("%s with --host does not name %s (error %v):\n%s", tool, h.Name, res.IsError, got)
		}
	}
	if len(h.RemotePIDs()) == 0 {
		t.Fatal("no process of the remote user: the daemon that answered is not the remote host's")
	}

	dead := e.client("s2", "--host", h.DeadSpec())
	res := refused(t, dead, "host_unreachable", "status", map[string]any{})
	st, _ := res.StructuredContent.(map[string]any)
	facts, _ := st["facts"].(map[string]any)
	if facts["ssh_stderr"] == "" || facts["ssh_stderr"] == nil {
		t.Fatalf("host_unreachable carries no ssh_stderr: %v", res.StructuredContent)
	}
}

// TestRemotePoolDeskMCP: the local daemon's pool is one desktop of the
// remote host's daemon's own pool (--pool-remote). Through MCP alone the
// agent borrows it (the answer names the host and its name there), opens
// the fixture on it with window_open (the local daemon refuses elsewhere
// and the server follows it there), clicks by ref on the handle that
// answer carries (win:N@ssh://…) — the click is in the fixture's own log
// on the remote side — and returns it, wiped there: its process is gone.
func TestRemotePoolDeskMCP(t *testing.T) {
	e := newEnv(t)
	root := filepath.Join("..", "..", "testenv", "fixture")
	h := clitest.NewSSHHost(t, filepath.Join(filepath.Dir(e.Bin), "vibespace-daemon"), filepath.Join(root, "fixture.py"), filepath.Join(root, "fixturelog.py"))
	t.Cleanup(func() { clitest.StopMasters(e.Run) })
	for _, kv := range h.Environ() {
		if !strings.HasPrefix(kv, "VIBESPACE_HOST=") { // this host's daemon is the one asked
			e.Extra = append(e.Extra, kv)
		}
	}
	h.StartDaemon("--pool-desks", "1")
	e.StartDaemon("--pool-remote", h.Spec)
	cs := e.client("s1")

	res := call(t, cs, "desk", map[string]any{"do": "borrow"})
	got := text(res)
	if res.IsError {
		t.Fatalf("borrow through MCP: %s", got)
	}
	if !strings.Contains(got, "desk1 — on "+h.Spec+", desk1 there") {
		t.Fatalf("borrow through MCP: %s", got)
	}
	logPath := filepath.Join(h.Logs, "fixture.jsonl")
	script := fmt.Sprintf(`echo $$ > %[1]s/pid; exec %[2]s %[3]s --log %[4]s`, h.Logs, testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), logPath)
	out := ok(t, cs, "window_open", map[string]any{"app": "/bin/sh", "args": []string{"-c", script}, "display": "desk1"})
	var handle string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "win:") {
			handle, _, _ = strings.Cut(l, " ")
		}
	}
	if !strings.HasSuffix(handle, "@"+h.Spec) {
		t.Fatalf("window_open on the remote desk: %s", out)
	}
	log := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	snap := ok(t, cs, "window_snapshot", map[string]any{"handle": handle, "interactive": true})
	from := log.Len()
	ok(t, cs, "window_click", map[string]any{"handle": handle, "ref": refOf(t, snap, "push button", "Alpha")})
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" }); err != nil {
		t.Fatalf("the fixture on the remote host did not log the click: %v", err)
	}
	pidB, err := os.ReadFile(filepath.Join(h.Logs, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidB)))
	if ret := ok(t, cs, "desk", map[string]any{"do": "return"}); !strings.Contains(ret, "returned on "+h.Spec) {
		t.Fatalf("return through MCP: %s", ret)
	}
	if !clitest.Exited(pid) {
		t.Fatalf("the fixture (pid %d) still runs on the remote host after the return", pid)
	}
}
