package x11_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// The X11 requests one input verb sends on our connection, and of them the
// ones that wait for a reply (round trips), once the connection has probed
// XTEST. A change that asks the server once more changes a number here: it
// is seen, and said in its commit.
const (
	// The first Key or Type of a connection reads the keyboard and
	// modifier mappings (GetKeyboardMapping, GetModifierMapping: 2
	// requests, 2 replies, waited for together), kept until the server
	// says they changed: type "hi" then costs 7 requests, 3 replies. (X
	// says so too when a key comes from another keyboard than the last
	// one did, a person's and then XTEST's: the core keyboard takes on
	// that device's keymap.)
	keymapRequests, keymapReplies = 2, 2
	// Key: the chord's FakeInputs (ctrl+a: ctrl down, a down, a up, ctrl
	// up: 4; a plain letter: 2), one GetInputFocus at the end (1, 1) so
	// that the server has done them all when Key returns. Before the
	// keymap was kept: 7 and 3, 5 and 3.
	keyCtrlARequests, keyCtrlAReplies = 5, 1
	keyPlainRequests, keyPlainReplies = 3, 1
	// Type "hi": a FakeInput down and up per character (4),
	// GetInputFocus (1, 1). Before: 7 and 3.
	typeHiRequests, typeHiReplies = 5, 1
	// Click (click --at): the FakeInputs of the motion, the press and the
	// release (3), GetInputFocus (1, 1).
	clickRequests, clickReplies = 4, 1
)

// TestInputRoundTrips counts the requests and replies of a Key (a chord
// and a plain letter), a Type of a short text and a Click on our Xvfb,
// each effect seen in the GTK fixture's own log, and holds them to the
// budgets above.
func TestInputRoundTrips(t *testing.T) {
	fx := newFixture(t)
	fx.focusEntry(t) // probes XTEST too: counted from here on
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	// A first key through XTEST on this server (from another connection)
	// makes the core keyboard XTEST's, and X says the keymap changed: the
	// counts below are of a server that had a key from XTEST before.
	other, err := x11.Open(ctx, fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	from := fx.f.Log.Len()
	if err := other.Type(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	fx.waitText(t, from, "entry", "w")
	count := func(what string, requests, replies uint64, act func() error, done func(testenv.Event) bool) {
		t.Helper()
		from := fx.f.Log.Len()
		before := fx.x.Traffic()
		if err := act(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got := fx.x.Traffic().Sub(before)
		t.Logf("%s: %d requests, %d replies", what, got.Requests, got.Replies)
		if _, err := fx.f.Log.WaitFrom(ctx, from, done); err != nil {
			t.Fatalf("%s: the fixture never reported it: %v", what, err)
		}
		if got.Requests != requests || got.Replies != replies {
			t.Errorf("%s: %d requests and %d replies, its budget is %d and %d: a change of the budget is said where it is set",
				what, got.Requests, got.Replies, requests, replies)
		}
	}
	text := func(want string) func(testenv.Event) bool {
		return func(e testenv.Event) bool { return e.Type == "text" && e.Widget == "entry" && e.Text == want }
	}
	key := func(s string) func() error {
		c, err := target.ParseChord(s)
		if err != nil {
			t.Fatal(err)
		}
		return func() error { return fx.x.Key(ctx, c) }
	}
	count(`type "hi", the first`, keymapRequests+typeHiRequests, keymapReplies+typeHiReplies, func() error { return fx.x.Type(ctx, "hi") }, text("whi"))
	count("key ctrl+a", keyCtrlARequests, keyCtrlAReplies, key("ctrl+a"), func(e testenv.Event) bool {
		return e.Type == "key" && e.Keysym == "a" && strings.Join(e.Modifiers, ",") == "control"
	})
	// x replaces the text ctrl+a selected.
	count("key x", keyPlainRequests, keyPlainReplies, key("x"), text("x"))
	count(`type "yz"`, typeHiRequests, typeHiReplies, func() error { return fx.x.Type(ctx, "yz") }, text("xyz"))
	x, y := centre(fx.extents(t, "Alpha")["Alpha"])
	count("click", clickRequests, clickReplies, func() error { return fx.x.Click(ctx, x, y, x11.ButtonLeft, 1) },
		func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" })
}

// A keymap changed by another client is seen by the next Key: the one we
// keep is dropped when the server's MappingNotify arrives. Another client
// moves "a" to a spare keycode and puts "b" on a's; a Key "a" through the
// keymap kept from before would type "b".
func TestKeymapChangedByAnotherClient(t *testing.T) {
	fx := newFixture(t)
	fx.focusEntry(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	from := fx.f.Log.Len()
	if err := fx.x.Type(ctx, "a"); err != nil { // reads the keymap, and keeps it
		t.Fatal(err)
	}
	fx.waitText(t, from, "entry", "a")

	c, err := xgb.NewConnDisplay(fx.d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	setup := xproto.Setup(c)
	lo, hi := setup.MinKeycode, setup.MaxKeycode
	km, err := xproto.GetKeyboardMapping(c, lo, byte(hi-lo+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	per := int(km.KeysymsPerKeycode)
	syms := func(code xproto.Keycode) []xproto.Keysym {
		i := int(code-lo) * per
		return km.Keysyms[i : i+per]
	}
	var codeA, spare xproto.Keycode
	for code := lo; code < hi; code++ {
		s := syms(code)
		if codeA == 0 && s[0] == 'a' {
			codeA = code
		}
		if spare == 0 && code > 8 && slices.Equal(s, make([]xproto.Keysym, per)) {
			spare = code
		}
	}
	if codeA == 0 || spare == 0 {
		t.Fatalf("no keycode for a (%d) or no spare one (%d)", codeA, spare)
	}
	change := func(code xproto.Keycode, s []xproto.Keysym) {
		if err := xproto.ChangeKeyboardMappingChecked(c, 1, code, byte(per), s).Check(); err != nil {
			t.Fatalf("ChangeKeyboardMapping %d: %v", code, err)
		}
	}
	oldA := slices.Clone(syms(codeA))
	defer func() { // before c closes
		change(spare, make([]xproto.Keysym, per))
		change(codeA, oldA)
	}()
	notices := x11.KeymapNotices(fx.x)
	onlyB := make([]xproto.Keysym, per)
	onlyB[0] = 'b'
	onlyA := make([]xproto.Keysym, per)
	onlyA[0] = 'a'
	change(codeA, onlyB)
	change(spare, onlyA)
	// Both notices reach our connection (its event reader, not a timer).
	for x11.KeymapNotices(fx.x) < notices+2 {
		select {
		case <-ctx.Done():
			t.Fatalf("our connection read %d MappingNotify events of 2", x11.KeymapNotices(fx.x)-notices)
		case <-time.After(10 * time.Millisecond):
		}
	}
	from = fx.f.Log.Len()
	key, _ := target.ParseChord("a")
	if err := fx.x.Key(ctx, key); err != nil {
		t.Fatal(err)
	}
	fx.waitText(t, from, "entry", "aa")
}
