package x11_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// The X11 requests one input verb sends on our connection, and of them the
// ones that wait for a reply (round trips), once the connection has probed
// XTEST. A change that asks the server once more changes a number here: it
// is seen, and said in its commit.
const (
	// Key: the keyboard and modifier mappings (GetKeyboardMapping,
	// GetModifierMapping: 2 requests, 2 replies, waited for together),
	// the chord's FakeInputs (ctrl+a: ctrl down, a down, a up, ctrl up: 4;
	// a plain letter: 2), one GetInputFocus at the end (1, 1) so that
	// the server has done them all when Key returns.
	keyCtrlARequests, keyCtrlAReplies = 7, 3
	keyPlainRequests, keyPlainReplies = 5, 3
	// Type "hi": the mappings (2, 2), a FakeInput down and up per
	// character (4), GetInputFocus (1, 1).
	typeHiRequests, typeHiReplies = 7, 3
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
	count := func(what string, requests, replies uint64, act func() error, done func(testenv.Event) bool) {
		t.Helper()
		from := fx.f.Log.Len()
		before := fx.x.Traffic()
		if err := act(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		after := fx.x.Traffic()
		got := x11.Traffic{Requests: after.Requests - before.Requests, Replies: after.Replies - before.Replies}
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
	count(`type "hi"`, typeHiRequests, typeHiReplies, func() error { return fx.x.Type(ctx, "hi") }, text("hi"))
	count("key ctrl+a", keyCtrlARequests, keyCtrlAReplies, key("ctrl+a"), func(e testenv.Event) bool {
		return e.Type == "key" && e.Keysym == "a" && strings.Join(e.Modifiers, ",") == "control"
	})
	// x replaces the text ctrl+a selected.
	count("key x", keyPlainRequests, keyPlainReplies, key("x"), text("x"))
	x, y := centre(fx.extents(t, "Alpha")["Alpha"])
	count("click", clickRequests, clickReplies, func() error { return fx.x.Click(ctx, x, y, x11.ButtonLeft, 1) },
		func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" })
}
