package lease

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTable(idle time.Duration) (*Table, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)}
	return NewTable(Options{Now: c.Now, IdleHandback: idle}), c
}

const w1 = target.ID("win:1")

func TestAcquireRelease(t *testing.T) {
	tb, _ := newTable(0)
	l, acq, err := tb.Acquire(w1, "a")
	if err != nil || !acq || l.Holder != "a" {
		t.Fatalf("acquire: %+v %v %v", l, acq, err)
	}
	if _, acq, err := tb.Acquire(w1, "a"); err != nil || acq {
		t.Fatalf("re-acquire by holder: %v %v", acq, err)
	}
	_, _, err = tb.Acquire(w1, "b")
	r, ok := target.AsRefusal(err)
	if !ok || r.Code != target.CodeHeld || r.Facts["holder"] != "a" || r.Facts["since"] != "2026-11-30T01:00:00Z" {
		t.Fatalf("b acquire: %v", err)
	}
	if _, _, err := tb.Release(w1, "b"); target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("b release of a's lease: %v", err)
	}
	if _, rel, err := tb.Release(w1, "a"); err != nil || !rel {
		t.Fatalf("release: %v %v", rel, err)
	}
	if _, rel, err := tb.Release(w1, "a"); err != nil || rel {
		t.Fatalf("second release must be a no-op: %v %v", rel, err)
	}
	if _, acq, err := tb.Acquire(w1, "b"); err != nil || !acq {
		t.Fatalf("b after release: %v %v", acq, err)
	}
}

func TestUseAcquiresAndRefusesOthers(t *testing.T) {
	tb, _ := newTable(0)
	g, err := tb.Use(w1, "a")
	if err != nil || !g.Acquired || g.Lease.Holder != "a" {
		t.Fatalf("%+v %v", g, err)
	}
	if _, err := tb.Use(w1, "b"); target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("b: %v", err)
	}
	if err := tb.Check(w1, "a"); err != nil {
		t.Fatal(err)
	}
	tb.Release(w1, "a")
	if err := tb.Check(w1, "a"); target.CodeOf(err) != target.CodeNotAttached {
		t.Fatalf("check after release: %v", err)
	}
}

func TestTakeoverPausesAndHandbackToldOnce(t *testing.T) {
	tb, clk := newTable(0)
	tb.Use(w1, "a")
	clk.Add(time.Minute)
	tb.Takeover(w1, "alice", "op", false)
	for _, s := range []string{"a", "b"} {
		_, err := tb.Use(w1, s)
		r, ok := target.AsRefusal(err)
		if !ok || r.Code != target.CodeWindowPaused || r.Facts["user"] != "alice" || r.Facts["since"] != "2026-11-30T01:01:00Z" {
			t.Fatalf("%s during takeover: %v", s, err)
		}
	}
	if err := tb.Check(w1, "a"); target.CodeOf(err) != target.CodeWindowPaused {
		t.Fatalf("check: %v", err)
	}
	if l := tb.Get(w1); l.Input != InputUser || !strings.Contains(l.State(), "paused") {
		t.Fatalf("state %q", l.State())
	}
	clk.Add(time.Minute)
	if _, ok := tb.Handback(w1); !ok {
		t.Fatal("handback")
	}
	if _, ok := tb.Handback(w1); ok {
		t.Fatal("second handback must report nothing to hand back")
	}
	// b is not owed a note (it did not hold the lease); it is refused held.
	g, err := tb.Use(w1, "b")
	if target.CodeOf(err) != target.CodeHeld || g.Told != nil {
		t.Fatalf("b: %+v %v", g, err)
	}
	g, err = tb.Use(w1, "a")
	if err != nil || g.Told == nil || g.Told.User != "alice" || g.Told.Idle {
		t.Fatalf("a's first verb after handback: %+v %v", g, err)
	}
	if !strings.Contains(g.Told.Message(), "may have changed") {
		t.Fatal(g.Told.Message())
	}
	if g, _ := tb.Use(w1, "a"); g.Told != nil {
		t.Fatal("the handback note must be told once")
	}
}

func TestHandbackToldEvenOnRefusal(t *testing.T) {
	tb, _ := newTable(0)
	tb.Use(w1, "a")
	tb.Takeover(w1, "u", "op", false)
	tb.Handback(w1)
	tb.Takeover(w1, "u", "op", false)
	g, err := tb.Use(w1, "a")
	if target.CodeOf(err) != target.CodeWindowPaused || g.Told == nil {
		t.Fatalf("%+v %v", g, err)
	}
}

func TestIdleHandback(t *testing.T) {
	tb, clk := newTable(5 * time.Minute)
	tb.Use(w1, "a")
	tb.Takeover(w1, "u", "op", false)
	clk.Add(4 * time.Minute)
	tb.UserActivity(w1)
	clk.Add(4 * time.Minute)
	if got := tb.Expire(); len(got) != 0 {
		t.Fatalf("handed back while active: %v", got)
	}
	if _, err := tb.Use(w1, "a"); target.CodeOf(err) != target.CodeWindowPaused {
		t.Fatalf("%v", err)
	}
	clk.Add(time.Minute)
	if got := tb.Expire(); len(got) != 1 || got[0] != w1 {
		t.Fatalf("Expire = %v", got)
	}
	g, err := tb.Use(w1, "a")
	if err != nil || g.Told == nil || !g.Told.Idle || !strings.Contains(g.Told.Message(), "idle") {
		t.Fatalf("%+v %v", g, err)
	}
}

func TestIdleHandbackAppliedOnRead(t *testing.T) {
	tb, clk := newTable(time.Minute)
	tb.Use(w1, "a")
	tb.Takeover(w1, "u", "op", false)
	clk.Add(2 * time.Minute)
	if g, err := tb.Use(w1, "a"); err != nil || g.Told == nil {
		t.Fatalf("%+v %v", g, err)
	}
}

func TestBrowserPausedForTabs(t *testing.T) {
	tb, _ := newTable(0)
	tb.Takeover("tab:x", "u", "op", false)
	if _, err := tb.Use("tab:x", "a"); target.CodeOf(err) != target.CodeBrowserPaused {
		t.Fatal(err)
	}
}

func TestViewersAndRestore(t *testing.T) {
	tb, _ := newTable(0)
	tb.Use(w1, "a")
	tb.Watch(w1, "v1")
	tb.Watch(w1, "v1")
	tb.Watch(w1, "v2")
	tb.Unwatch(w1, "v1")
	all := tb.All()
	if len(all) != 1 || fmt.Sprint(all[0].Viewers) != "[v2]" {
		t.Fatalf("%+v", all)
	}
	all[0].Viewers[0] = "mutated"
	if tb.Get(w1).Viewers[0] != "v2" {
		t.Fatal("All must return copies")
	}
	tb2, _ := newTable(0)
	tb2.Restore(all)
	if tb2.Get(w1).Holder != "a" {
		t.Fatal("restore")
	}
	tb2.Drop(w1)
	if tb2.Get(w1).Holder != "" {
		t.Fatal("drop")
	}
}

func TestConcurrentUseHasOneWinner(t *testing.T) {
	tb, _ := newTable(0)
	var wg sync.WaitGroup
	wins := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fmt.Sprintf("s%d", i)
			if g, err := tb.Use(w1, s); err == nil && g.Acquired {
				wins <- s
			}
			tb.Expire()
			tb.All()
		}()
	}
	wg.Wait()
	close(wins)
	if n := len(wins); n != 1 {
		t.Fatalf("%d sessions acquired the lease", n)
	}
}

func TestSecondTakeoverRefusedUnlessForcedAndTheFirstIsTold(t *testing.T) {
	tb, clk := newTable(0)
	tb.Use(w1, "a")
	if _, _, err := tb.Takeover(w1, "alice", "op", false); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Minute)
	if _, r, err := tb.Takeover(w1, "alice", "other", false); err != nil || r != "" {
		t.Fatalf("alice again: %q %v", r, err)
	}
	_, _, err := tb.Takeover(w1, "bob", "op2", false)
	if r, ok := target.AsRefusal(err); !ok || r.Code != target.CodeTakenOver || r.Facts["user"] != "alice" {
		t.Fatalf("bob: %v", err)
	}
	if l := tb.Get(w1); l.User != "alice" || l.UserSession != "op" {
		t.Fatalf("after the refused takeover: %+v", l)
	}
	if tb.Tell(w1, "alice") != nil {
		t.Fatal("alice is owed nothing yet")
	}
	l, replaced, err := tb.Takeover(w1, "bob", "op2", true)
	if err != nil || replaced != "alice" || l.User != "bob" || l.UserSession != "op2" || !l.UserSince.Equal(clk.Now()) {
		t.Fatalf("forced: %+v %q %v", l, replaced, err)
	}
	n := tb.Tell(w1, "alice")
	if n == nil || n.By != "bob" || !strings.Contains(n.Message(), "replaced") || !strings.Contains(n.Message(), "bob") {
		t.Fatalf("alice's note: %+v", n)
	}
	if tb.Tell(w1, "alice") != nil {
		t.Fatal("told twice")
	}
	tb.Handback(w1)
	if l := tb.Get(w1); l.UserSession != "" || l.User != "" {
		t.Fatalf("after handback: %+v", l)
	}
}

// The person touching their own input pauses the agent holding the lease
// (user_active), never hands back as idle, and only an explicit handback
// resumes it; a free lease has no agent to pause.
func TestTouchedPausesUntilHandback(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tb := NewTable(Options{IdleHandback: time.Minute, Now: func() time.Time { return now }})
	if _, changed := tb.Touched("win:1", "you", "your desktop", "a key"); changed {
		t.Fatal("a free lease was paused: there was no agent")
	}
	if _, _, err := tb.Acquire("win:1", "agent"); err != nil {
		t.Fatal(err)
	}
	l, changed := tb.Touched("win:1", "you", "your desktop", "a key on 'kbd'")
	if !changed || l.Input != InputUser || l.Direct != "a key on 'kbd'" {
		t.Fatalf("Touched = %+v, %v; want the user driving directly", l, changed)
	}
	err := tb.Check("win:1", "agent")
	if target.CodeOf(err) != target.CodeUserActive {
		t.Fatalf("the agent's check = %v; want user_active", err)
	}
	if !strings.Contains(err.Error(), "kbd") || !strings.Contains(l.State(), "own keyboard or pointer") {
		t.Fatalf("the refusal %q / state %q does not say how the person was noticed", err, l.State())
	}
	now = now.Add(time.Hour)
	if got := tb.Expire(); len(got) != 0 {
		t.Fatalf("a direct pause was handed back as idle: %v", got)
	}
	if _, changed := tb.Touched("win:1", "you", "your desktop", "motion"); changed {
		t.Fatal("touching again changed hands")
	}
	if _, ok := tb.Handback("win:1"); !ok {
		t.Fatal("handback did not resume")
	}
	if l := tb.Get("win:1"); l.Direct != "" || l.Input != InputAgent {
		t.Fatalf("after handback: %+v", l)
	}
	if err := tb.Check("win:1", "agent"); err != nil {
		t.Fatalf("after handback the agent is refused: %v", err)
	}
}
