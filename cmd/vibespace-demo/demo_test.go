package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// TestDemo runs the README's first command as a person would: the demo's
// binaries built side by side, the demo run to its end. The demo checks
// every effect through an oracle of its own (the application's tree, the
// page's report, the viewer's API); this test checks it finished, printed
// the live view's address and left no process behind.
func TestDemo(t *testing.T) {
	testenv.NeedIntegration(t, "chromium", "gtk3-widget-factory")
	bin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-tags", "urfave_cli_no_docs", "-o", bin+string(filepath.Separator), "../...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir() // the demo keeps its PNG in its working directory
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "vibespace-demo"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the demo failed: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"# the page itself reported: name=\"Ada, an agent\" agreed=true",
		"# live view: http://127.0.0.1:",
		"window win:1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "vibespace-demo.png")); err != nil {
		t.Errorf("the demo kept no screenshot: %v", err)
	}
}
