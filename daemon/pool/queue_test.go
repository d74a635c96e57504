package pool

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// clock is a test's clock, moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// paper is a pool whose desktops never started a display (a wipe has
// nothing to end or empty): the queue's and the clock's rules alone.
func paper(n int, cfg Config) (*Pool, *[]lease.Entry) {
	cfg.Desks, cfg.Kind = n, "xvfb"
	if cfg.MemFree == nil {
		cfg.MemFree = func() (int64, error) { return 1 << 40, nil }
	}
	p := New(cfg)
	var rows []lease.Entry
	var mu sync.Mutex
	p.record = func(e lease.Entry) { mu.Lock(); rows = append(rows, e); mu.Unlock() }
	return p, &rows
}

// TestIdleBorrowGoesBack: a borrower who sent no verb for IdleReturn
// loses its desktop (wiped, audited), a person's borrow never does, and
// a verb starts the idle clock over.
func TestIdleBorrowGoesBack(t *testing.T) {
	c := &clock{now: time.Date(2026, 12, 6, 6, 0, 0, 0, time.UTC)}
	p, rows := paper(2, Config{IdleReturn: 10 * time.Minute, Now: c.Now})
	ctx := context.Background()
	for _, s := range []string{"a", "b"} {
		if _, err := p.Borrow(ctx, s, false, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	c.add(6 * time.Minute)
	p.Used("b")
	c.add(5 * time.Minute)
	if gone := p.Idle(ctx); len(gone) != 1 || gone[0] != "a" {
		t.Fatalf("idle after 11 and 5 minutes: %v, want a", gone)
	}
	if p.Held("a") != "" || p.Held("b") == "" {
		t.Fatalf("a holds %q, b %q", p.Held("a"), p.Held("b"))
	}
	var wiped bool
	for _, r := range *rows {
		wiped = wiped || r.Verb == "pool.wipe" && r.Session == "a" && strings.Contains(r.With, "(idle)")
	}
	if !wiped {
		t.Fatalf("no audited wipe of a's idle desktop: %+v", *rows)
	}
	if _, err := p.Borrow(ctx, Person, true, "", 0); err != nil {
		t.Fatal(err)
	}
	c.add(time.Hour)
	if gone := p.Idle(ctx); len(gone) != 1 || gone[0] != "b" || p.Held(Person) == "" {
		t.Fatalf("after an hour: %v went back; the person holds %q", gone, p.Held(Person))
	}
}

// TestBorrowRules: a session that holds a desktop gets it again; a kind
// the pool has not is no_display; a return of nothing is not_attached;
// a waiting borrow whose context ends leaves the queue.
func TestBorrowRules(t *testing.T) {
	p, _ := paper(1, Config{})
	ctx := context.Background()
	a, err := p.Borrow(ctx, "a", false, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := p.Borrow(ctx, "a", false, "", time.Minute); err != nil || again.Desk != a.Desk {
		t.Fatalf("a's second borrow: %+v %v", again, err)
	}
	if _, err := p.Borrow(ctx, "b", false, "xpra", 0); !isCode(err, target.CodeNoDisplay) {
		t.Fatalf("a kind the pool has not: %v", err)
	}
	if _, err := p.Return(ctx, "b", ReturnAsked); !isCode(err, target.CodeNotAttached) {
		t.Fatalf("a return of nothing: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := p.Borrow(cctx, "b", false, "", time.Hour); done <- err }()
	for p.Queued() != 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || p.Queued() != 0 {
		t.Fatalf("a cancelled wait: %v, %d queued", err, p.Queued())
	}
}

// TestCapQueues: a cap below the desktops lends no more than the cap; the
// next borrow queues and gets the desktop returned.
func TestCapQueues(t *testing.T) {
	p, _ := paper(3, Config{PerDesk: 100 << 20, Margin: 0.5, MemFree: func() (int64, error) { return 450 << 20, nil }})
	if n, why := p.Cap(); n != 2 || !strings.Contains(why, "= 2") {
		t.Fatalf("cap %d (%s), want floor(450 × 0.5 / 100) = 2", n, why)
	}
	ctx := context.Background()
	for _, s := range []string{"a", "b"} {
		if _, err := p.Borrow(ctx, s, false, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Borrow(ctx, "c", false, "", 0); !isCode(err, target.CodePoolBusy) {
		t.Fatalf("a third borrow at the cap: %v", err)
	}
	got := make(chan Lent, 1)
	go func() { l, _ := p.Borrow(ctx, "c", false, "", time.Hour); got <- l }()
	for p.Queued() != 1 {
		time.Sleep(time.Millisecond)
	}
	held := p.Held("a")
	if _, err := p.Return(ctx, "a", ReturnAsked); err != nil {
		t.Fatal(err)
	}
	if l := <-got; l.Desk != held {
		t.Fatalf("c got %q, a returned %q", l.Desk, held)
	}
}

func isCode(err error, code target.Code) bool {
	r, ok := target.AsRefusal(err)
	return ok && r.Code == code
}

// TestContextCap: the shared browser's contexts are capped as desks are,
// by the measured figure when none is given, and never below one.
func TestContextCap(t *testing.T) {
	free := func(b int64) func() (int64, error) { return func() (int64, error) { return b, nil } }
	if n, why := ContextCap(free(900<<20), 0.5, 0); n != 5 || !strings.Contains(why, "90 MiB each) = 5") {
		t.Errorf("cap %d (%s), want floor(900 × 0.5 / 90) = 5", n, why)
	}
	if n, _ := ContextCap(free(1000<<20), 0.5, 100<<20); n != 5 {
		t.Errorf("cap %d with 100 MiB each, want 5", n)
	}
	if n, why := ContextCap(free(10<<20), 0.5, 0); n != 1 || !strings.Contains(why, "at least 1") {
		t.Errorf("cap %d (%s) with next to no memory, want 1", n, why)
	}
	if n, why := ContextCap(func() (int64, error) { return 0, errors.New("no /proc") }, 0.5, 0); n <= 1000 || !strings.Contains(why, "no /proc") {
		t.Errorf("cap %d (%s) where memory cannot be read, want none that binds", n, why)
	}
}
