package main_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// BenchmarkVerifyWindow is click @ref on the fixture's check box, whole
// process each, with the watch for the effect on and off (--no-verify)
// alternately in the same run: medians of each and the ratio. Every click
// toggles the box: a watched one must say confirmed, and every toggle is
// checked in the fixture's log after the loop. Between them, a watched
// click on "Alpha", which changes nothing to see, must answer
// no_visible_change: idle-p50-ms is its median (the wait ends when the
// application is idle, daemon/native's idle.go; else at 500 ms), and
// every one of its clicks is checked in the log too.
func BenchmarkVerifyWindow(b *testing.B) {
	e := newEnv(b)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	check := e.Answer("s1", "snapshot", id).Snapshot.Root.Find(func(n *target.Node) bool { return n.Role == "check box" && n.Name == "Check me" })
	if check == nil {
		b.Fatal("no Check me")
	}
	alpha := e.Answer("s1", "snapshot", id).Snapshot.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	if alpha == nil {
		b.Fatal("no Alpha")
	}
	from := log.Len()
	var on, off, idle []time.Duration
	for b.Loop() {
		t0 := time.Now()
		resp := e.Answer("s1", "click", id, alpha.Ref)
		idle = append(idle, time.Since(t0))
		if resp.Effect == nil || resp.Effect.Word != target.EffectNoVisibleChange {
			b.Fatalf("a watched click on Alpha saw %+v", resp.Effect)
		}
		t0 = time.Now()
		resp = e.Answer("s1", "click", id, check.Ref)
		on = append(on, time.Since(t0))
		if resp.Effect == nil || resp.Effect.Word != target.EffectConfirmed {
			b.Fatalf("a watched click on the check box saw %+v", resp.Effect)
		}
		t0 = time.Now()
		e.OK("s1", "click", id, check.Ref, "--no-verify")
		off = append(off, time.Since(t0))
	}
	b.StopTimer()
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
	defer cancel()
	n, a := 0, 0
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool {
		if ev.Type == "toggled" && ev.Widget == "check" {
			n++
		}
		if ev.Type == "click" && ev.Widget == "alpha" {
			a++
		}
		return n == 2*b.N && a == b.N
	}); err != nil {
		b.Fatalf("%d of %d toggles and %d of %d clicks on Alpha arrived: %v", n, 2*b.N, a, b.N, err)
	}
	b.ReportMetric(medianMS(idle), "idle-p50-ms")
	b.ReportMetric(medianMS(on), "verify-p50-ms")
	b.ReportMetric(medianMS(off), "no-verify-p50-ms")
	b.ReportMetric(medianMS(on)/medianMS(off), "p50-ratio")
}

func medianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m.Microseconds()) / 1000
}
