package x11_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// openShared opens the shared desktop's display for the test.
func openShared(t *testing.T) (*testenv.Desktop, *x11.Display) {
	t.Helper()
	d := testenv.SharedDesktop(t)
	x, err := x11.Open(t.Context(), d.Display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return d, x
}

// launchXClient starts the plain X client fixture on d and answers it with
// its "ready" line: the window and process the client itself names, the
// oracle of these tests.
func launchXClient(t *testing.T, ctx context.Context, d *testenv.Desktop) (*testenv.Fixture, testenv.Event) {
	t.Helper()
	f, err := testenv.LaunchXClientFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	ready, err := f.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" })
	if err != nil {
		f.Stop()
		t.Fatal(err)
	}
	return f, ready
}

// TestClientPIDWithoutNetWMPID: the plain X client sets no _NET_WM_PID;
// the X server still names its process, and that is the PID the client
// itself logged.
func TestClientPIDWithoutNetWMPID(t *testing.T) {
	d, x := openShared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, ready := launchXClient(t, ctx, d)
	defer f.Stop()
	id := x11.WindowID(ready.XID)
	w, err := x.Window(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if w.PID != 0 || w.Title != "vibespace xclient fixture" {
		t.Fatalf("the client's window reads %+v: want no _NET_WM_PID and its WM_NAME as title", w)
	}
	pid, err := x.ClientPID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if pid != ready.PID {
		t.Fatalf("ClientPID = %d; the client says it is %d", pid, ready.PID)
	}
	tops, err := x.TopLevels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var top *x11.TopLevel
	for i := range tops {
		if tops[i].ID == id {
			top = &tops[i]
		}
	}
	if top == nil || top.PID != ready.PID || !top.Viewable || top.OverrideRedirect {
		t.Fatalf("TopLevels has the client's window as %+v, want pid %d, viewable, managed", top, ready.PID)
	}
	ws, err := x.WindowsOfPID(ctx, ready.PID)
	if err != nil || len(ws) != 1 || ws[0].ID != id || ws[0].PID != ready.PID {
		t.Fatalf("WindowsOfPID(%d) = %+v, %v", ready.PID, ws, err)
	}
}

// TestTopLevelsOwnWindows: windows the test makes on its own connection
// are the test process's, say so when they are popups, and one that does
// not take WM_DELETE_WINDOW is not asked to close; once destroyed it is
// window_gone.
func TestTopLevelsOwnWindows(t *testing.T) {
	d, x := openShared(t)
	ctx := t.Context()
	c, err := xgb.NewConnDisplay(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	scr := xproto.Setup(c).DefaultScreen(c)
	mk := func(override bool) xproto.Window {
		w, err := xproto.NewWindowId(c)
		if err != nil {
			t.Fatal(err)
		}
		var o uint32
		if override {
			o = 1
		}
		if err := xproto.CreateWindowChecked(c, scr.RootDepth, w, scr.Root, 600, 400, 50, 40, 0, xproto.WindowClassInputOutput,
			scr.RootVisual, xproto.CwOverrideRedirect, []uint32{o}).Check(); err != nil {
			t.Fatal(err)
		}
		if err := xproto.MapWindowChecked(c, w).Check(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	popup, plain := mk(true), mk(false)
	tops, err := x.TopLevels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[xproto.Window]x11.TopLevel{}
	for _, tl := range tops {
		seen[xproto.Window(tl.ID)] = tl
	}
	if p := seen[popup]; p.PID != os.Getpid() || !p.OverrideRedirect || !p.Viewable {
		t.Errorf("the popup reads %+v, want pid %d, override-redirect, viewable", p, os.Getpid())
	}
	if p := seen[plain]; p.PID != os.Getpid() || p.OverrideRedirect || !p.Viewable {
		t.Errorf("the plain window reads %+v, want pid %d, managed, viewable", p, os.Getpid())
	}
	if err := x.DeleteWindow(ctx, x11.WindowID(plain)); !errors.Is(err, x11.ErrNoDelete) {
		t.Errorf("DeleteWindow on a window without WM_PROTOCOLS = %v, want ErrNoDelete", err)
	}
	xproto.DestroyWindow(c, plain)
	xproto.GetInputFocus(c).Reply() // the destroy is done
	if _, err := x.ClientPID(ctx, x11.WindowID(plain)); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("ClientPID of a destroyed window = %v, want window_gone", err)
	}
}

// TestDeleteWindowAsksTheClient: WM_DELETE_WINDOW reaches the client
// (its log says it was asked), which closes its window and exits 0.
func TestDeleteWindowAsksTheClient(t *testing.T) {
	d, x := openShared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchXClientFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	protos, err := x.Protocols(ctx, f.Window.ID)
	if err != nil || len(protos) != 1 || protos[0] != "WM_DELETE_WINDOW" {
		t.Fatalf("Protocols = %v, %v", protos, err)
	}
	if err := x.DeleteWindow(ctx, f.Window.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "closed" }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Exited():
	case <-ctx.Done():
		t.Fatal("the client did not exit after closing its window")
	}
}

// BenchmarkTopLevels is one scan of the screen's windows and their
// processes, with the fixture's windows on the shared desktop.
func BenchmarkTopLevels(b *testing.B) {
	fx := newFixture(b)
	ctx := b.Context()
	n := 0
	for b.Loop() {
		tops, err := fx.x.TopLevels(ctx)
		if err != nil {
			b.Fatal(err)
		}
		n = len(tops)
	}
	b.ReportMetric(float64(n), "windows")
}
