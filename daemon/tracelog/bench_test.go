package tracelog

import (
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// BenchmarkAppend is what tracing costs every verb: one step appended to
// its session's file (a compaction every Steps steps included).
func BenchmarkAppend(b *testing.B) {
	s, err := Open(b.TempDir(), Limits{Steps: 500, Retention: time.Hour}, nil)
	if err != nil {
		b.Fatal(err)
	}
	st := wire.TraceStep{Session: "bench", Target: "win:1", Verb: "click", Ref: "@e9", Role: "check box", Name: "Dark mode",
		By: target.RoadTree, OK: true, Effect: target.EffectConfirmed, MS: 42, Before: "0123456789abcdef", After: "fedcba9876543210"}
	b.ReportAllocs()
	for b.Loop() {
		st.Time = time.Now()
		if err := s.Append(st); err != nil {
			b.Fatal(err)
		}
	}
}
