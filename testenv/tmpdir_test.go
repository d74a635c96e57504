package testenv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// TestDesktopTempDirHoldsChromiumLeftovers (issue 35 row 12): a desktop's
// applications get a temp dir of its own (TMPDIR), removed with it. A real
// Chromium on it — as a desktop-app profile runs — killed with -9 leaves
// its singleton directory there, never in the shared /tmp, and closing
// the desktop removes it.
func TestDesktopTempDirHoldsChromiumLeftovers(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	before := chromiumTemps()
	d, err := testenv.Start(ctx, testenv.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			d.Close()
		}
	})
	app, err := d.Launch(ctx, "chromium", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
		"--user-data-dir="+t.TempDir(), "about:blank")
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(d.Dir, "tmp")
	var mine []string
	for mine == nil {
		mine, _ = filepath.Glob(filepath.Join(tmp, "org.chromium.Chromium.*"))
		if ctx.Err() != nil {
			t.Fatalf("Chromium made no singleton directory in the desktop's %s", tmp)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := syscall.Kill(app.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	closed = true
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the desktop's temp dir is left: %v", err)
	}
	for p := range chromiumTemps() {
		if !before[p] {
			t.Errorf("Chromium left %s in the shared temp dir", p)
		}
	}
}

// chromiumTemps are Chromium's singleton directories in the shared /tmp.
func chromiumTemps() map[string]bool {
	out := map[string]bool{}
	ps, _ := filepath.Glob(filepath.Join(os.TempDir(), "org.chromium.Chromium.*"))
	for _, p := range ps {
		if !strings.Contains(p, "vibespace") {
			out[p] = true
		}
	}
	return out
}
