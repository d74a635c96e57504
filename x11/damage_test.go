package x11_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
)

// paint fills w with pixel (0xRRGGBB on a TrueColor screen) and waits for
// the server to have done it.
func (x *xconn) paint(w xproto.Window, pixel uint32) {
	x.t.Helper()
	gc, err := xproto.NewGcontextId(x.c)
	if err != nil {
		x.t.Fatal(err)
	}
	if err := xproto.CreateGCChecked(x.c, gc, xproto.Drawable(w), xproto.GcForeground, []uint32{pixel}).Check(); err != nil {
		x.t.Fatalf("CreateGC: %v", err)
	}
	defer xproto.FreeGC(x.c, gc)
	if err := xproto.PolyFillRectangleChecked(x.c, xproto.Drawable(w), gc,
		[]xproto.Rectangle{{X: 0, Y: 0, Width: 1000, Height: 1000}}).Check(); err != nil {
		x.t.Fatalf("PolyFillRectangle: %v", err)
	}
}

// rgbAt is the colour of c's pixel (px, py) as 0xRRGGBB.
func rgbAt(c *x11.Capture, px, py int) uint32 {
	o := c.Image.PixOffset(px, py)
	p := c.Image.Pix[o : o+3]
	return uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
}

// ownPixelsDesktop is a desktop of the test's own whose top-level windows
// keep their own pixels (through d's connection).
func ownPixelsDesktop(t *testing.T, ctx context.Context) (*xconn, *x11.Display) {
	t.Helper()
	d := testenv.NewDesktop(t)
	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disp.Close() })
	if err := disp.KeepOwnPixels(ctx); err != nil {
		t.Fatal(err)
	}
	return dial(t, d.Display), disp
}

// TestCoveredWindowsOwnColours: three windows at the same place, each
// painted its own colour, each read as its own colour though two are
// covered; the stack (QueryTree on the test's own connection) is the same
// after the reads. Painting the bottom one while covered is signalled by
// its damage watch and read.
func TestCoveredWindowsOwnColours(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	x, disp := ownPixelsDesktop(t, ctx)
	colours := []uint32{0xff0000, 0x00ff00, 0x0000ff}
	var ws []xproto.Window
	for _, c := range colours {
		w := x.window(0, 40, 30, 120, 90)
		x.mapWindow(w)
		x.paint(w, c)
		ws = append(ws, w)
	}
	before := x.children()
	for i, w := range ws {
		c, err := disp.Capture(ctx, x11.WindowID(w))
		if err != nil {
			t.Fatalf("capture window %d: %v", i, err)
		}
		if got := rgbAt(c, 60, 45); got != colours[i] {
			t.Errorf("window %d (0x%x) reads %06x, want its own %06x", i, w, got, colours[i])
		}
	}
	if after := x.children(); !slices.Equal(before, after) {
		t.Errorf("the stack changed with the reads: %v, then %v", before, after)
	}

	// The bottom window, covered by two, painted anew.
	g, err := disp.WatchDamage(ctx, x11.WindowID(ws[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// Painted three times, each followed by a signal and a read of the
	// new colour. The server may report drawing from before the watch
	// (the map's) right after it began: that signal may answer the first
	// paint; the read after it (on the watch's connection, so after the
	// re-arm) shows the paint, and the next paint signals anew.
	for _, colour := range []uint32{0xffff00, 0x00ffff, 0xff00ff} {
		x.paint(ws[0], colour)
		select {
		case <-g.C():
		case <-ctx.Done():
			t.Fatalf("painting the covered window %06x was never signalled", colour)
		}
		c, err := disp.Capture(ctx, x11.WindowID(ws[0]))
		if err != nil {
			t.Fatal(err)
		}
		if got := rgbAt(c, 10, 10); got != colour {
			t.Errorf("the repainted covered window reads %06x, want %06x", got, colour)
		}
	}
	if err := g.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if after := x.children(); !slices.Equal(before, after) {
		t.Errorf("the stack changed: %v, then %v", before, after)
	}
}

// TestDamageOfDestroyedWindow: destroying the window ends its watch (Done
// closes, C is signalled), the capture says window_gone, Close is clean;
// watching a window that does not exist is window_gone.
func TestDamageOfDestroyedWindow(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	x, disp := ownPixelsDesktop(t, ctx)
	w := x.window(0, 10, 10, 50, 50)
	x.mapWindow(w)
	g, err := disp.WatchDamage(ctx, x11.WindowID(w))
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.DestroyWindowChecked(x.c, w).Check(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.Done():
	case <-ctx.Done():
		t.Fatal("the watch of a destroyed window never ended")
	}
	select {
	case <-g.C():
	default:
		t.Error("the end of the watch was not signalled on C")
	}
	if _, err := disp.Capture(ctx, x11.WindowID(w)); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("capture of the destroyed window: %v, want window_gone", err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("close after destruction: %v", err)
	}
	if _, err := disp.WatchDamage(ctx, x11.WindowID(w)); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("watch of a window that is gone: %v, want window_gone", err)
	}
	// The display still answers.
	if _, err := disp.Extensions(ctx, "DAMAGE"); err != nil {
		t.Errorf("the display after all this: %v", err)
	}
}

// TestXpraDamage: under a real seamless xpra server (which composites its
// windows itself), with our connection keeping own pixels as the native
// provider does, two plain windows of the test's own at one place, both
// shown by xpra: painting the covered one is signalled by its damage watch
// and read as its own colour; the other reads its own.
func TestXpraDamage(t *testing.T) {
	testenv.NeedIntegration(t, "xpra")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	xd := testenv.NewXpra(t, xpra.Options{Logf: t.Logf})
	disp, err := x11.Open(ctx, xd.Desktop.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer disp.Close()
	if err := disp.KeepOwnPixels(ctx); err != nil {
		t.Fatalf("KeepOwnPixels under xpra: %v", err)
	}
	x := dial(t, xd.Desktop.Display)
	show := func(w xproto.Window) {
		t.Helper()
		for {
			err := xd.Show(ctx, disp, x11.WindowID(w))
			if err == nil {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("xpra never showed 0x%x: %v", w, err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	under := x.window(0, 50, 50, 120, 90)
	x.mapWindow(under)
	show(under)
	over := x.window(0, 50, 50, 120, 90)
	x.mapWindow(over)
	show(over)
	x.paint(over, 0x00ff00)
	x.paint(under, 0xff0000)

	g, err := disp.WatchDamage(ctx, x11.WindowID(under))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, colour := range []uint32{0xffff00, 0x0000ff} { // as in TestCoveredWindowsOwnColours
		x.paint(under, colour)
		select {
		case <-g.C():
		case <-ctx.Done():
			t.Fatal("painting a window under xpra was never signalled")
		}
		if _, err := disp.Capture(ctx, x11.WindowID(under)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		w    xproto.Window
		want uint32
	}{{under, 0x0000ff}, {over, 0x00ff00}} {
		cp, err := disp.Capture(ctx, x11.WindowID(c.w))
		if err != nil {
			t.Fatalf("capture 0x%x: %v", c.w, err)
		}
		if got := rgbAt(cp, 60, 45); got != c.want {
			t.Errorf("window 0x%x under xpra reads %06x, want %06x", c.w, got, c.want)
		}
	}
}
