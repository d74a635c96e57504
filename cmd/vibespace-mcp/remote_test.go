package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
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
