package portal_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/portal/portaltest"
)

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// setup: a private bus, the fake frontend on it, and a client.
func setup(t testing.TB, o portaltest.FakeOptions, po portal.Options) (*portaltest.Fake, *portal.Client) {
	t.Helper()
	bus := portaltest.NewBus(t)
	f := portaltest.NewFake(t, bus.Addr, o)
	c, err := portal.Dial(ctxT(t, 10*time.Second), bus.Addr, po)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return f, c
}

var full = portal.Request{Devices: portal.Keyboard | portal.Pointer, Sources: portal.Monitor, Cursor: 2}

func TestProbe(t *testing.T) {
	_, c := setup(t, portaltest.FakeOptions{Devices: 3, Sources: 1, Cursors: 2}, portal.Options{})
	info, err := c.Probe(ctxT(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := portal.Info{RemoteDesktop: 2, ScreenCast: 4, Devices: 3, Sources: 1, Cursors: 2}
	if info != want {
		t.Fatalf("Probe = %+v, want %+v", info, want)
	}
}

func TestProbeNoPortal(t *testing.T) {
	bus := portaltest.NewBus(t)
	c, err := portal.Dial(ctxT(t, 10*time.Second), bus.Addr, portal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Probe(ctxT(t, 10*time.Second))
	if !errors.Is(err, portal.ErrNoPortal) {
		t.Fatalf("Probe on a bus with no portal = %v, want ErrNoPortal", err)
	}
	t.Logf("%v", err)
}

func TestGrantDevicesStreamsToken(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	f.SetPolicy(portaltest.Policy{Streams: []portaltest.Stream{{Node: 77, SourceType: 1, Position: [2]int32{10, 20}, Size: [2]int32{1920, 1080}, ID: "s0"}}})
	r := full
	r.Persist = true
	s, err := c.Start(ctxT(t, 20*time.Second), r)
	if err != nil {
		t.Fatal(err)
	}
	if s.Devices() != portal.Keyboard|portal.Pointer {
		t.Errorf("Devices = %v", s.Devices())
	}
	want := []portal.Stream{{Node: 77, SourceType: portal.Monitor, Position: [2]int32{10, 20}, Size: [2]int32{1920, 1080}, ID: "s0"}}
	if !reflect.DeepEqual(s.Streams(), want) {
		t.Errorf("Streams = %+v, want %+v", s.Streams(), want)
	}
	if !strings.HasPrefix(s.RestoreToken(), "fake-token-") {
		t.Errorf("RestoreToken = %q", s.RestoreToken())
	}
	// The wire: the calls in order, with a fresh handle_token each, the
	// session handle from CreateSession, and SelectSources' options.
	var methods []string
	tokens := map[string]bool{}
	for _, call := range f.Log() {
		if call.Iface == "signal" {
			continue
		}
		methods = append(methods, call.Method)
		if tok, ok := call.Options["handle_token"].(string); ok {
			if tokens[tok] {
				t.Errorf("handle_token %q reused", tok)
			}
			tokens[tok] = true
		}
		if call.Method != "CreateSession" && call.Session != s.Handle() {
			t.Errorf("%s on %s, want %s", call.Method, call.Session, s.Handle())
		}
	}
	if got := strings.Join(methods, ","); got != "CreateSession,SelectDevices,SelectSources,Start" {
		t.Errorf("calls = %s", got)
	}
	sel := f.Calls("SelectSources")[0].Options
	if sel["types"] != uint32(1) || sel["multiple"] != false || sel["cursor_mode"] != uint32(2) {
		t.Errorf("SelectSources options = %v", sel)
	}
	if _, ok := sel["persist_mode"]; ok {
		t.Errorf("persist_mode sent to SelectSources inside a remote-desktop session: %v", sel)
	}
	dev := f.Calls("SelectDevices")[0].Options
	if dev["types"] != uint32(3) || dev["persist_mode"] != uint32(2) {
		t.Errorf("SelectDevices options = %v", dev)
	}
	if n := f.Dialogs(); n != 1 {
		t.Errorf("dialogs = %d, want 1", n)
	}

	// fd passing: the line the fake wrote on its end arrives on ours.
	fd, err := s.OpenPipeWireRemote(ctxT(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	fd.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(fd).ReadString('\n')
	if err != nil || line != "pipewire "+string(s.Handle())+"\n" {
		t.Errorf("read from the PipeWire fd: %q, %v", line, err)
	}

	if err := s.Close(ctxT(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctxT(t, 10*time.Second)); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := len(f.Calls("Close")); n != 1 {
		t.Errorf("Session.Close reached the portal %d times, want 1", n)
	}
	<-s.Done()
}

func TestNotifyArgs(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	ctx := ctxT(t, 30*time.Second)
	s, err := c.Start(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	node := s.Streams()[0].Node
	from := len(f.Log())
	steps := []struct {
		do   func() error
		want portaltest.Call
	}{
		{func() error { return s.PointerMotionAbsolute(ctx, node, 12.5, 640) }, portaltest.Call{Method: "NotifyPointerMotionAbsolute", Args: []any{node, 12.5, 640.0}, Options: map[string]any{}}},
		{func() error { return s.PointerMotion(ctx, -3, 4.25) }, portaltest.Call{Method: "NotifyPointerMotion", Args: []any{-3.0, 4.25}, Options: map[string]any{}}},
		{func() error { return s.PointerButton(ctx, 0x110, true) }, portaltest.Call{Method: "NotifyPointerButton", Args: []any{int32(0x110), uint32(1)}, Options: map[string]any{}}},
		{func() error { return s.PointerButton(ctx, 0x110, false) }, portaltest.Call{Method: "NotifyPointerButton", Args: []any{int32(0x110), uint32(0)}, Options: map[string]any{}}},
		{func() error { return s.PointerAxisDiscrete(ctx, 1, -2) }, portaltest.Call{Method: "NotifyPointerAxisDiscrete", Args: []any{uint32(1), int32(-2)}, Options: map[string]any{}}},
		{func() error { return s.PointerAxis(ctx, 0, 7.5, true) }, portaltest.Call{Method: "NotifyPointerAxis", Args: []any{0.0, 7.5}, Options: map[string]any{"finish": true}}},
		{func() error { return s.KeyboardKeysym(ctx, 0x61, true) }, portaltest.Call{Method: "NotifyKeyboardKeysym", Args: []any{int32(0x61), uint32(1)}, Options: map[string]any{}}},
		{func() error { return s.KeyboardKeycode(ctx, 30, false) }, portaltest.Call{Method: "NotifyKeyboardKeycode", Args: []any{int32(30), uint32(0)}, Options: map[string]any{}}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.want.Method, err)
		}
	}
	got := f.Log()[from:]
	if len(got) != len(steps) {
		t.Fatalf("log has %d entries, want %d: %v", len(got), len(steps), got)
	}
	for i, st := range steps {
		g := got[i]
		if g.Iface != portal.IfaceRemote || g.Method != st.want.Method || g.Session != s.Handle() ||
			!reflect.DeepEqual(g.Args, st.want.Args) || !reflect.DeepEqual(g.Options, st.want.Options) {
			t.Errorf("call %d = %v, want %s(%v, %v) on %s", i, g, st.want.Method, st.want.Options, st.want.Args, s.Handle())
		}
	}
}

func TestNotifyRefusedForUngrantedDevice(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	f.SetPolicy(portaltest.Policy{Devices: uint32(portal.Pointer)}) // asked for both, granted pointer
	ctx := ctxT(t, 30*time.Second)
	s, err := c.Start(ctx, portal.Request{Devices: portal.Keyboard | portal.Pointer})
	if err != nil {
		t.Fatal(err)
	}
	if s.Devices() != portal.Pointer {
		t.Fatalf("Devices = %v, want pointer", s.Devices())
	}
	from := len(f.Log())
	if err := s.KeyboardKeysym(ctx, 0x61, true); !errors.Is(err, portal.ErrNotGranted) {
		t.Errorf("KeyboardKeysym on a pointer-only session = %v, want ErrNotGranted", err)
	}
	if err := s.PointerMotion(ctx, 1, 1); err != nil {
		t.Errorf("PointerMotion: %v", err)
	}
	if got := f.Log()[from:]; len(got) != 1 || got[0].Method != "NotifyPointerMotion" {
		t.Errorf("the refused call reached the portal: %v", got)
	}
}

func checkClosed(t *testing.T, f *portaltest.Fake, from int) {
	t.Helper()
	ctx := ctxT(t, 10*time.Second)
	if _, err := f.Wait(ctx, from, func(c portaltest.Call) bool { return c.Iface == portal.IfaceSession && c.Method == "Close" }); err != nil {
		t.Errorf("the session was not closed: %v; log %v", err, f.Log())
	}
}

func TestDenyIsCancelledAndClosesSession(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	f.SetPolicy(portaltest.Policy{Answer: portaltest.Cancel})
	_, err := c.Start(ctxT(t, 20*time.Second), full)
	var se *portal.StepError
	if !errors.Is(err, portal.ErrCancelled) || !errors.As(err, &se) || se.Step != "Start" {
		t.Fatalf("Start = %v, want ErrCancelled at Start", err)
	}
	checkClosed(t, f, 0)
}

func TestOtherIsFailed(t *testing.T) {
	for _, step := range []string{"SelectDevices", "SelectSources", "Start"} {
		t.Run(step, func(t *testing.T) {
			f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
			f.SetPolicy(portaltest.Policy{Answer: portaltest.Fail, Step: step})
			_, err := c.Start(ctxT(t, 20*time.Second), full)
			var se *portal.StepError
			if !errors.Is(err, portal.ErrFailed) || !errors.As(err, &se) || se.Step != step {
				t.Fatalf("Start = %v, want ErrFailed at %s", err, step)
			}
			checkClosed(t, f, 0)
		})
	}
}

func TestNeverAnswerIsBounded(t *testing.T) {
	before := runtime.NumGoroutine()
	bus := portaltest.NewBus(t)
	f := portaltest.NewFake(t, bus.Addr, portaltest.FakeOptions{})
	f.SetPolicy(portaltest.Policy{Answer: portaltest.Never})
	c, err := portal.Dial(ctxT(t, 10*time.Second), bus.Addr, portal.Options{ConsentTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Start(ctxT(t, 20*time.Second), full)
	var se *portal.StepError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || se.Step != "Start" {
		t.Fatalf("Start = %v, want DeadlineExceeded at Start", err)
	}
	t.Logf("%v", err)
	// The abandoned Request is closed (the dialog taken down), and the session.
	if len(f.Calls("Close")) < 2 {
		t.Errorf("want Request.Close and Session.Close, log: %v", f.Log())
	}
	c.Close()
	f.Close()
	bus.Close()
	// No goroutine of the client is left: wait (bounded) for the count to
	// come back.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestCallerDeadlineNamesStep(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	f.SetPolicy(portaltest.Policy{Answer: portaltest.Never, Step: "SelectDevices"})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := c.Start(ctx, full)
	var se *portal.StepError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || se.Step != "SelectDevices" {
		t.Fatalf("Start = %v, want DeadlineExceeded at SelectDevices", err)
	}
	checkClosed(t, f, 0)
}

func TestBackendClosed(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	f.SetPolicy(portaltest.Policy{CloseAfterStart: true})
	ctx := ctxT(t, 20*time.Second)
	s, err := c.Start(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("Done never closed after the portal's Session.Closed")
	}
	if !errors.Is(s.Err(), portal.ErrClosed) {
		t.Errorf("Err = %v", s.Err())
	}
	from := len(f.Log())
	if err := s.PointerMotion(ctx, 1, 1); !errors.Is(err, portal.ErrNotGranted) {
		t.Errorf("PointerMotion after Closed = %v, want ErrNotGranted", err)
	}
	if got := f.Log()[from:]; len(got) != 0 {
		t.Errorf("a call reached the portal after Closed: %v", got)
	}
}

func TestBusDropEndsSession(t *testing.T) {
	bus := portaltest.NewBus(t)
	portaltest.NewFake(t, bus.Addr, portaltest.FakeOptions{})
	c, err := portal.Dial(ctxT(t, 10*time.Second), bus.Addr, portal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := ctxT(t, 20*time.Second)
	s, err := c.Start(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	bus.Close()
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("Done never closed after the bus went away")
	}
	if !strings.Contains(s.Err().Error(), "dropped") {
		t.Errorf("Err = %v", s.Err())
	}
}

func TestRestoreTokenSingleUse(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	ctx := ctxT(t, 30*time.Second)
	r := full
	r.Persist = true
	s1, err := c.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	t1 := s1.RestoreToken()
	s1.Close(ctx)
	if f.Dialogs() != 1 || t1 == "" {
		t.Fatalf("session 1: dialogs %d, token set %v", f.Dialogs(), t1 != "")
	}
	r.RestoreToken = t1
	s2, err := c.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	t2 := s2.RestoreToken()
	s2.Close(ctx)
	if f.Dialogs() != 1 {
		t.Errorf("session 2 with T1 showed a dialog (%d)", f.Dialogs())
	}
	if t2 == "" || t2 == t1 {
		t.Errorf("session 2 returned no new token (same as T1: %v)", t2 == t1)
	}
	if s2.Devices() != portal.Keyboard|portal.Pointer || len(s2.Streams()) != 1 {
		t.Errorf("restored session: %v %v", s2.Devices(), s2.Streams())
	}
	// T1 again: spent, so the dialog comes back.
	s3, err := c.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	s3.Close(ctx)
	if f.Dialogs() != 2 {
		t.Errorf("reusing T1: dialogs %d, want 2", f.Dialogs())
	}
}

func TestV1NeverGetsPersistOptions(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{RemoteDesktopVersion: 1}, portal.Options{})
	ctx := ctxT(t, 30*time.Second)
	r := full
	r.Persist = true
	r.RestoreToken = "some-old-token"
	s, err := c.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if s.RestoreToken() != "" {
		t.Errorf("v1 session has a token")
	}
	for _, call := range f.Log() {
		for _, k := range []string{"persist_mode", "restore_token"} {
			if _, ok := call.Options[k]; ok && call.Iface != "signal" {
				t.Errorf("%s sent to a version 1 portal: %v", k, call)
			}
		}
	}
}

func TestOtherHandle(t *testing.T) {
	f, c := setup(t, portaltest.FakeOptions{}, portal.Options{})
	f.SetPolicy(portaltest.Policy{OtherHandle: true})
	s, err := c.Start(ctxT(t, 20*time.Second), full)
	if err != nil {
		t.Fatal(err)
	}
	if s.Devices() != portal.Keyboard|portal.Pointer {
		t.Errorf("Devices = %v", s.Devices())
	}
}

// The API cannot send a Notify before Start; the fake refuses one on the
// wire, as the real frontend does.
func TestNotifyBeforeStartRefusedOnWire(t *testing.T) {
	bus := portaltest.NewBus(t)
	f := portaltest.NewFake(t, bus.Addr, portaltest.FakeOptions{})
	f.SetPolicy(portaltest.Policy{Answer: portaltest.Never}) // Start never answers
	conn, err := dbus.Connect(bus.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := ctxT(t, 20*time.Second)
	obj := conn.Object(portal.BusName, portal.ObjectPath)
	sig := make(chan *dbus.Signal, 4)
	conn.Signal(sig)
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchMember("Response")); err != nil {
		t.Fatal(err)
	}
	var h dbus.ObjectPath
	if err := obj.CallWithContext(ctx, portal.IfaceRemote+".CreateSession", 0, map[string]dbus.Variant{
		"handle_token": dbus.MakeVariant("raw1"), "session_handle_token": dbus.MakeVariant("rawsess")}).Store(&h); err != nil {
		t.Fatal(err)
	}
	var session string
	for session == "" {
		select {
		case s := <-sig:
			if s.Name == portal.IfaceRequest+".Response" && s.Path == h {
				session = s.Body[1].(map[string]dbus.Variant)["session_handle"].Value().(string)
			}
		case <-ctx.Done():
			t.Fatal("no Response to CreateSession")
		}
	}
	err = obj.CallWithContext(ctx, portal.IfaceRemote+".NotifyPointerMotion", 0, dbus.ObjectPath(session), map[string]dbus.Variant{}, 1.0, 1.0).Err
	var de dbus.Error
	if !errors.As(err, &de) || de.Name != "org.freedesktop.DBus.Error.AccessDenied" {
		t.Fatalf("Notify before Start = %v, want AccessDenied", err)
	}
}

func TestTokenStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	ts := portal.OpenTokenStore(filepath.Join(dir, "restore-token"))
	if tok, err := ts.Load(); err != nil || tok != "" {
		t.Fatalf("empty store: %q %v", tok, err)
	}
	for _, tok := range []string{"first-token", "second-token"} {
		if err := ts.Save(tok); err != nil {
			t.Fatal(err)
		}
	}
	if tok, err := ts.Load(); err != nil || tok != "second-token" {
		t.Errorf("Load = %q, %v; want the newest", tok, err)
	}
	st, err := os.Stat(ts.Path())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", st.Mode(), err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, %v", st.Mode(), err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"restore-token"}) {
		t.Errorf("dir holds %v (a temp file left?)", names)
	}
	if err := ts.Clear(); err != nil {
		t.Fatal(err)
	}
	if tok, _ := ts.Load(); tok != "" {
		t.Errorf("after Clear: %q", tok)
	}
}
