package portal_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/portal/portaltest"
)

// realFrontend: Debian's xdg-desktop-portal on a private bus in front of
// the Go fake backend, and a client.
func realFrontend(t testing.TB) (*portaltest.Backend, *portal.Client) {
	t.Helper()
	portaltest.Need(t, portaltest.FrontendProgram)
	bus := portaltest.NewBus(t)
	be := portaltest.NewBackend(t, bus.Addr)
	fe := portaltest.NewFrontend(t, bus)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(fe.Log)
			t.Logf("frontend log:\n%s", b)
		}
	})
	c, err := portal.Dial(ctxT(t, 10*time.Second), bus.Addr, portal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return be, c
}

func waitBackend(t *testing.T, be *portaltest.Backend, from int, iface, method string) portaltest.Call {
	t.Helper()
	c, err := be.Wait(ctxT(t, 10*time.Second), from, func(c portaltest.Call) bool { return c.Iface == iface && c.Method == method })
	if err != nil {
		t.Fatalf("%s.%s never reached the backend: %v; log %v", iface, method, err, be.Log())
	}
	return c
}

func TestRealFrontendGrantNotifyClose(t *testing.T) {
	be, c := realFrontend(t)
	ctx := ctxT(t, 60*time.Second)
	info, err := c.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.RemoteDesktop != 1 || info.Devices != 7 || info.Sources != 3 {
		t.Errorf("Probe through 1.16 = %+v", info)
	}
	be.SetPolicy(portaltest.Policy{Devices: 3, Streams: []portaltest.Stream{{Node: 51, SourceType: 1, Position: [2]int32{0, 0}, Size: [2]int32{800, 600}}}})
	r := full
	r.Persist = true // version 1: must not be sent
	s, err := c.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if s.Devices() != portal.Keyboard|portal.Pointer {
		t.Errorf("Devices = %v", s.Devices())
	}
	if st := s.Streams(); len(st) != 1 || st[0].Node != 51 || st[0].Size != [2]int32{800, 600} || st[0].SourceType != portal.Monitor {
		t.Errorf("Streams = %+v", st)
	}
	if s.RestoreToken() != "" {
		t.Errorf("a version 1 session has a restore token")
	}
	var steps []string
	var backendSession = s.Handle()
	for _, call := range be.Log() {
		steps = append(steps, call.Method)
		if call.Session != backendSession {
			t.Errorf("backend %s on %s, client's session is %s", call.Method, call.Session, backendSession)
		}
		for _, k := range []string{"persist_mode", "restore_token"} {
			if _, ok := call.Options[k]; ok {
				t.Errorf("%s reached the backend: %v", k, call)
			}
		}
	}
	if !reflect.DeepEqual(steps, []string{"CreateSession", "SelectDevices", "SelectSources", "Start"}) {
		t.Errorf("backend saw %v", steps)
	}

	// Notify calls and the frontend's translation of them.
	type want struct {
		method string
		opts   map[string]any
		args   []any
		do     func() error
	}
	ws := []want{
		{"NotifyPointerMotionAbsolute", map[string]any{}, []any{uint32(51), 10.5, 20.0}, func() error { return s.PointerMotionAbsolute(ctx, 51, 10.5, 20) }},
		{"NotifyPointerMotion", map[string]any{}, []any{1.0, -2.0}, func() error { return s.PointerMotion(ctx, 1, -2) }},
		{"NotifyPointerButton", map[string]any{}, []any{int32(0x110), uint32(1)}, func() error { return s.PointerButton(ctx, 0x110, true) }},
		{"NotifyPointerAxis", map[string]any{"finish": true}, []any{0.0, 3.0}, func() error { return s.PointerAxis(ctx, 0, 3, true) }},
		{"NotifyPointerAxisDiscrete", map[string]any{}, []any{uint32(0), int32(2)}, func() error { return s.PointerAxisDiscrete(ctx, 0, 2) }},
		{"NotifyKeyboardKeysym", map[string]any{}, []any{int32(0x61), uint32(1)}, func() error { return s.KeyboardKeysym(ctx, 0x61, true) }},
		{"NotifyKeyboardKeycode", map[string]any{}, []any{int32(30), uint32(0)}, func() error { return s.KeyboardKeycode(ctx, 30, false) }},
	}
	for _, w := range ws {
		from := len(be.Log())
		if err := w.do(); err != nil {
			t.Fatalf("%s: %v", w.method, err)
		}
		got := waitBackend(t, be, from, portaltest.IfaceImplRemote, w.method)
		if got.Session != s.Handle() || !reflect.DeepEqual(got.Args, w.args) || !reflect.DeepEqual(got.Options, w.opts) {
			t.Errorf("backend got %v, want %s(%v, %v)", got, w.method, w.opts, w.args)
		}
	}

	from := len(be.Log())
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitBackend(t, be, from, portaltest.IfaceImplSession, "Close")
}

func TestRealFrontendDeny(t *testing.T) {
	be, c := realFrontend(t)
	be.SetPolicy(portaltest.Policy{Answer: portaltest.Cancel})
	_, err := c.Start(ctxT(t, 60*time.Second), full)
	var se *portal.StepError
	if !errors.Is(err, portal.ErrCancelled) || !errors.As(err, &se) || se.Step != "Start" {
		t.Fatalf("Start = %v, want ErrCancelled at Start", err)
	}
	// The client closed its session, and the frontend passed that on.
	waitBackend(t, be, 0, portaltest.IfaceImplSession, "Close")
}

func TestRealFrontendBackendClosed(t *testing.T) {
	be, c := realFrontend(t)
	ctx := ctxT(t, 60*time.Second)
	s, err := c.Start(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.CloseSession(s.Handle()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("the backend's Closed never reached the client's Done")
	}
	if err := s.PointerMotion(ctx, 1, 1); !errors.Is(err, portal.ErrNotGranted) {
		t.Errorf("PointerMotion after Closed = %v", err)
	}
}

// startRoundTrip is one whole Start sequence with an immediate grant, and
// the session's close: how long the Start took.
func startRoundTrip(t testing.TB, c *portal.Client) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t0 := time.Now()
	s, err := c.Start(ctx, full)
	d := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	s.Close(ctx)
	return d
}

// TestStartRoundTrip runs the whole Start sequence with an immediate grant
// against the fake frontend and against the real one, twice each (a
// session closed, then another); it asserts nothing about time: the
// round trips' figures are BenchmarkStart's.
func TestStartRoundTrip(t *testing.T) {
	_, fc := setup(t, portaltest.FakeOptions{}, portal.Options{})
	_, rc := realFrontend(t)
	for range 2 {
		startRoundTrip(t, fc)
		startRoundTrip(t, rc)
	}
}

// BenchmarkStart reports the whole Start sequence's round trip with an
// immediate grant (the median of b.N, -benchtime 10x as it was measured),
// against the fake frontend (fake-ms) and against the real one with the
// fake backend (real-ms).
func BenchmarkStart(b *testing.B) {
	_, fc := setup(b, portaltest.FakeOptions{}, portal.Options{})
	_, rc := realFrontend(b)
	var fake, real []time.Duration
	for b.Loop() {
		fake = append(fake, startRoundTrip(b, fc))
		real = append(real, startRoundTrip(b, rc))
	}
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	b.ReportMetric(float64(median(fake).Microseconds())/1000, "fake-ms")
	b.ReportMetric(float64(median(real).Microseconds())/1000, "real-ms")
}
