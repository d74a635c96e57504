package windows_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// openKeypad opens the GTK 4 keypad fixture (testenv/fixture/keypad.py)
// as session s.
func (e *env) openKeypad(s string) (id string, log *testenv.FixtureLog) {
	e.T.Helper()
	src := wintest.Fixture(e.T, "keypad.py")
	logPath := filepath.Join(e.Dir, "keypad-"+strconv.FormatInt(e.Fixtures.Add(1), 10)+".jsonl")
	resp := e.Answer(s, "open", testenv.FixturePython, src, "--log", logPath)
	if !resp.OK {
		e.T.Fatalf("open the keypad: %+v", resp)
	}
	if e.Desk == nil {
		e.ReadDesk()
	}
	log = testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(e.T.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		e.T.Fatal(err)
	}
	return string(resp.Target.ID), log
}

// keypadSnapshot snapshots the keypad, waiting (bounded) for its tree: a
// loaded machine can map the window before the application is on the
// accessibility bus.
func keypadSnapshot(t *testing.T, e *env, id string) *target.Snapshot {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := e.Answer("s1", "snapshot", id)
		if resp.OK && resp.Snapshot != nil && resp.Snapshot.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "1" }) != nil {
			return resp.Snapshot
		}
		if time.Now().After(deadline) {
			t.Fatalf("the keypad's tree never showed its keys: %+v", resp)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestKeypadRepeats: clicking the same key of a keypad five times answers
// confirmed each time, naming the display it changed (another node than
// the key: its application told it by an AT-SPI event) with its text
// before and after, and no press is refused no_progress. Oracles: the
// fixture's own log (each click, and the display's text after it) and
// the display's name read back from the window's tree.
func TestKeypadRepeats(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log := e.openKeypad("s1")
	snap := keypadSnapshot(t, e, id)
	key := node(t, snap, "push button", "1").Ref
	// The display is the label above the keys (GTK 4.8 names an empty
	// label by its class: its name is not what finds it).
	var display *target.Node
	if box := snap.Root.Children; len(box) == 1 && len(box[0].Children) > 0 && box[0].Children[0].Role == "label" {
		display = box[0].Children[0]
	} else {
		t.Fatalf("no display label above the keys:\n%s", e.OK("s1", "snapshot", id))
	}
	for i := 1; i <= 5; i++ {
		from := log.Len()
		resp := e.Answer("s1", "click", id, key)
		eff := effectOf(t, resp, target.EffectConfirmed)
		was, now := strings.Repeat("1", i-1), strings.Repeat("1", i)
		want := fmt.Sprintf("%s label: %q → %q", display.Ref, was, now)
		seen := slices.Contains(eff.Seen, want)
		if i == 1 { // its first name is the toolkit's (above)
			seen = slices.ContainsFunc(eff.Seen, func(s string) bool {
				return strings.HasPrefix(s, display.Ref+" label: ") && strings.HasSuffix(s, fmt.Sprintf(" → %q", now))
			})
		}
		if !seen {
			t.Fatalf("press %d saw %q, want %q (did %q)", i, eff.Seen, want, resp.Did)
		}
		wait(t, log, from, "the key's click", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "key-1" })
		wait(t, log, from, "the display's text", func(ev testenv.Event) bool {
			return ev.Type == "text" && ev.Widget == "display" && ev.Text == now
		})
	}
	after := keypadSnapshot(t, e, id)
	if n := after.Root.Find(func(n *target.Node) bool { return n.Ref == display.Ref }); n == nil || n.Name != "11111" {
		t.Fatalf("the display in the tree after five presses: %+v", n)
	}
}
