package testenv_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

// TestShells: each real shell (GNOME Shell, KDE's KWin) runs headless here
// with its portal, and the GTK 3 fixture's window comes up on it: the app
// logs its window mapped and focused (on GNOME Shell once the person picks
// it in the overview the shell starts in), and its frame is on the stack's
// AT-SPI bus, showing, under the app's own PID. Close ends every process.
func TestShells(t *testing.T) {
	for _, shell := range []testenv.Shell{testenv.GnomeShell, testenv.KWin} {
		t.Run(shell.String(), func(t *testing.T) {
			testenv.NeedShell(t, shell)
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			w, err := testenv.StartShell(ctx, shell, "", t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range xvfb.MarkedPIDs(w.ID()) {
				names = append(names, xvfb.ProcName(p))
			}
			t.Logf("%s up in %v, RSS %d MB: %v", shell, w.Startup.Round(time.Millisecond), w.RSS()>>20, names)
			f, err := w.LaunchFixture(ctx)
			if err != nil {
				w.Close()
				t.Fatalf("%v\n%s: %s", err, shell, w.LogTail(shell.String()))
			}
			if shell == testenv.GnomeShell {
				// GNOME Shell starts in its overview, where a new window
				// is a thumbnail in the middle: the person clicks it (with
				// mutter's own input, their keyboard and pointer) and
				// the window comes forward with the focus.
				m, err := w.Mutter(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if err := w.Bring(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "focus" }); err != nil {
				t.Errorf("the fixture's window never had the focus on %s: %v", shell, err)
			}
			if err := frameShowing(ctx, w.A11yAddress(), f.PID, "vibespace fixture"); err != nil {
				t.Error(err)
			}
			f.Stop()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if left := xvfb.MarkedPIDs(w.ID()); len(left) > 0 {
				t.Fatalf("left running after Close: %v", left)
			}
		})
	}
}

// frameShowing waits until the application of pid on the AT-SPI bus at
// addr has a frame named title that is showing.
func frameShowing(ctx context.Context, addr string, pid int, title string) error {
	bus, err := atspi.ConnectA11y(ctx, addr, atspi.Options{})
	if err != nil {
		return err
	}
	defer bus.Close()
	var last []string
	for {
		apps, err := bus.Applications(ctx)
		last = nil
		for _, a := range apps {
			if a.PID != pid {
				continue
			}
			frames, _ := bus.Frames(ctx, a)
			for _, f := range frames {
				last = append(last, f.Role+" "+f.Name)
				if f.Name == title && slices.Contains(f.States, "showing") {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no showing frame %q of the fixture (pid %d) on the AT-SPI bus (%v); its frames: %q", title, pid, err, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
