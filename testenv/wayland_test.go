package testenv_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

// TestWaylandMutterInput: on the stack, mutter's own RemoteDesktop session
// reaches the GTK3 fixture, a Wayland client: its log (not mutter) says
// the keys and the click arrived.
func TestWaylandMutterInput(t *testing.T) {
	w := testenv.NewWayland(t)
	t.Logf("stack up in %v, RSS %d MB", w.Startup.Round(time.Millisecond), w.RSS()>>20)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	m, err := w.Mutter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Node() == 0 {
		t.Fatal("no PipeWire node for the monitor's stream")
	}
	// The window has focus once mapped (its first widget says so); keys
	// typed before that may be lost. A key is logged by the window.
	if _, err := f.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "focus" }); err != nil {
		t.Fatal(err)
	}
	from := f.Log.Len()
	if err := m.Type(ctx, "xyz"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"x", "y", "z"} {
		ev, err := f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "key" && e.Keysym == k })
		if err != nil {
			t.Fatalf("key %s: %v\nmutter: %s", k, err, w.LogTail("mutter"))
		}
		from = ev.Seq
	}
	// The 900×700 window is centred on the 1280×720 monitor: its middle is
	// on the list of rows.
	from = f.Log.Len()
	if err := m.Click(ctx, testenv.WaylandWidth/2, testenv.WaylandHeight/2); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "select" && e.Widget == "list" }); err != nil {
		t.Fatalf("click: %v", err)
	}
}

// TestWaylandConsentSmoke checks the stack and Consent together, driving
// the real portal with raw calls (a smoke check only: the client is
// package portal's): Start answers 0 with keyboard+pointer granted and a
// stream once Consent presses Share with remote interaction on, and with
// no devices when it leaves the switch off; the granted stream's pixels
// come over the portal's own PipeWire remote.
func TestWaylandConsentSmoke(t *testing.T) {
	w := testenv.NewWayland(t)
	t.Run("allow input", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		ps, res := portalStart(ctx, t, w, true)
		devices, _ := res["devices"].Value().(uint32)
		streams, _ := res["streams"].Value().([][]any)
		t.Logf("Start: devices=%d streams=%v", devices, res["streams"])
		if devices != 3 || len(streams) != 1 {
			t.Fatalf("Start granted devices=%d, %d streams; want 3 and 1 (%v)", devices, len(streams), res)
		}
		node, _ := streams[0][0].(uint32)
		var fd dbus.UnixFD
		if err := ps.desk.CallWithContext(ctx, "org.freedesktop.portal.ScreenCast.OpenPipeWireRemote", 0, ps.session, map[string]dbus.Variant{}).Store(&fd); err != nil {
			t.Fatal(err)
		}
		remote := os.NewFile(uintptr(fd), "pipewire-remote")
		defer remote.Close()
		s, err := capture.OpenPipeWire(ctx, remote, "", node)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Width != testenv.WaylandWidth || f.Height != testenv.WaylandHeight {
			t.Fatalf("a %dx%d frame over the portal's remote", f.Width, f.Height)
		}
	})
	t.Run("deny input", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, res := portalStart(ctx, t, w, false)
		devices, _ := res["devices"].Value().(uint32)
		t.Logf("Start: %v", res)
		if devices != 0 {
			t.Fatalf("Start granted devices=%d with remote interaction off", devices)
		}
	})
}

type portalSession struct {
	desk    dbus.BusObject
	session dbus.ObjectPath
}

// portalStart runs CreateSession, SelectDevices (keyboard+pointer),
// SelectSources (a monitor) and Start, with Consent(allowInput) answering
// the dialog, and returns Start's results (it must answer 0). The
// connection lives until t ends.
func portalStart(ctx context.Context, t *testing.T, w *testenv.Wayland, allowInput bool) (portalSession, map[string]dbus.Variant) {
	t.Helper()
	conn, err := dbus.Connect(w.BusAddress(), dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	sender := strings.ReplaceAll(strings.TrimPrefix(conn.Names()[0], ":"), ".", "_")
	desk := conn.Object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	n := 0
	// request calls method with a fresh handle_token and waits for its
	// Response, which must be 0.
	request := func(method string, opts map[string]dbus.Variant, args ...any) map[string]dbus.Variant {
		t.Helper()
		n++
		token := fmt.Sprintf("t%d", n)
		path := dbus.ObjectPath("/org/freedesktop/portal/desktop/request/" + sender + "/" + token)
		if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(path), dbus.WithMatchMember("Response")); err != nil {
			t.Fatal(err)
		}
		opts["handle_token"] = dbus.MakeVariant(token)
		if err := desk.CallWithContext(ctx, "org.freedesktop.portal."+method, 0, append(args, opts)...).Err; err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for {
			select {
			case s := <-sigs:
				if s.Path == path && len(s.Body) == 2 {
					if code := s.Body[0].(uint32); code != 0 {
						t.Fatalf("%s answered %d %v", method, code, s.Body[1])
					}
					return s.Body[1].(map[string]dbus.Variant)
				}
			case <-ctx.Done():
				t.Fatalf("%s: no Response: %v\nportal-gnome: %s", method, ctx.Err(), w.LogTail("xdg-desktop-portal-gnome"))
			}
		}
	}
	res := request("RemoteDesktop.CreateSession", map[string]dbus.Variant{"session_handle_token": dbus.MakeVariant("s1")})
	session := dbus.ObjectPath(res["session_handle"].Value().(string))
	request("RemoteDesktop.SelectDevices", map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(3))}, session)
	request("ScreenCast.SelectSources", map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(1))}, session)
	consent := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		consent <- w.Consent(cctx, allowInput)
	}()
	res = request("RemoteDesktop.Start", map[string]dbus.Variant{}, session, "")
	if err := <-consent; err != nil {
		t.Fatal(err)
	}
	return portalSession{desk: desk, session: session}, res
}

// TestWaylandCloseReaps: Close ends every process of the stack — those it
// started and those the buses activated — and removes its dir.
func TestWaylandCloseReaps(t *testing.T) {
	testenv.NeedWayland(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w, err := testenv.StartWayland(ctx, "", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range xvfb.MarkedPIDs(w.ID()) {
		names = append(names, xvfb.ProcName(p))
	}
	t.Logf("stack processes: %v, RSS %d MB, up in %v", names, w.RSS()>>20, w.Startup.Round(time.Millisecond))
	for _, want := range []string{"dbus-daemon", "pipewire", "wireplumber", "mutter", "at-spi-bus-laun", "at-spi2-registr", "xdg-desktop-por"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s among the stack's processes %v", want, names)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if left := xvfb.MarkedPIDs(w.ID()); len(left) > 0 {
		t.Fatalf("left running after Close: %v", left)
	}
	if _, err := os.Stat(w.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("dir %s after Close: %v", w.Dir(), err)
	}
}
