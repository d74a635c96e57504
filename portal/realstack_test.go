package portal_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/testenv"
)

// Linux input event codes and X keysyms the test sends.
const (
	btnLeft = 0x110
	keysymQ = 0x71
)

// TestRealStack is the slow leg: the client against the real headless GNOME
// stack (pipewire, wireplumber, mutter --headless, xdg-desktop-portal and
// its GNOME backend), the consent dialog answered as a person would
// (testenv.Wayland.Consent, in the test only). A pointer click and typed
// keys reach a Wayland GTK client (its own log), and frames arrive over
// PipeWire through the portal's own remote.
func TestRealStack(t *testing.T) {
	w := testenv.NewWayland(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	app, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	c, err := portal.Dial(ctx, w.BusAddress(), portal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the real portal: RemoteDesktop v%d, ScreenCast v%d, devices %v, sources %v", info.RemoteDesktop, info.ScreenCast, info.Devices, info.Sources)

	consent := make(chan error, 1)
	go func() { consent <- w.Consent(ctx, true) }()
	s, err := c.Start(ctx, portal.Request{Devices: portal.Keyboard | portal.Pointer, Sources: portal.Monitor})
	if cerr := <-consent; cerr != nil {
		t.Fatalf("answering the consent dialog: %v", cerr)
	}
	if err != nil {
		t.Fatalf("Start: %v\nportal: %s", err, w.LogTail("xdg-desktop-portal"))
	}
	defer s.Close(context.Background())
	if s.Devices() != portal.Keyboard|portal.Pointer || len(s.Streams()) != 1 {
		t.Fatalf("granted devices %v, streams %+v; want keyboard and pointer, one stream", s.Devices(), s.Streams())
	}
	if s.RestoreToken() != "" {
		t.Fatal("Debian's 1.16 portal (RemoteDesktop v1) handed out a restore token")
	}
	node := s.Streams()[0].Node

	// The pointer: the fixture's 900×700 window is centred on the monitor,
	// its middle on the list of rows. Mutter may drop a new virtual
	// device's first events, and the window may still be coming up: the
	// click is sent again until the client logs it.
	clicked := func() error {
		for _, xy := range [][2]float64{{10, 10}, {testenv.WaylandWidth / 2, testenv.WaylandHeight / 2}} {
			if err := s.PointerMotionAbsolute(ctx, node, xy[0], xy[1]); err != nil {
				return err
			}
		}
		for _, pressed := range []bool{true, false} {
			if err := s.PointerButton(ctx, btnLeft, pressed); err != nil {
				return err
			}
		}
		return nil
	}
	until(t, ctx, "the click to reach the Wayland client", app.Log, clicked, func(e testenv.Event) bool { return e.Type == "select" && e.Widget == "list" })
	// Keys go to the window the click focused.
	typed := func() error {
		for _, pressed := range []bool{true, false} {
			if err := s.KeyboardKeysym(ctx, keysymQ, pressed); err != nil {
				return err
			}
		}
		return nil
	}
	until(t, ctx, "keys to reach the Wayland client", app.Log, typed, func(e testenv.Event) bool { return e.Type == "key" && e.Keysym == "q" })

	// Pixels: the stream over the portal's own PipeWire remote.
	fd, err := s.OpenPipeWireRemote(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	pw, err := capture.OpenPipeWire(ctx, fd, w.RuntimeDir(), node)
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	f, err := pw.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Width != testenv.WaylandWidth || f.Height != testenv.WaylandHeight {
		t.Fatalf("a frame of %dx%d; want the monitor's %dx%d", f.Width, f.Height, testenv.WaylandWidth, testenv.WaylandHeight)
	}
	lit := 0
	for i := 0; i+3 < len(f.Pix); i += 4 {
		if f.Pix[i]|f.Pix[i+1]|f.Pix[i+2] != 0 {
			lit++
		}
	}
	if lit < f.Width*f.Height/10 {
		t.Fatalf("the frame is black (%d of %d pixels lit): the fixture's window is not in it", lit, f.Width*f.Height)
	}

	// Closing the session ends it on the portal's side too.
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("the closed session is not done")
	}
	if err := s.KeyboardKeysym(ctx, keysymQ, true); err == nil {
		t.Fatal("a key was accepted on a closed session")
	}
}

// until sends (send) again every second until log has an event matching
// seen, for at most 30 s.
func until(t *testing.T, ctx context.Context, what string, log *testenv.FixtureLog, send func() error, seen func(testenv.Event) bool) {
	t.Helper()
	from := log.Len()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := send(); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := log.WaitFrom(wctx, from, seen)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}
