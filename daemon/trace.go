package daemon

// The trace is a registered stage (package daemon/trace; the steps are
// kept by daemon/tracelog): the core keeps only its configured bounds'
// defaults and what the live view reads through it (LiveHands.Trace).

import (
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Defaults of the trace's bounds (Config.TraceSteps, TraceRetention,
// TracePictureMax).
const (
	DefaultTraceSteps      = 500
	DefaultTraceRetention  = 7 * 24 * time.Hour
	DefaultTracePictureMax = 4 << 20
)

// TraceStep is one step of a trace (wire.TraceStep).
type TraceStep = wire.TraceStep

// traceReader is a registered stage that keeps the trace: it answers a
// target's recent steps, of every session, pictures left out.
type traceReader interface {
	Steps(id target.ID, n int) []TraceStep
}

// Trace answers the last n steps on id, of every session, for the live
// view's panel beside its pane (nil when no stage keeps a trace). Pictures
// are not shown there.
func (h LiveHands) Trace(id target.ID, n int) []TraceStep {
	for _, s := range h.d.stages.Stages() {
		if r, ok := s.(traceReader); ok {
			return r.Steps(id, n)
		}
	}
	return nil
}
