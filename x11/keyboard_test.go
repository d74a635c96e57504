package x11_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

func TestTypeUnicodeArrivesExactly(t *testing.T) {
	fx := newFixture(t)
	fx.focusEntry(t)
	const text = "Hello, wörld! <>&\t€"
	from := fx.f.Log.Len()
	if err := fx.x.Type(t.Context(), text); err != nil {
		t.Fatalf("Type: %v", err)
	}
	fx.waitText(t, from, "entry", text)
	if down := keysDown(t, fx.d.Display); len(down) > 0 {
		t.Errorf("keys still down after Type: %v", down)
	}
}

// TestTypeLongMixedText needs more distinct characters missing from the
// keymap than there are spare keycodes, so keycodes are rebound mid-text.
func TestTypeLongMixedText(t *testing.T) {
	fx := newFixture(t)
	fx.focusEntry(t)
	var b strings.Builder
	b.WriteString("Grüße aus Köln — ")
	for r := 'α'; r <= 'ω'; r++ { // 25 Greek letters, none on a US keymap
		b.WriteRune(r)
	}
	b.WriteString(" ≤≥≠ 日本語 ✓ ₿ ~!@#$%^&*()_+{}|:\"<>? end")
	text := b.String()
	from := fx.f.Log.Len()
	if err := fx.x.Type(t.Context(), text); err != nil {
		t.Fatalf("Type: %v", err)
	}
	fx.waitText(t, from, "entry", text)
}

func TestCtrlABackSpaceEmptiesEntry(t *testing.T) {
	fx := newFixture(t)
	fx.focusEntry(t)
	from := fx.f.Log.Len()
	if err := fx.x.Type(t.Context(), "some text"); err != nil {
		t.Fatalf("Type: %v", err)
	}
	fx.waitText(t, from, "entry", "some text")
	for _, s := range []string{"ctrl+a", "BackSpace"} {
		c, err := target.ParseChord(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.x.Key(t.Context(), c); err != nil {
			t.Fatalf("Key %s: %v", s, err)
		}
	}
	fx.waitText(t, from, "entry", "")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	e, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "key" && e.Keysym == "a" })
	if err != nil {
		t.Fatalf("no key event for ctrl+a: %v", err)
	}
	if strings.Join(e.Modifiers, ",") != "control" {
		t.Errorf("ctrl+a arrived with modifiers %v, want [control]", e.Modifiers)
	}
}

func TestChordWithShiftedKey(t *testing.T) {
	fx := newFixture(t)
	fx.focusEntry(t)
	from := fx.f.Log.Len()
	c, err := target.ParseChord("ctrl+plus")
	if err != nil {
		t.Fatal(err)
	}
	if err := fx.x.Key(t.Context(), c); err != nil {
		t.Fatalf("Key: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	e, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "key" && e.Keysym == "plus" })
	if err != nil {
		t.Fatalf("no key event for ctrl+plus: %v", err)
	}
	if !strings.Contains(strings.Join(e.Modifiers, ","), "control") {
		t.Errorf("ctrl+plus arrived with modifiers %v", e.Modifiers)
	}
}

func TestReleaseAllLeavesNoKeyDown(t *testing.T) {
	fx := newFixture(t)
	ctx := t.Context()
	if err := fx.x.ButtonDown(ctx, 5, 5, 1); err != nil {
		t.Fatalf("ButtonDown: %v", err)
	}
	if _, buttons := fx.x.Held(); len(buttons) != 1 {
		t.Fatalf("Held buttons = %v after ButtonDown", buttons)
	}
	if err := fx.x.ReleaseAll(ctx); err != nil {
		t.Fatalf("ReleaseAll: %v", err)
	}
	if keys, buttons := fx.x.Held(); len(keys)+len(buttons) > 0 {
		t.Errorf("still held after ReleaseAll: keys %v buttons %v", keys, buttons)
	}
	if down := keysDown(t, fx.d.Display); len(down) > 0 {
		t.Errorf("keys down after ReleaseAll: %v", down)
	}
	c, err := xgb.NewConnDisplay(fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := xproto.QueryPointer(c, xproto.Setup(c).DefaultScreen(c).Root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if p.Mask&(xproto.KeyButMaskButton1|xproto.KeyButMaskButton2|xproto.KeyButMaskButton3) != 0 {
		t.Errorf("a button is still down after ReleaseAll: mask %#x", p.Mask)
	}
}

// TestCancelledTypeStopsAndReleases types a long text with nobody focused
// (the server drops the keys) and cancels it as soon as it holds a key.
func TestCancelledTypeStopsAndReleases(t *testing.T) {
	fx := newFixture(t)
	c, err := xgb.NewConnDisplay(fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := xproto.SetInputFocusChecked(c, xproto.InputFocusNone, xproto.InputFocusNone, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("ABCDEFGHIJ", 20000) // all shifted: Shift is held half the time
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if keys, _ := fx.x.Held(); len(keys) > 0 {
				cancel()
				return
			}
		}
	}()
	err = fx.x.Type(ctx, text)
	if target.CodeOf(err) != target.CodeTimeout {
		t.Fatalf("Type with a cancelled context = %v, want a timeout refusal", err)
	}
	if keys, buttons := fx.x.Held(); len(keys)+len(buttons) > 0 {
		t.Errorf("still held after a cancelled Type: keys %v buttons %v", keys, buttons)
	}
	if down := keysDown(t, fx.d.Display); len(down) > 0 {
		t.Errorf("keys down after a cancelled Type: %v", down)
	}
}

// TestReleaseAllInterruptsType is the takeover: ReleaseAll from another
// goroutine stops a long Type between two events and nothing stays down.
func TestReleaseAllInterruptsType(t *testing.T) {
	fx := newFixture(t)
	c, err := xgb.NewConnDisplay(fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := xproto.SetInputFocusChecked(c, xproto.InputFocusNone, xproto.InputFocusNone, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	released := make(chan error, 1)
	go func() {
		for ctx.Err() == nil {
			if keys, _ := fx.x.Held(); len(keys) > 0 {
				released <- fx.x.ReleaseAll(t.Context())
				return
			}
		}
		released <- nil
	}()
	err = fx.x.Type(ctx, strings.Repeat("ABCDEFGHIJ", 20000))
	cancel()
	if rerr := <-released; rerr != nil {
		t.Errorf("ReleaseAll: %v", rerr)
	}
	if target.CodeOf(err) != target.CodeInterrupted {
		t.Fatalf("Type interrupted by ReleaseAll = %v, want an interrupted refusal", err)
	}
	if down := keysDown(t, fx.d.Display); len(down) > 0 {
		t.Errorf("keys down after the interruption: %v", down)
	}
}

// TestChordsArrive presses chords and checks the key the fixture received
// and the modifiers it saw.
func TestChordsArrive(t *testing.T) {
	fx := newFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for _, tt := range []struct{ chord, unicode, keysym, mods string }{
		{"super+l", "l", "l", "super"},
		{"alt+F4", "", "F4", "mod1"},
		{"ctrl+shift+t", "T", "T", "shift,control"},
		{"ctrl+T", "T", "T", "shift,control"},
		{"ctrl+€", "€", "", "control"},
		{"F5", "", "F5", ""},
	} {
		c, err := target.ParseChord(tt.chord)
		if err != nil {
			t.Fatal(err)
		}
		from := fx.f.Log.Len()
		if err := fx.x.Key(ctx, c); err != nil {
			t.Fatalf("Key %s: %v", tt.chord, err)
		}
		e, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool {
			return e.Type == "key" && (tt.keysym == "" || e.Keysym == tt.keysym) && e.Unicode == tt.unicode
		})
		if err != nil {
			t.Fatalf("%s: no key event: %v", tt.chord, err)
		}
		if got := strings.Join(e.Modifiers, ","); got != tt.mods {
			t.Errorf("%s arrived as %s with modifiers %q, want %q", tt.chord, e.Keysym, got, tt.mods)
		}
	}
	if down := keysDown(t, fx.d.Display); len(down) > 0 {
		t.Errorf("keys still down after the chords: %v", down)
	}
}
