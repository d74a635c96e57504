package atspi_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/testenv"
)

// TestWatchChanges: once the Bus watches the object events, a click on a
// keypad key (its Action) is followed by the events of the display it
// changed — another node than the one acted on — and the fixture's own
// log says the display changed.
func TestWatchChanges(t *testing.T) {
	testenv.NeedIntegration(t)
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchKeypadFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Stop() })
	b := connect(t, d, atspi.Options{})
	if err := b.WatchChanges(ctx); err != nil {
		t.Fatal(err)
	}
	frame := frameOf(t, b, f.App)
	snap := walk(t, b, frame.Object, atspi.WalkOptions{})
	_, key := find(t, snap, "push button", "1")
	for i := range 2 {
		from := f.Log.Len()
		mark := b.ChangeMark()
		if _, err := b.DoAction(ctx, key, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" && e.Widget == "display" }); err != nil {
			t.Fatal(err)
		}
		if !b.WaitChanges(ctx, mark, key.Name, 10*time.Second) {
			t.Fatalf("press %d: no event from %s", i, key.Name)
		}
		evs, _ := b.ChangesSince(mark, key.Name)
		for _, ev := range evs {
			t.Logf("press %d: %s %s %d %d %q %v", i, ev.Path, ev.Kind, ev.Detail1, ev.Detail2, ev.Data, ev.Child)
		}
	}
}
