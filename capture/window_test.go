package capture_test

import (
	"context"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

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

// ownWindow is a plain X window of the test's own on d, mapped at (x, y),
// on a connection of its own (the oracle and the painter).
type ownWindow struct {
	t  testing.TB
	c  *xgb.Conn
	id xproto.Window
}

func newOwnWindow(t testing.TB, c *xgb.Conn, x, y int) *ownWindow {
	t.Helper()
	scr := xproto.Setup(c).DefaultScreen(c)
	id, err := xproto.NewWindowId(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(c, scr.RootDepth, id, scr.Root, int16(x), int16(y), 80, 60, 0,
		xproto.WindowClassInputOutput, scr.RootVisual, xproto.CwBackPixel, []uint32{scr.WhitePixel}).Check(); err != nil {
		t.Fatal(err)
	}
	if err := xproto.MapWindowChecked(c, id).Check(); err != nil {
		t.Fatal(err)
	}
	return &ownWindow{t: t, c: c, id: id}
}

// paint fills the window with pixel 0xRRGGBB, done when it returns.
func (w *ownWindow) paint(pixel uint32) {
	w.t.Helper()
	gc, err := xproto.NewGcontextId(w.c)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := xproto.CreateGCChecked(w.c, gc, xproto.Drawable(w.id), xproto.GcForeground, []uint32{pixel}).Check(); err != nil {
		w.t.Fatal(err)
	}
	defer xproto.FreeGC(w.c, gc)
	if err := xproto.PolyFillRectangleChecked(w.c, xproto.Drawable(w.id), gc,
		[]xproto.Rectangle{{Width: 1000, Height: 1000}}).Check(); err != nil {
		w.t.Fatal(err)
	}
}

// rgb is the colour of f's first pixel, in either format.
func rgb(f capture.Frame) uint32 {
	r, g, b := f.Pix[0], f.Pix[1], f.Pix[2]
	if f.Format == capture.FormatBGRX {
		r, b = b, r
	}
	return uint32(r)<<16 | uint32(g)<<8 | uint32(b)
}

// TestStaticWindowCostsNothing: on a display whose windows keep their own
// pixels, a still window is read once: Next waits and Captures stays where
// it was while nothing draws (a second of nothing, counted, not timed);
// painting it while another window covers it delivers one frame of the new
// colour; a keyframe request delivers the unchanged picture, Forced.
func TestStaticWindowCostsNothing(t *testing.T) {
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer disp.Close()
	if err := disp.KeepOwnPixels(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := xgb.NewConnDisplay(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := newOwnWindow(t, c, 20, 20)
	w.paint(0xff0000)

	src := capture.NewWindow(disp, x11.WindowID(w.id), capture.WindowOptions{FPS: 30})
	defer src.Close()
	f, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Damaged() {
		t.Fatalf("not damage-driven: %v", src.DamageError())
	}
	// The first picture may predate the paint's arrival; wait for red.
	for rgb(f) != 0xff0000 {
		if f, err = src.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Let any signal of the map's own drawing be answered (a read that
	// finds nothing new), then count.
	drain, dcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if _, err := src.Next(drain); err == nil {
		t.Fatal("a still window delivered a frame")
	}
	dcancel()
	reads := src.Captures()
	quiet, qcancel := context.WithTimeout(ctx, time.Second)
	_, err = src.Next(quiet)
	qcancel()
	if err == nil {
		t.Fatal("a still window delivered a frame")
	}
	if n := src.Captures(); n != reads {
		t.Errorf("a still window was read %d times in a second of nothing", n-reads)
	}

	// Covered, then painted: one frame of the new colour.
	cover := newOwnWindow(t, c, 0, 0)
	cover.paint(0x00ff00)
	ch := nextAsync(ctx, src)
	w.paint(0x0000ff)
	r := <-ch
	if r.err != nil || rgb(r.f) != 0x0000ff || r.f.Forced {
		t.Fatalf("after painting the covered window: %06x forced=%v %v", rgb(r.f), r.f.Forced, r.err)
	}
	// A keyframe request on the still window: the same picture, Forced.
	ch = nextAsync(ctx, src)
	src.RequestKeyframe()
	r = <-ch
	if r.err != nil || !r.f.Forced || rgb(r.f) != 0x0000ff {
		t.Fatalf("keyframe request: %06x forced=%v %v", rgb(r.f), r.f.Forced, r.err)
	}
	// The window destroyed: window_gone.
	if err := xproto.DestroyWindowChecked(c, w.id).Check(); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := src.Next(ctx)
		if err == nil {
			continue
		}
		if target.CodeOf(err) != target.CodeWindowGone {
			t.Fatalf("after the window's destruction: %v, want window_gone", err)
		}
		break
	}
}
