package xpra_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// canary is set in the test process's environment: xpra must never see it
// (`xpra info` hands its whole environment to anyone on its socket).
const canaryVar, canary = "VIBESPACE_XPRA_CANARY", "secret-4f1d0c"

func init() { os.Setenv(canaryVar, canary) }

// wid is xpra's id of window id, as xpra put it on the window.
func wid(t *testing.T, ctx context.Context, x *x11.Display, id x11.WindowID) int {
	t.Helper()
	v, ok, err := x.Cardinal(ctx, id, "_XPRA_WID")
	if err != nil || !ok {
		t.Fatalf("_XPRA_WID of %s: %v %v", id, ok, err)
	}
	return int(v)
}

func viewable(t *testing.T, ctx context.Context, x *x11.Display, id x11.WindowID) bool {
	t.Helper()
	w, err := x.Window(ctx, id)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return w.Viewable
}

// waitFor polls cond every 50 ms until it holds or ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not by the deadline", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestLaunchShowsTheWindowAndInfoSaysSo(t *testing.T) {
	d := testenv.NewXpra(t, xpra.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchFixture(ctx, d.Desktop)
	if err != nil {
		t.Fatal(err)
	}
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	id := f.Window.ID
	if !viewable(t, ctx, x, id) {
		t.Fatalf("Launch answered window %s, but the X server says it is not viewable", id)
	}
	// The oracle is xpra's own account of its windows.
	in, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(in.Version, "3.") || in.Display != d.Display || in.Clients != 0 || in.PID <= 0 {
		t.Fatalf("info: %+v", in)
	}
	var got *xpra.Window
	for i := range in.Windows {
		if in.Windows[i].XID == id {
			got = &in.Windows[i]
		}
	}
	if got == nil {
		t.Fatalf("xpra info lists no window %s: %+v", id, in.Windows)
	}
	if !got.Shown || got.PID != f.PID || got.Title != "vibespace fixture" || got.WID != wid(t, ctx, x, id) || got.Geometry.Width < 100 {
		t.Fatalf("xpra's window: %+v (fixture pid %d)", *got, f.PID)
	}

	// Hidden again, the X server says so; shown again, it is viewable.
	if err := d.Unmap(ctx, got.WID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "unmapped window unviewable", func() bool { return !viewable(t, ctx, x, id) })
	if err := d.Map(ctx, got.WID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "mapped window viewable", func() bool { return viewable(t, ctx, x, id) })
	if err := d.Focus(ctx, got.WID); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(f.PID, 0); err != nil {
		t.Fatalf("the fixture died: %v", err)
	}

	// Nothing of the caller's environment reached xpra.
	raw, err := d.RawInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(raw, canary) || strings.Contains(raw, canaryVar) {
		t.Fatalf("xpra info shows the caller's environment (%s)", canaryVar)
	}
	if !strings.Contains(raw, "env.DISPLAY="+d.Display) {
		t.Fatalf("xpra info shows no env.DISPLAY=%s: is the check looking at the right thing?", d.Display)
	}
}

func TestParseInfo(t *testing.T) {
	in, err := xpra.ParseInfo("Warning: running as root\nclients=2\nserver.build.version=3.1.3\nserver.pid=42\nserver.display=:5\n" +
		"windows.1.xid=0x200003\nwindows.1.pid=7\nwindows.1.title=a=b\nwindows.1.shown=False\nwindows.1.geometry=(10, 20, 900, 700)\n" +
		"windows.3.xid=0x400001\nwindows.3.shown=True\n")
	if err != nil {
		t.Fatal(err)
	}
	want := xpra.Info{Version: "3.1.3", PID: 42, Display: ":5", Clients: 2, Windows: []xpra.Window{
		{WID: 1, XID: 0x200003, PID: 7, Title: "a=b", Geometry: x11.Geometry{X: 10, Y: 20, Width: 900, Height: 700}},
		{WID: 3, XID: 0x400001, Shown: true},
	}}
	if fmt.Sprint(in) != fmt.Sprint(want) {
		t.Fatalf("got  %+v\nwant %+v", in, want)
	}
	if _, err := xpra.ParseInfo("windows.1.geometry=(1, 2)\n"); err == nil {
		t.Fatal("a geometry of two numbers parsed")
	}
}

// TestAPersonAttached: a person's xpra client on another display (a second
// private Xvfb standing for their desktop) shows the window as a window of
// its own, and Watchers says a client is attached until it leaves; xpra's
// own count of clients is the oracle.
func TestAPersonAttached(t *testing.T) {
	d := testenv.NewXpra(t, xpra.Options{})
	person := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := testenv.LaunchFixture(ctx, d.Desktop)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := d.Watchers(); err != nil || w.Attached {
		t.Fatalf("watchers before anyone attached: %+v %v", w, err)
	}
	at, err := d.AttachCommands("me@this-host")
	if err != nil {
		t.Fatal(err)
	}
	sock, _ := d.Socket()
	if at.Local != "xpra attach socket://"+sock || len(at.SSH) != 2 || !strings.Contains(at.SSH[0], sock) || !strings.Contains(at.SSH[0], "me@this-host") {
		t.Fatalf("attach commands: %+v (socket %s)", at, sock)
	}
	// The person runs the printed local command, as they would.
	detach := testenv.AttachXpra(t, person, at.Local)
	if _, err := testenv.WindowTitled(ctx, person.Display, 0, "vibespace fixture"); err != nil {
		t.Fatalf("the fixture's window never appeared on the person's display: %v", err)
	}
	waitFor(t, ctx, "watchers attached", func() bool { w, _ := d.Watchers(); return w.Attached })
	w, _ := d.Watchers()
	if time.Since(w.Since) > time.Minute || time.Since(w.Since) < -time.Minute {
		t.Fatalf("attached since %v", w.Since)
	}
	if in, err := d.Info(ctx); err != nil || in.Clients != 1 {
		t.Fatalf("xpra counts %d clients (%v); Watchers says attached", in.Clients, err)
	}
	detach()
	waitFor(t, ctx, "watchers gone", func() bool { w, _ := d.Watchers(); return !w.Attached })
	if in, err := d.Info(ctx); err != nil || in.Clients != 0 {
		t.Fatalf("xpra counts %d clients (%v) after the person left", in.Clients, err)
	}
	if err := syscall.Kill(f.PID, 0); err != nil {
		t.Fatalf("the fixture died: %v", err)
	}
}

// TestAdoptAfterTheStarterIsGone: a detached display is taken over from
// its State alone, as a daemon killed with -9 does; apps launch on it and
// Close ends everything (Main's leak check is the oracle).
func TestAdoptAfterTheStarterIsGone(t *testing.T) {
	testenv.NeedIntegration(t, "xpra")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first, err := xpra.Start(ctx, xpra.Options{Detach: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	st := first.State()
	d, err := xpra.Adopt(ctx, st, xpra.Options{Logf: t.Logf})
	if err != nil {
		first.Close()
		t.Fatal(err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if left := testenv.Leaks([]*testenv.Desktop{first.Desktop, d.Desktop}); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
	}()
	f, err := testenv.LaunchFixture(ctx, d.Desktop)
	if err != nil {
		t.Fatal(err)
	}
	in, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range in.Windows {
		if w.XID == f.Window.ID && w.Shown {
			return
		}
	}
	t.Fatalf("the adopted display's xpra shows no window %s: %+v", f.Window.ID, in.Windows)
}
