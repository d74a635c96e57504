package daemon

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestBudgetMinutes: a session's wall-clock budget, on the daemon's clock:
// acting verbs run until its minutes pass, then are refused budget_spent
// saying how to go on, while reading still runs; the operator's reset
// starts the clock over.
func TestBudgetMinutes(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	pass := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	td := startDaemonWith(t, &kindtest.Provider{}, "", func(c *Config) { c.Now = clock })
	win := string(td.open(t, "a"))
	key := Request{Verb: "key", Session: "a", Target: win, Chord: "a", NoVerify: true}

	if resp := td.call(t, Request{Verb: "budget", Session: "a", Minutes: 30}); !strings.Contains(resp.Did, "30 of 30 minutes left") {
		t.Fatalf("budget --minutes 30: %+v", resp)
	}
	wantCode(t, td.call(t, key), "")
	pass(29 * time.Minute)
	wantCode(t, td.call(t, key), "")
	pass(time.Minute)
	resp := td.call(t, key)
	wantCode(t, resp, target.CodeBudgetSpent)
	if !strings.Contains(resp.Message, "budget --reset") || !strings.Contains(resp.Message, "30 minutes") {
		t.Fatalf("budget_spent says: %s", resp.Message)
	}
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: win}), "")
	// The operator starts it over (--for).
	wantCode(t, td.call(t, Request{Verb: "budget", Session: "op", For: "a", Reset: true}), "")
	wantCode(t, td.call(t, key), "")
}
