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
	profile := t.TempDir()
	app, err := d.Launch(ctx, "chromium", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
		"--user-data-dir="+profile, "about:blank")
	if err != nil {
		t.Fatal(err)
	}
	// Chromium names its singleton directory in the profile's
	// SingletonSocket link: that, not a glob of the shared /tmp (where
	// other tests' browsers come and go meanwhile), says where this one
	// made it.
	var link string
	for link == "" {
		link, _ = os.Readlink(filepath.Join(profile, "SingletonSocket"))
		if ctx.Err() != nil {
			t.Fatal("Chromium made no SingletonSocket link in its profile")
		}
		time.Sleep(50 * time.Millisecond)
	}
	singleton := filepath.Dir(link)
	if !strings.HasPrefix(filepath.Base(singleton), "org.chromium.Chromium.") {
		t.Fatalf("the SingletonSocket link points at %s", link)
	}
	// Leave no litter in /tmp even when the test fails.
	t.Cleanup(func() { os.RemoveAll(singleton) })
	tmp := filepath.Join(d.Dir, "tmp")
	if filepath.Dir(singleton) != tmp {
		t.Fatalf("Chromium made its singleton directory %s, not in the desktop's %s", singleton, tmp)
	}
	if err := syscall.Kill(app.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(singleton); err != nil {
		t.Fatalf("the killed browser's singleton directory is gone before the close (%v): the test cannot tell", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	closed = true
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the desktop's temp dir is left: %v", err)
	}
	if _, err := os.Stat(singleton); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Chromium's singleton directory %s is left: %v", singleton, err)
	}
}
