package portal_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/testenv"
)

// TestRealGnomeShell: on real GNOME Shell 43 (its Introspect service lists
// windows to the portal's picker) one window is shared — the person picks
// the fixture's window in the portal's own dialog and allows remote
// interaction — and the stream is that window's: a frame at the window's
// own size, and a point of the stream (window coordinates) clicks the
// widget there, as the fixture's own log says. Debian's frontend is
// RemoteDesktop v1: no restore token.
func TestRealGnomeShell(t *testing.T) {
	w := testenv.NewShell(t, testenv.GnomeShell)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// The person brings the window forward out of the overview GNOME
	// Shell starts in, with their own pointer (kept to the test's end: a
	// session closed at once can drop the click before it lands).
	bring := func() error {
		hand, err := w.Mutter(ctx)
		if err != nil {
			return err
		}
		t.Cleanup(func() { hand.Close() })
		return w.Bring(ctx, hand)
	}
	app, c, info := shellPortal(t, ctx, w, "GNOME Shell", bring)
	if info.Sources&portal.Window == 0 {
		t.Fatalf("GNOME Shell's portal offers no window source: %v", info.Sources)
	}
	consent := make(chan error, 1)
	go func() { consent <- w.ConsentTo(ctx, testenv.Answer{AllowInput: true, Window: "vibespace fixture"}) }()
	s, err := c.Start(ctx, portal.Request{Devices: portal.Keyboard | portal.Pointer, Sources: portal.Window})
	if cerr := <-consent; cerr != nil {
		t.Fatalf("answering the consent dialog: %v", cerr)
	}
	if err != nil {
		t.Fatalf("Start: %v\nportal: %s", err, w.LogTail("xdg-desktop-portal"))
	}
	defer s.Close(context.Background())
	st := s.Streams()
	if s.Devices() != portal.Keyboard|portal.Pointer || len(st) != 1 || st[0].SourceType != portal.Window {
		t.Fatalf("granted devices %v, streams %+v; want keyboard and pointer, one window stream", s.Devices(), st)
	}
	if s.RestoreToken() != "" {
		t.Fatal("a RemoteDesktop v1 portal handed out a restore token")
	}
	t.Logf("the window stream: %+v", st[0])

	// Pixels: the window's own frame, not the monitor's.
	fd, err := s.OpenPipeWireRemote(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	pw, err := capture.OpenPipeWire(ctx, fd, w.RuntimeDir(), st[0].Node)
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	f, err := pw.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Mutter casts a window in a stream the size of its monitor (a window
	// may grow; a stream cannot), the window at the top left, and says in
	// each buffer (its SPA_META_VideoCrop) where the window's surface is:
	// the frame is that crop, the window alone, nothing of the rest of the
	// desktop (the shell's top bar, its wallpaper), at most the monitor's
	// size (the GTK 3 fixture, 952×740 with its shadow, is cut at 720).
	crop := pw.Crop()
	if !crop.Cropped || crop.X != 0 || crop.Y != 0 || f.Width < 880 || f.Height < 660 || f.Width > testenv.WaylandWidth || f.Height > testenv.WaylandHeight {
		t.Fatalf("a frame of %dx%d cut at %+v: want the window's surface, cut at the stream buffer's top left", f.Width, f.Height, crop)
	}
	lit := func(x0, y0, x1, y1 int) (n int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				p := f.Pix[y*f.Stride+4*x:]
				if p[0]|p[1]|p[2] != 0 {
					n++
				}
			}
		}
		return n
	}
	win := lit(0, 0, 880, 660)
	t.Logf("a frame of %dx%d, cut at %+v: %d lit pixels in the window's place", f.Width, f.Height, crop, win)
	if win < 880*660/2 {
		t.Fatalf("the window stream's frame is not the window: %d lit pixels in its place", win)
	}

	// A point of the window stream is a point of the window: (450, 340)
	// of the fixture's window (placed at 0,32, under the shell's top bar)
	// is on its list of rows, which starts 313 px down the window; the
	// same point of the monitor is the gap above the list (screen 337–345).
	// Clicked until the app logs it (a new virtual device's first events
	// may be dropped).
	clicked := func() error {
		return clickAt(ctx, s, st[0].Node, 450, 340)
	}
	until(t, ctx, "the click on the list to reach the window", app.Log, clicked, func(e testenv.Event) bool { return e.Type == "select" && e.Widget == "list" })
	typed := func() error {
		for _, pressed := range []bool{true, false} {
			if err := s.KeyboardKeysym(ctx, keysymQ, pressed); err != nil {
				return err
			}
		}
		return nil
	}
	until(t, ctx, "keys to reach the window", app.Log, typed, func(e testenv.Event) bool { return e.Type == "key" && e.Keysym == "q" })
}

// TestRealKWin: on real KDE KWin 5.27 the portal's RemoteDesktop grants
// keyboard and pointer with no source and no dialog at all (portal-kde
// 5.27 asks nothing for input alone), and its keys reach the focused
// Wayland window, as the fixture's own log says. (No ScreenCast here:
// portal-kde's chooser draws live window thumbnails, and headless KWin 5.27
// dies of SIGSEGV as it does, with QPainter or llvmpipe alike.)
func TestRealKWin(t *testing.T) {
	w := testenv.NewShell(t, testenv.KWin)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	app, c, _ := shellPortal(t, ctx, w, "KWin", nil)
	s, err := c.Start(ctx, portal.Request{Devices: portal.Keyboard | portal.Pointer})
	if err != nil {
		t.Fatalf("Start: %v\nportal-kde: %s", err, w.LogTail("xdg-desktop-portal-kde"))
	}
	defer s.Close(context.Background())
	if s.Devices() != portal.Keyboard|portal.Pointer || len(s.Streams()) != 0 {
		t.Fatalf("granted devices %v, streams %+v; want keyboard and pointer, no stream", s.Devices(), s.Streams())
	}
	typed := func() error {
		for _, pressed := range []bool{true, false} {
			if err := s.KeyboardKeysym(ctx, keysymQ, pressed); err != nil {
				return err
			}
		}
		return nil
	}
	until(t, ctx, "keys to reach the window", app.Log, typed, func(e testenv.Event) bool { return e.Type == "key" && e.Keysym == "q" })
}

// shellPortal starts the fixture on w's shell, brings it forward (bring,
// when the shell does not focus a new window), waits for the fixture's own
// word of its focus, and dials and probes w's portal, logging what it
// offers. The fixture and the client end with the test.
func shellPortal(t *testing.T, ctx context.Context, w *testenv.Wayland, shell string, bring func() error) (*testenv.WaylandFixture, *portal.Client, portal.Info) {
	t.Helper()
	app, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Stop)
	if bring != nil {
		if err := bring(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := app.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "focus" }); err != nil {
		t.Fatal(err)
	}
	c, err := portal.Dial(ctx, w.BusAddress(), portal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	info, err := c.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s's portal: RemoteDesktop v%d, ScreenCast v%d, devices %v, sources %v, %+v", shell, info.RemoteDesktop, info.ScreenCast, info.Devices, info.Sources, info.Shell)
	if info.Shell.Compositor != shell {
		t.Fatalf("the portal's bus names the compositor %q, not %s", info.Shell.Compositor, shell)
	}
	return app, c, info
}

// clickAt moves the pointer to x, y of stream node and clicks the left
// button.
func clickAt(ctx context.Context, s *portal.Session, node uint32, x, y float64) error {
	if err := s.PointerMotionAbsolute(ctx, node, x, y); err != nil {
		return err
	}
	for _, pressed := range []bool{true, false} {
		if err := s.PointerButton(ctx, btnLeft, pressed); err != nil {
			return err
		}
	}
	return nil
}
