package daemon

import (
	"github.com/vibespace/vibespace/daemon/browsing"
	"github.com/vibespace/vibespace/daemon/inflight"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/tabs"
	"github.com/vibespace/vibespace/daemon/trace"
	"github.com/vibespace/vibespace/daemon/tracelog"
)

// The registered stages (cmd/vibespace-daemon/stages) as the core's tests
// reach them: their files, their words, and the trace stage itself.
const (
	flightDir       = inflight.Dir
	tracePicturesOn = trace.PicturesOn
)

// The browser's stages are what the core asks of them (Browsing, Tabs),
// and the hands the core lends them (stage.Env.Hands) are what each
// declares it needs (its Host): checked as the program is built here, as
// the core names neither stage outside its tests.
var (
	_ Browsing      = (*browsing.Stage)(nil)
	_ Tabs          = (*tabs.Stage)(nil)
	_ browsing.Host = browserHands{}
	_ tabs.Host     = browserHands{}
)

// flight is the record of a verb in flight, as an earlier daemon writes it.
type flight = inflight.Flight

// traceStage is td's trace stage.
func (td *testDaemon) traceStage() *trace.Stage {
	for _, s := range td.stages.Stages() {
		if tr, ok := s.(*trace.Stage); ok {
			return tr
		}
	}
	panic("no trace stage registered")
}

// traces answers td's trace store.
func (td *testDaemon) traces() (*tracelog.Store, error) { return td.traceStage().Store() }

// trace finishes c (its entry c.e, answered resp or refused err) as the
// trace stage does every verb: its step.
func (td *testDaemon) trace(c *call, resp Response, err error) {
	c.reached(td.Daemon)
	td.traceStage().Finish(&c.Call, &stage.Answer{Resp: resp, Err: err})
}
