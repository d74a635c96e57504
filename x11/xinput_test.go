package x11_test

import (
	"context"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/res"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

// touches collects a watch's Touches for the test.
type touches chan x11.Touch

// next waits for the first Touch satisfying ok, and answers it with every
// Touch before it.
func (ts touches) next(t *testing.T, ok func(x11.Touch) bool) (x11.Touch, []x11.Touch) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var before []x11.Touch
	for {
		select {
		case tc := <-ts:
			if ok(tc) {
				return tc, before
			}
			before = append(before, tc)
		case <-ctx.Done():
			t.Fatalf("no such Touch came (had %v)", before)
		}
	}
}

// clients is how many clients the X server has now that this test
// process made (X-Resource's client ids, by each local client's PID, on
// a connection of the test's own, which it counts too). The desktop's
// own services and other tests' clients come and go meanwhile (under load
// its accessibility bus launcher connected after a count had held still
// for 300 ms); they are not counted.
func clients(t *testing.T, display string) int {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := res.Init(c); err != nil {
		t.Fatal(err)
	}
	r, err := res.QueryClientIds(c, 1, []res.ClientIdSpec{{Client: 0, Mask: res.ClientIdMaskLocalClientPID}}).Reply()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range r.Ids {
		if id.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(id.Value) == 1 && int(id.Value[0]) == os.Getpid() {
			n++
		}
	}
	if n == 0 {
		t.Fatal("X-Resource names no client of this process, not even the connection that asked")
	}
	return n
}

// until waits for cond, failing t if it does not come within 30 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain: %s", what)
		}
	}
}

// watchStacks is what of the watch shows in a goroutine dump.
func watchStacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "x11.(*InputWatch)") || strings.Contains(g, "x11.(*geSplit)") ||
			strings.Contains(g, "x11.drainConn") || strings.Contains(g, "x11.(*evQueue)") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

func TestWatchInput(t *testing.T) {
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()

	before := clients(t, d.Display)
	ts := make(touches, 1024)
	w, err := x11.WatchInput(ctx, d.Display, x11.Options{}, func(tc x11.Touch) {
		select {
		case ts <- tc:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("watching %v", w.Devices())
	if got := clients(t, d.Display); got != before+1 {
		t.Fatalf("the server has %d clients with the watch, %d before", got, before)
	}

	// Our own input first: every event of it is processed by the server,
	// and its raw events sent, before the person's below, so a Touch of
	// ours would come first.
	chord, err := target.ParseChord("a")
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Key(ctx, chord); err != nil {
		t.Fatal(err)
	}
	if err := x.Click(ctx, 50, 60, x11.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if err := x.Move(ctx, 300, 200); err != nil {
		t.Fatal(err)
	}

	p, err := testenv.NewPerson(ctx, d.Display, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Key(ctx, 'b'); err != nil {
		t.Fatal(err)
	}
	got, early := ts.next(t, func(tc x11.Touch) bool { return tc.What == "key" })
	if len(early) > 0 {
		t.Errorf("our own XTEST input was reported as the person's: %v", early)
	}
	if got.Device != p.Keyboard || got.DeviceID != p.KeyboardID {
		t.Errorf("the person's key came from %q (%d), want %q (%d)", got.Device, got.DeviceID, p.Keyboard, p.KeyboardID)
	}
	if !slices.Contains(w.Devices(), p.Keyboard) {
		t.Errorf("Devices() = %v, lacks %q", w.Devices(), p.Keyboard)
	}

	if err := p.Move(ctx, 10, 20); err != nil {
		t.Fatal(err)
	}
	got, _ = ts.next(t, func(tc x11.Touch) bool { return tc.What == "motion" })
	if got.Device != p.Pointer {
		t.Errorf("the person's motion came from %q, want %q", got.Device, p.Pointer)
	}
	if err := p.Click(ctx, 30, 40); err != nil {
		t.Fatal(err)
	}
	got, _ = ts.next(t, func(tc x11.Touch) bool { return tc.What == "button" })
	if got.Device != p.Pointer {
		t.Errorf("the person's click came from %q, want %q", got.Device, p.Pointer)
	}

	// A device that appears after the watch started.
	p2, err := testenv.NewPerson(ctx, d.Display, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if err := p2.Key(ctx, 'c'); err != nil {
		t.Fatal(err)
	}
	got, _ = ts.next(t, func(tc x11.Touch) bool { return tc.What == "key" })
	if got.Device != p2.Keyboard || p2.Keyboard == p.Keyboard {
		t.Errorf("the second person's key came from %q, want %q", got.Device, p2.Keyboard)
	}
	if !slices.Contains(w.Devices(), p2.Keyboard) {
		t.Errorf("Devices() = %v, lacks %q", w.Devices(), p2.Keyboard)
	}

	// From the person's key to fn: a figure, not asserted.
	var lat []time.Duration
	for range 20 {
		start := time.Now()
		if err := p.Key(ctx, 'd'); err != nil {
			t.Fatal(err)
		}
		got, _ := ts.next(t, func(tc x11.Touch) bool { return tc.What == "key" })
		lat = append(lat, got.At.Sub(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("Person.Key to fn: median %v (min %v, max %v, n=20)", lat[10], lat[0], lat[19])

	// Our own input again, after the person's: nothing comes of it (the
	// person's key sent after it is the next Touch).
	if err := x.Key(ctx, chord); err != nil {
		t.Fatal(err)
	}
	if err := x.Move(ctx, 5, 5); err != nil {
		t.Fatal(err)
	}
	if err := p.Key(ctx, 'e'); err != nil {
		t.Fatal(err)
	}
	if _, early := ts.next(t, func(tc x11.Touch) bool { return tc.DeviceID == p.KeyboardID }); len(early) > 0 {
		t.Errorf("our own XTEST input was reported as the person's: %v", early)
	}

	// Our input does make raw events: the watch leaves them out by
	// their device.
	x11.ReportOurs(w)
	if err := x.Key(ctx, chord); err != nil {
		t.Fatal(err)
	}
	got, _ = ts.next(t, func(tc x11.Touch) bool { return tc.What == "key" })
	if got.Device != "Virtual core XTEST keyboard" {
		t.Errorf("our own key came from %q, want the Virtual core XTEST keyboard", got.Device)
	}

	// A device removed is no longer watched.
	if err := p2.Close(); err != nil {
		t.Fatal(err)
	}
	until(t, "the second person's keyboard leaves Devices()", func() bool { return !slices.Contains(w.Devices(), p2.Keyboard) })
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Done():
	default:
		t.Fatal("Done is open after Close")
	}
	if err := w.Err(); err != nil {
		t.Errorf("Err after Close = %v", err)
	}
	until(t, "the server counts the clients it had before the watch", func() bool { return clients(t, d.Display) == before })
	// xgb's goroutines end on their own once the socket is closed.
	until(t, "the watch's goroutines end", func() bool { return watchStacks() == "" })
}

// A watch whose connection the server ends reports why.
func TestWatchInputServerGone(t *testing.T) {
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	w, err := x11.WatchInput(ctx, d.Display, x11.Options{}, func(x11.Touch) {})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Done():
	case <-ctx.Done():
		t.Fatal("the watch did not stop when the X server went")
	}
	if w.Err() == nil {
		t.Error("Err is nil after the server went")
	}
	t.Logf("Err: %v", w.Err())
}
