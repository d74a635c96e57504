package args

import (
	"testing"
	"time"
)

// TestBound: a hand-off's verb is bound by its own wait (5 minutes when
// none is given) and a grace, beyond the daemon's verb timeout; other
// verbs, and a hand-off shorter than it, by the verb timeout.
func TestBound(t *testing.T) {
	const verb = 30 * time.Second
	for _, c := range []struct {
		a    any
		want time.Duration
	}{
		{Handoff{Reason: "log in"}, DefaultHandoffWait + boundGrace},
		{Handoff{Reason: "log in", Wait: "10m"}, 10*time.Minute + boundGrace},
		{Handoff{Reason: "log in", Wait: "2s"}, verb},
		{Handoff{Reason: "log in", Wait: "forever"}, verb},
		{Reach{URL: "http://127.0.0.1/"}, DefaultHandoffWait + boundGrace},
		{Borrow{Wait: "10m"}, verb},
		{Click{Ref: "@e1"}, verb},
		{nil, verb},
	} {
		if got := Bound(c.a, verb); got != c.want {
			t.Errorf("Bound(%#v) = %v, want %v", c.a, got, c.want)
		}
	}
}
