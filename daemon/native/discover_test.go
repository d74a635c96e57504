package native

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// startDisplay brings up our display for one test, closed at its end.
func startDisplay(t *testing.T, ctx context.Context) *display {
	t.Helper()
	testenv.NeedIntegration(t)
	disp, err := Xvfb(Options{WalkTimeout: 10 * time.Second, Logf: t.Logf}).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disp.Close() })
	return disp.(*display)
}

// launchLogged launches a Python fixture script (a path from this
// package's directory) on disp with a log of its own and waits for the
// script to log that it is ready.
func launchLogged(t *testing.T, ctx context.Context, disp kind.Display, script string, args ...string) (kind.Target, *testenv.FixtureLog, testenv.Event) {
	t.Helper()
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(script), ".py")+".jsonl")
	w, err := disp.Launch(ctx, append([]string{testenv.FixturePython, abs, "--log", logPath}, args...))
	if err != nil {
		t.Fatal(err)
	}
	log := testenv.OpenFixtureLog(logPath)
	ready, err := log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" })
	if err != nil {
		t.Fatal(err)
	}
	return w, log, ready
}

// fixturePy and tkPy are the fixture scripts of testenv.
var (
	fixturePy = filepath.Join("..", "..", "testenv", "fixture", "fixture.py")
	tkPy      = filepath.Join("..", "..", "testenv", "fixture", "tk.py")
)

// discoverUntil scans until a window titled title is found.
func discoverUntil(t *testing.T, ctx context.Context, d *display, roots []int, known map[string]bool, title string) kind.Found {
	t.Helper()
	for {
		got, err := d.Discover(ctx, roots, known)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			if f.Info.Title == title {
				return f
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no window %q found; the last scan found %+v", title, got)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestDiscoverDialog: the GTK3 fixture's dialog is found as a window of
// the fixture's own process, and closing it closes it alone.
func TestDiscoverDialog(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	d := startDisplay(t, ctx)
	kt, log, _ := launchLogged(t, ctx, d, fixturePy)
	first, err := kt.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{first.Key: true}
	if got, err := d.Discover(ctx, []int{first.PID}, known); err != nil || len(got) != 0 {
		t.Fatalf("before the dialog: %+v, %v", got, err)
	}
	snap, err := kt.Snapshot(ctx, target.NewRefTable())
	if err != nil {
		t.Fatal(err)
	}
	open := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Open dialog" })
	if open == nil {
		t.Fatalf("no Open dialog in:\n%s", snap.Text())
	}
	if err := kt.Act(ctx, kind.Node{Ref: "@e1", Key: open.Key}); err != nil {
		t.Fatal(err)
	}
	f := discoverUntil(t, ctx, d, []int{first.PID}, known, "Fixture dialog")
	if f.Root != first.PID || f.Info.PID != first.PID || f.App != "" || f.Info.Key == first.Key {
		t.Fatalf("the dialog was found as %+v (the fixture is pid %d)", f, first.PID)
	}
	from := log.Len()
	gone, err := f.Target.(kind.WindowCloser).CloseWindow(ctx)
	if err != nil || !gone {
		t.Fatalf("CloseWindow: gone %v, %v", gone, err)
	}
	if _, err := log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "dialog" && e.Text == "closed" }); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Target.Info(ctx); target.CodeOf(err) != target.CodeWindowGone {
		t.Fatalf("the closed dialog's info: %v, want window_gone", err)
	}
	if _, err := kt.Info(ctx); err != nil || !alive(first.PID) {
		t.Fatalf("the fixture after its dialog closed: %v (alive %v)", err, alive(first.PID))
	}
}

// TestDiscoverChildProcess: Tk's window opens (no _NET_WM_PID), has no
// tree, takes keys; F2 starts a child process whose window is found as
// one descending from the fixture; closing the child's window ends the
// child alone.
func TestDiscoverChildProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	d := startDisplay(t, ctx)
	kt, log, ready := launchLogged(t, ctx, d, tkPy)
	first, err := kt.Info(ctx)
	if err != nil || first.PID != ready.PID || first.Key != keyOf(x11.WindowID(ready.XID)) {
		t.Fatalf("the Tk window: %+v, %v; the fixture says pid %d, window 0x%x", first, err, ready.PID, ready.XID)
	}
	if p := kt.Probe(ctx); p.Tree || !p.Capture || p.Injection != "xtest" {
		t.Fatalf("Tk's probe %+v: want no tree, pixels and keys", p)
	}
	if err := kt.(kind.Raiser).Raise(ctx); err != nil {
		t.Fatal(err)
	}
	f2, _ := target.ParseChord("F2")
	from := log.Len()
	if err := kt.Key(ctx, f2); err != nil {
		t.Fatal(err)
	}
	spawned, err := log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "spawned" })
	if err != nil {
		t.Fatal(err)
	}
	f := discoverUntil(t, ctx, d, []int{first.PID}, map[string]bool{first.Key: true}, "vibespace tk child")
	if f.Root != first.PID || f.Info.PID != spawned.PID || f.App != "python3" {
		t.Fatalf("the child's window was found as %+v (root %d, app %q); the child is pid %d", f.Info, f.Root, f.App, spawned.PID)
	}
	// A scan rooted elsewhere does not find it.
	if got, err := d.Discover(ctx, []int{1 << 30}, nil); err != nil || len(got) != 0 {
		t.Fatalf("a scan with a stranger's root found %+v, %v", got, err)
	}
	gone, err := f.Target.(kind.WindowCloser).CloseWindow(ctx)
	if err != nil || !gone {
		t.Fatalf("CloseWindow: gone %v, %v", gone, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(spawned.PID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(spawned.PID) || !alive(first.PID) {
		t.Fatalf("after closing the child's window: child alive %v, fixture alive %v", alive(spawned.PID), alive(first.PID))
	}
}
