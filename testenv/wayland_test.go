package testenv_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/vibespace/vibespace/testenv"
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

// TestWaylandConsentSmoke checks the stack and Consent together: the real
// portal's RemoteDesktop Start (raw calls, a smoke check only) answers 0
// with keyboard+pointer granted and a stream once Consent presses Share
// with remote interaction on.
func TestWaylandConsentSmoke(t *testing.T) {
	w := testenv.NewWayland(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := dbus.Connect(w.BusAddress(), dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sender := strings.ReplaceAll(strings.TrimPrefix(conn.Names()[0], ":"), ".", "_")
	desk := conn.Object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	n := 0
	// request calls method with a fresh handle_token and waits for its
	// Response.
	request := func(method string, opts map[string]dbus.Variant, args ...any) (uint32, map[string]dbus.Variant) {
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
					return s.Body[0].(uint32), s.Body[1].(map[string]dbus.Variant)
				}
			case <-ctx.Done():
				t.Fatalf("%s: no Response: %v\nportal-gnome: %s", method, ctx.Err(), w.LogTail("xdg-desktop-portal-gnome"))
			}
		}
	}
	code, res := request("RemoteDesktop.CreateSession", map[string]dbus.Variant{"session_handle_token": dbus.MakeVariant("s1")})
	if code != 0 {
		t.Fatalf("CreateSession: %d %v", code, res)
	}
	session := dbus.ObjectPath(res["session_handle"].Value().(string))
	if code, res := request("RemoteDesktop.SelectDevices", map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(3))}, session); code != 0 {
		t.Fatalf("SelectDevices: %d %v", code, res)
	}
	if code, res := request("ScreenCast.SelectSources", map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(1))}, session); code != 0 {
		t.Fatalf("SelectSources: %d %v", code, res)
	}
	consent := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		err := w.Consent(cctx, true)
		if err != nil {
			t.Log(err)
		}
		consent <- err
	}()
	code, res = request("RemoteDesktop.Start", map[string]dbus.Variant{}, session, "")
	if err := <-consent; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("Start: %d %v", code, res)
	}
	devices, _ := res["devices"].Value().(uint32)
	streams, _ := res["streams"].Value().([][]any)
	t.Logf("Start: devices=%d streams=%v", devices, res["streams"])
	if devices != 3 || len(streams) != 1 {
		t.Fatalf("Start granted devices=%d, %d streams; want 3 and 1 (%v)", devices, len(streams), res)
	}
}
