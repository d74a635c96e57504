package daemoncall

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/vibespace/vibespace"

// TestCommandLinesDoNotLinkTheDaemon holds the command lines to the wire
// protocol: linking the daemon drags its backends (pion, the codecs' cgo,
// X11, AT-SPI, CDP) into every call's start. Nor may they link cgo at all:
// a command line is a static binary. The protocol (daemon/wire), the
// verb table (daemon/verb) and the verbs' arguments (daemon/args) are what
// they link of the daemon.
func TestCommandLinesDoNotLinkTheDaemon(t *testing.T) {
	forbidden := []string{module + "/daemon", "github.com/pion", module + "/rtc", module + "/cdp",
		module + "/x11", module + "/atspi", module + "/capture", module + "/lease", "github.com/chromedp"}
	// vibespace-mcp is one long-lived process, not one per call: the SDK
	// it is built on links net (its HTTP transports), and that start is
	// paid once. The daemon it may not link either.
	for _, cmd := range []string{"vibespace-window", "vibespace-browser", "vibespace-mcp"} {
		perCall := cmd != "vibespace-mcp"
		out, err := exec.Command("go", "list", "-deps", module+"/cmd/"+cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", cmd, err, out)
		}
		deps := strings.Fields(string(out))
		if !contains(deps, module+"/daemon/wire") {
			t.Fatalf("%s does not link daemon/wire: is this list right?\n%s", cmd, out)
		}
		for _, d := range deps {
			if d == module+"/daemon/wire" || d == module+"/daemon/verb" || d == module+"/daemon/args" {
				continue // the protocol, the one table of verb facts and the verbs' arguments (leaves over the shared model)
			}
			if perCall && (d == "net" || d == "runtime/cgo") {
				// net brings the cgo resolver: the command would be
				// linked dynamically, a cost on every call's start.
				t.Errorf("%s links %s (dial the socket with package syscall, as daemon/wire does)", cmd, d)
			}
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s links %s (only daemon/wire, daemon/verb and daemon/args of the daemon may be linked by a command line)", cmd, d)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDaemonPath finds vibespace-daemon beside the command first, then on
// PATH, and names the program and the build when it is nowhere.
func TestDaemonPath(t *testing.T) {
	beside, onPath, empty := t.TempDir(), t.TempDir(), t.TempDir()
	exe := filepath.Join(beside, "vibespace-window")
	for _, p := range []string{exe, filepath.Join(beside, DaemonName), filepath.Join(onPath, DaemonName)} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", onPath)
	if p, err := DaemonPath(Options{Executable: exe}); err != nil || p != filepath.Join(beside, DaemonName) {
		t.Fatalf("beside the command: %q %v", p, err)
	}
	if p, err := DaemonPath(Options{Executable: filepath.Join(empty, "vibespace-window")}); err != nil || p != filepath.Join(onPath, DaemonName) {
		t.Fatalf("on PATH: %q %v", p, err)
	}
	t.Setenv("PATH", empty)
	_, err := DaemonPath(Options{Executable: filepath.Join(empty, "vibespace-window")})
	var ee *ExitError
	if err == nil || !errors.As(err, &ee) || ee.Code != ExitUsage ||
		!strings.Contains(err.Error(), DaemonName) || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("nowhere: want a usage error naming %s and make build, got %v", DaemonName, err)
	}
}
