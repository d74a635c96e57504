package displays_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// scaledMonitor is the virtual monitor of TestYourScaledGnomeShellDesktop
// at scale: 1600×1200, the least of mutter's sizes that offers 2 (it
// offers a scale only where the monitor keeps 800×480 logical pixels)
// and 1.25 exactly (1280×960 logical).
func scaledMonitor(scale float64) testenv.Monitor {
	return testenv.Monitor{Width: 1600, Height: 1200, Scale: scale}
}

// TestYourScaledGnomeShellDesktop is the geometry of a shared window on
// real GNOME Shell 43 with its monitor at scale 2, and at the fractional
// 1.25 (mutter's scale-monitor-framebuffer; clients draw at 2 there, and
// the compositor scales the monitor down), for GTK 4 and Qt 5: the
// window's screenshot is its whole surface at its own pixels, 2 a logical
// pixel (nothing cut at the right or bottom), and click --at a pixel of
// it lands on that pixel: the centre of the toolkit's button, read from
// the snapshot's bounds and mapped into the screenshot's pixels, is logged
// by the fixture as a click on that button, its press at the button's
// centre in the fixture's own logical pixels. (GTK 3's fixture is bigger
// than this monitor's 800×600 logical pixels at 2; its row of
// TestYourGnomeShellDesktop proves it at scale 1.)
func TestYourScaledGnomeShellDesktop(t *testing.T) {
	for _, sc := range []float64{2, 1.25} {
		for _, tk := range gnomeShellToolkits[1:] {
			t.Run(fmt.Sprintf("%s@%g", tk.name, sc), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
				defer cancel()
				e, w, app, denv := shellDesktopOn(t, ctx, testenv.GnomeShell, scaledMonitor(sc), tk.script)
				id := openedWindow(t, ctx, e, denv, tk.title, app.PID)
				shareWindow(t, ctx, e, w, app, id, tk.title)
				// Both scales have clients draw at 2 on mutter 43.
				const bufferScale = 2
				snap := e.Snapshot("s1", id)
				wholeShot(t, e, id, tk, snap, bufferScale)
				e.OK("operator", "desktop", "pixels", id)
				clickNode(t, ctx, e, app, id, tk, snap, bufferScale)
				e.OK("operator", "desktop", "off")
			})
		}
	}
}

// wholeShot takes id's screenshot and checks it holds the window whole:
// its content (the snapshot's root's bounds, logical pixels) at tk's
// content offset, scale pixels a logical pixel, inside the picture
// (nothing cut at the right or bottom); and the picture is no bigger
// than the window with a decoration's worth round it.
func wholeShot(t *testing.T, e *env, id string, tk shellToolkit, snap *target.Snapshot, scale int) image.Config {
	t.Helper()
	path := filepath.Join(e.Dir, fmt.Sprintf("%s-%d-window.png", tk.name, scale))
	if shot := e.Answer("s1", "screenshot", id, "--out", path); !shot.OK {
		t.Fatalf("screenshot: %+v", shot)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	b := snap.Root.Bounds
	if b == nil {
		t.Fatalf("the window's frame has no bounds")
	}
	needW, needH := scale*(tk.content[0]+b.W), scale*(tk.content[1]+b.H)
	t.Logf("the screenshot of the window: %dx%d; its content %dx%d logical pixels at %v of its surface, %d pixels each: %dx%d", cfg.Width, cfg.Height, b.W, b.H, tk.content, scale, needW, needH)
	const decoration = 64 // logical pixels round the content, at most
	if cfg.Width < needW || cfg.Height < needH {
		t.Fatalf("the screenshot (%dx%d) cuts the window's content off at the right or bottom (it needs %dx%d)", cfg.Width, cfg.Height, needW, needH)
	}
	if cfg.Width > needW+scale*decoration || cfg.Height > needH+scale*decoration {
		t.Fatalf("the screenshot (%dx%d) is more than the window (%dx%d and its decoration)", cfg.Width, cfg.Height, needW, needH)
	}
	return cfg
}

// clickNode is click --at the centre of tk's button: its bounds in the
// snapshot (the toolkit's logical pixels of the window's content) mapped
// into the screenshot's pixels by the rule of a Wayland window's
// screenshot (the README's): (content offset + bounds) × scale. The
// fixture logs a click on that button, and, where it logs presses, the
// press at the button's centre in its own logical pixels (within the half
// pixel a pixel of the screenshot is at scale 2).
func clickNode(t *testing.T, ctx context.Context, e *env, app *testenv.WaylandFixture, id string, tk shellToolkit, snap *target.Snapshot, scale int) {
	t.Helper()
	n := findNode(t, snap, "push button", tk.button)
	if n.Bounds == nil {
		t.Fatalf("%s %q has no bounds", n.Role, n.Name)
	}
	cx, cy := n.Bounds.X+n.Bounds.W/2, n.Bounds.Y+n.Bounds.H/2
	at := fmt.Sprintf("%d,%d", scale*(tk.content[0]+cx), scale*(tk.content[1]+cy))
	from := app.Log.Len()
	untilLogged(t, ctx, e, app, fmt.Sprintf("click --at %s (the centre of %s %v)", at, n.Ref, n.Bounds), func(ev testenv.Event) bool {
		return ev.Type == "click" && ev.Widget == tk.buttonWidget
	}, "click", id, "--at", at)
	if !tk.pressLogged {
		return
	}
	ev, err := app.Log.WaitFrom(ctx, from, func(ev testenv.Event) bool { return ev.Type == "button" && ev.Button == 1 })
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ev.X-float64(cx)) > 0.5 || math.Abs(ev.Y-float64(cy)) > 0.5 {
		t.Fatalf("click --at %s was pressed at %g,%g of the window's content, not the button's centre %d,%d", at, ev.X, ev.Y, cx, cy)
	}
}
