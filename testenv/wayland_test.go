package testenv_test

import (
	"context"
	"testing"
	"time"

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
