package x11_test

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func TestWindowsFindsFixture(t *testing.T) {
	fx := newFixture(t)
	ctx := t.Context()
	ws, err := fx.x.WindowsOfPID(ctx, fx.f.PID)
	if err != nil {
		t.Fatalf("WindowsOfPID: %v", err)
	}
	ready, err := fx.f.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" })
	if err != nil {
		t.Fatal(err)
	}
	var w *x11.Window
	for i := range ws {
		if uint32(ws[i].ID) == ready.XID {
			w = &ws[i]
		}
	}
	if w == nil {
		t.Fatalf("WindowsOfPID(%d) = %v; the fixture says its window is 0x%x", fx.f.PID, ws, ready.XID)
	}
	if w.Title != "vibespace fixture" || w.PID != fx.f.PID || !w.Viewable {
		t.Errorf("fixture window = %+v", *w)
	}
	if want := xwininfo(t, fx.d, w.ID); w.Geometry != want {
		t.Errorf("geometry %v, xwininfo says %v", w.Geometry, want)
	}
}

// xwininfo asks x11-utils' xwininfo for a window's absolute geometry.
func xwininfo(t testing.TB, d *testenv.Desktop, id x11.WindowID) x11.Geometry {
	t.Helper()
	testenv.NeedIntegration(t, "xwininfo")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xwininfo", "-id", id.String())
	cmd.Env = d.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xwininfo: %v", err)
	}
	field := func(name string) int {
		m := regexp.MustCompile(name + `:\s+(-?\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("xwininfo output has no %q:\n%s", name, out)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return x11.Geometry{X: field("Absolute upper-left X"), Y: field("Absolute upper-left Y"), Width: field("Width"), Height: field("Height")}
}

func TestKilledWindowIsGone(t *testing.T) {
	fx := newFixture(t)
	id := fx.f.Window.ID
	if err := fx.f.Stop(); err != nil {
		t.Logf("stop: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// The server destroys the window when it notices the client's
	// connection closed; poll until it has.
	for {
		_, err := fx.x.Window(ctx, id)
		if target.CodeOf(err) == target.CodeWindowGone {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("window %s still there after its app was killed: %v", id, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := fx.x.Capture(ctx, id); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("Capture of a gone window = %v, want window_gone", err)
	}
	if err := fx.x.ClickIn(ctx, id, 1, 1, x11.ButtonLeft, 1); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("ClickIn on a gone window = %v, want window_gone", err)
	}
	if err := fx.x.Focus(ctx, id); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("Focus on a gone window = %v, want window_gone", err)
	}
}
