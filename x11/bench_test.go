package x11_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// benchText is 100 characters that are all on a US keymap (xdotool's
// --delay 0 typing of remapped characters is unreliable, so the comparison
// sticks to what both can type exactly).
const benchText = "The quick brown fox jumps over the lazy dog; THE QUICK BROWN FOX! 0123456789 (a+b)*c=d <e> [f] {g}?!"

// benchUnicode is 100 characters, a quarter of them missing from a US keymap.
var benchUnicode = strings.Repeat("aé€ωx", 20)

// BenchmarkType types the same 100 characters into the fixture's entry with
// Type and with `xdotool type --delay 0`, alternately, and checks each time
// that the text arrived exactly. ns/op is ours; the metrics give both in ms
// and their ratio (x-xdotool < 1 means we are faster).
func BenchmarkType(b *testing.B) {
	for _, tc := range []struct{ name, text string }{{"ascii100", benchText}, {"unicode100", benchUnicode}} {
		b.Run(tc.name, func(b *testing.B) {
			if n := len([]rune(tc.text)); n != 100 {
				b.Fatalf("bench text has %d characters, want 100", n)
			}
			fx := newFixture(b)
			fx.focusEntry(b)
			// clear empties the entry, which holds some text.
			clear := func() {
				from := fx.f.Log.Len()
				for _, s := range []string{"ctrl+a", "BackSpace"} {
					c, _ := target.ParseChord(s)
					if err := fx.x.Key(b.Context(), c); err != nil {
						b.Fatal(err)
					}
				}
				if !fx.hasText(b, from, "") {
					b.Fatal("ctrl+a BackSpace did not empty the entry")
				}
			}
			var ours, theirs time.Duration
			var sent x11.Traffic
			failed := 0
			for range b.N {
				b.StopTimer()
				from := fx.f.Log.Len()
				b.StartTimer()
				start := time.Now()
				t0 := fx.x.Traffic()
				if err := fx.x.Type(b.Context(), tc.text); err != nil {
					b.Fatalf("Type: %v", err)
				}
				ours += time.Since(start)
				sent = sent.Add(fx.x.Traffic().Sub(t0))
				b.StopTimer()
				fx.waitText(b, from, "entry", tc.text)

				clear()
				from = fx.f.Log.Len()
				start = time.Now()
				xdotool(b, fx.d, "type", "--delay", "0", tc.text)
				theirs += time.Since(start)
				if !fx.hasText(b, from, tc.text) {
					failed++
				}
				if fx.f.Log.Len() > from {
					clear()
				}
				b.StartTimer()
			}
			report(b, ours, theirs)
			reportTraffic(b, sent)
			b.ReportMetric(float64(failed), "xdotool-wrong")
		})
	}
}

// BenchmarkKey presses ctrl+a with Key and with `xdotool key --delay 0`,
// alternately, each checked in the fixture log.
func BenchmarkKey(b *testing.B) {
	fx := newFixture(b)
	fx.focusEntry(b)
	c, err := target.ParseChord("ctrl+a")
	if err != nil {
		b.Fatal(err)
	}
	isCtrlA := func(e testenv.Event) bool {
		return e.Type == "key" && e.Keysym == "a" && strings.Join(e.Modifiers, ",") == "control"
	}
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	var ours, theirs time.Duration
	var sent x11.Traffic
	for range b.N {
		from := fx.f.Log.Len()
		start := time.Now()
		t0 := fx.x.Traffic()
		if err := fx.x.Key(ctx, c); err != nil {
			b.Fatalf("Key: %v", err)
		}
		ours += time.Since(start)
		sent = sent.Add(fx.x.Traffic().Sub(t0))
		b.StopTimer()
		if _, err := fx.f.Log.WaitFrom(ctx, from, isCtrlA); err != nil {
			b.Fatalf("ctrl+a from Key not logged: %v", err)
		}
		from = fx.f.Log.Len()
		start = time.Now()
		xdotool(b, fx.d, "key", "--delay", "0", "ctrl+a")
		theirs += time.Since(start)
		if _, err := fx.f.Log.WaitFrom(ctx, from, isCtrlA); err != nil {
			b.Fatalf("ctrl+a from xdotool not logged: %v", err)
		}
		b.StartTimer()
	}
	report(b, ours, theirs)
	reportTraffic(b, sent)
}

// report replaces ns/op by our time alone and adds both sides and the ratio.
func report(b *testing.B, ours, theirs time.Duration) {
	n := float64(b.N)
	b.ReportMetric(float64(ours.Nanoseconds())/n, "ns/op")
	b.ReportMetric(float64(ours.Microseconds())/1000/n, "ms/op-vibespace")
	b.ReportMetric(float64(theirs.Microseconds())/1000/n, "ms/op-xdotool")
	if theirs > 0 {
		b.ReportMetric(float64(ours)/float64(theirs), "x-xdotool")
	}
}

// reportTraffic adds our X11 requests and replies (round trips) per op.
func reportTraffic(b *testing.B, t x11.Traffic) {
	b.ReportMetric(float64(t.Requests)/float64(b.N), "x11-requests/op")
	b.ReportMetric(float64(t.Replies)/float64(b.N), "x11-replies/op")
}

// xdotool runs xdotool on the desktop, start to exit.
func xdotool(b *testing.B, d *testenv.Desktop, args ...string) {
	b.Helper()
	testenv.NeedIntegration(b, "xdotool")
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("xdotool %v: %v %s", args, err, out)
	}
}

// hasText reports whether the entry comes to hold want (waiting a little:
// a wrong text never turns right).
func (fx *fixture) hasText(t testing.TB, from int, want string) bool {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := fx.f.Log.WaitFrom(ctx, from, func(e testenv.Event) bool {
		return e.Type == "text" && e.Widget == "entry" && e.Text == want
	})
	return err == nil
}
