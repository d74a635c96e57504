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
