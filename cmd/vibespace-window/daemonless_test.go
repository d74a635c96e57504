package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
)

// TestNoDaemonProgram: a command with no vibespace-daemon beside it nor on
// PATH says which program is missing and how to build it (exit 2), for a
// verb (which would start the daemon) and for serve.
func TestNoDaemonProgram(t *testing.T) {
	dir, alone, empty := withoutDaemon(t)
	for _, args := range [][]string{{"status"}, {"serve"}} {
		cmd := exec.Command(alone, args...)
		cmd.Env = []string{"PATH=" + empty, "VIBESPACE_HOME=" + filepath.Join(dir, "home"), "XDG_RUNTIME_DIR=" + dir}
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "vibespace-daemon") || !strings.Contains(string(out), "make build") {
			t.Fatalf("%v without vibespace-daemon: want exit 2 naming vibespace-daemon and make build, got %v\n%s", args, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "home", "daemon.lock")); err == nil {
			t.Fatalf("%v: a daemon lock appeared with no daemon program", args)
		}
	}
}

// withoutDaemon copies the command alone into a fresh directory: no
// vibespace-daemon beside it, and empty, a directory to be the whole PATH.
func withoutDaemon(t *testing.T) (dir, alone, empty string) {
	t.Helper()
	dir = t.TempDir()
	alone = filepath.Join(dir, "bin", "vibespace-window")
	if err := os.MkdirAll(filepath.Dir(alone), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(wintest.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	empty = filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, alone, empty
}
