package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
)

// TestBadArgumentsNeedNoDaemon: a verb's argument its type refuses
// (daemon/args) is refused by the command line itself, with the code and
// words the daemon refuses it with (exit 1, as a refusal), before any
// daemon is dialled: here there is no daemon program to start, and no
// daemon's lock appears.
func TestBadArgumentsNeedNoDaemon(t *testing.T) {
	dir, alone, empty := withoutDaemon(t)
	for _, c := range []struct {
		args      []string
		code, msg string
	}{
		{[]string{"scroll", "win:1", "sideways", "--json"}, "bad_request", `scroll direction "sideways": use up, down, left or right`},
		{[]string{"mode", "win:1", "sideways", "--json"}, "bad_mode", `"sideways" is not a mode: use auto, tree or pixels`},
		{[]string{"snapshot", "win:1", "--depth", "-1", "--json"}, "bad_request", "--depth takes a number of levels below the root, 1 or more (0: all)"},
	} {
		cmd := exec.Command(alone, c.args...)
		cmd.Env = []string{"PATH=" + empty, "VIBESPACE_HOME=" + filepath.Join(dir, "home"), "XDG_RUNTIME_DIR=" + dir, "VIBESPACE_SESSION=s1"}
		out, err := cmd.Output()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Fatalf("%v: want exit 1 (refused), got %v\n%s", c.args, err, out)
		}
		var r wire.Response
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if r.OK || string(r.Code) != c.code || r.Message != c.msg {
			t.Errorf("%v: answered %s %q, want %s %q", c.args, r.Code, r.Message, c.code, c.msg)
		}
		if _, err := os.Stat(filepath.Join(dir, "home", "daemon.lock")); err == nil {
			t.Fatalf("%v: a daemon lock appeared", c.args)
		}
	}
}
