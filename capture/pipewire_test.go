//go:build cgo && !vibespace_nopipewire

package capture_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/testenv"
)

// TestPipeWireMonitor reads mutter's virtual monitor over PipeWire (the
// stream of mutter's own ScreenCast, as a portal session's would be): the
// frames are the monitor's size, show the fixture's window (its log says
// it is mapped, so the picture is not all black), and change when the
// fixture does (its log says the entry got the typed text).
func TestPipeWireMonitor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w, fx, m := monitorWithFixture(t, ctx)

	t0 := time.Now()
	s, err := capture.OpenPipeWire(ctx, nil, w.RuntimeDir(), m.Node())
	if err != nil {
		t.Fatalf("%v\nmutter: %s", err, w.LogTail("mutter"))
	}
	defer s.Close()
	if wd, ht := s.Size(); wd != testenv.WaylandWidth || ht != testenv.WaylandHeight {
		t.Fatalf("negotiated %dx%d, want the monitor's %dx%d", wd, ht, testenv.WaylandWidth, testenv.WaylandHeight)
	}
	first, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first frame %v after OpenPipeWire: %dx%d %v stride %d", time.Since(t0).Round(time.Millisecond), first.Width, first.Height, first.Format, first.Stride)
	if first.Width != testenv.WaylandWidth || first.Height != testenv.WaylandHeight || len(first.Pix) != first.Stride*first.Height {
		t.Fatalf("frame %dx%d stride %d, %d bytes", first.Width, first.Height, first.Stride, len(first.Pix))
	}
	if lit := litPixels(first); lit < first.Width*first.Height/10 {
		t.Fatalf("only %d of %d pixels are not black, with the fixture's window mapped", lit, first.Width*first.Height)
	}

	// Tab from the first button to the entry (the log says when it is
	// there), then type into it: the log says the text arrived, and a
	// frame after that must differ from the one before.
	for i := 0; i < 10; i++ {
		from := fx.Log.Len()
		if err := m.Key(ctx, 0xff09); err != nil { // Tab
			t.Fatal(err)
		}
		ev, err := fx.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "focus" })
		if err != nil {
			t.Fatal(err)
		}
		if ev.Widget == "entry" {
			break
		}
	}
	s.RequestKeyframe()
	before, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from := fx.Log.Len()
	if err := m.Type(ctx, "WWWW"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" && e.Text == "WWWW" }); err != nil {
		t.Fatal(err)
	}
	var after capture.Frame
	for {
		if after, err = s.Next(ctx); err != nil {
			t.Fatalf("no frame changed after the text arrived: %v", err)
		}
		if n := diffPixels(before, after); n > 0 {
			t.Logf("frame %d differs from frame %d in %d pixels after typing", after.Seq, before.Seq, n)
			break
		}
	}

	// The rate while the fixture keeps changing (printed, not asserted).
	typing, stop := context.WithTimeout(ctx, 3*time.Second)
	defer stop()
	go func() {
		for typing.Err() == nil {
			_ = m.Type(typing, "x")
			time.Sleep(10 * time.Millisecond)
		}
	}()
	n := 0
	for {
		if _, err := s.Next(typing); err != nil {
			break
		}
		n++
	}
	t.Logf("%d frames in 3 s (%.1f fps) while typing", n, float64(n)/3)

	s.Close()
	if _, err := s.Next(ctx); !errors.Is(err, capture.ErrClosed) {
		t.Fatalf("Next after Close: %v, want ErrClosed", err)
	}
}

// monitorWithFixture is a bare mutter stack with the fixture's window
// mapped and focused, and mutter's own screen cast of its monitor (m's
// Node), each stopped at t's end.
func monitorWithFixture(t *testing.T, ctx context.Context) (*testenv.Wayland, *testenv.WaylandFixture, *testenv.MutterInput) {
	t.Helper()
	w := testenv.NewWayland(t)
	fx, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fx.Stop)
	m, err := w.Mutter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	// The headless seat's only keyboard is the session's virtual one: the
	// window gets keyboard focus once it exists.
	if _, err := fx.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "focus" }); err != nil {
		t.Fatal(err)
	}
	return w, fx, m
}

// litPixels counts the pixels whose colour bytes are not all zero.
func litPixels(f capture.Frame) int {
	n := 0
	for y := 0; y < f.Height; y++ {
		row := f.Pix[y*f.Stride:]
		for x := 0; x < f.Width; x++ {
			if row[4*x] != 0 || row[4*x+1] != 0 || row[4*x+2] != 0 {
				n++
			}
		}
	}
	return n
}

// diffPixels counts the pixels that differ between two frames of one size.
func diffPixels(a, b capture.Frame) int {
	if a.Width != b.Width || a.Height != b.Height {
		return a.Width * a.Height
	}
	n := 0
	for y := 0; y < a.Height; y++ {
		ra, rb := a.Pix[y*a.Stride:], b.Pix[y*b.Stride:]
		for x := 0; x < a.Width; x++ {
			if !bytes.Equal(ra[4*x:4*x+3], rb[4*x:4*x+3]) {
				n++
			}
		}
	}
	return n
}
