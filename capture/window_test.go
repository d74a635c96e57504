package capture_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestWindowOfFixture captures the fixture's real window through MIT-SHM
// and checks the frame against what the X server says of the window.
func TestWindowOfFixture(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	fx, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Stop()
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer disp.Close()
	win, err := disp.Window(ctx, fx.Window.ID)
	if err != nil {
		t.Fatal(err)
	}

	src := capture.NewWindow(disp, win.ID, capture.WindowOptions{FPS: 10})
	defer src.Close()
	// A GTK window is not one flat colour — once it has painted: with no
	// compositor, a window mapped a moment ago may still be black in the
	// first grab. Unchanged frames are skipped, so each Next here is a new
	// picture; the test's deadline bounds the wait.
	var f capture.Frame
	for flat := true; flat; {
		var err error
		if f, err = src.Next(ctx); err != nil {
			t.Fatalf("no painted picture of the window (the last was one flat colour): %v", err)
		}
		if f.Width != win.Geometry.Width || f.Height != win.Geometry.Height {
			t.Fatalf("frame %dx%d, window %s", f.Width, f.Height, win.Geometry)
		}
		if len(f.Pix) < f.Stride*f.Height || f.Stride < 4*f.Width {
			t.Fatalf("frame buffer %d bytes, stride %d, for %dx%d", len(f.Pix), f.Stride, f.Width, f.Height)
		}
		first := f.Pix[0:4]
		for i := 0; i+4 <= len(f.Pix) && flat; i += 4 * 97 {
			flat = string(f.Pix[i:i+4]) == string(first)
		}
	}
	src.RequestKeyframe()
	g, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g.Seq != f.Seq+1 || g.Width != f.Width {
		t.Fatalf("the frame after a keyframe request: seq %d after %d, %dx%d", g.Seq, f.Seq, g.Width, g.Height)
	}

	// The window going away ends the stream with window_gone.
	if err := fx.Stop(); err != nil {
		t.Logf("stop: %v", err)
	}
	for {
		_, err := src.Next(ctx)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			t.Fatalf("the window's end was never reported: %v", err)
		}
		if target.CodeOf(err) != target.CodeWindowGone {
			t.Fatalf("after the app exited: %v, want window_gone", err)
		}
		break
	}
}
