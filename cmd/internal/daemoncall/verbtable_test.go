package daemoncall

import (
	"github.com/vibespace/vibespace/daemon/args"
	"testing"

	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
)

// TestEveryVerbOutcome walks every verb of the verb table through what the
// command lines read of it: a call the daemon never answered is
// outcome_unknown for every verb that does not only read (Acts), and
// daemon_gone for one that does; a tab list and a plain trace read.
func TestEveryVerbOutcome(t *testing.T) {
	for _, f := range verb.All() {
		req := wire.Request{Verb: f.Name}
		want := !f.Reads
		switch f.Name {
		case "browser.tab", "trace", "browser.trace":
			want = false // listing tabs, reading a trace: their actions (new, close, --pictures) act
		}
		if got := Acts(req); got != want {
			t.Errorf("%s: Acts %v, want %v (reads %v)", f.Name, got, want, f.Reads)
		}
	}
	if !Acts(wire.Request{Verb: "browser.tab"}.With(args.Tab{Action: "new"})) || !Acts(wire.Request{Verb: "trace"}.With(args.Trace{Action: "pictures-on"})) {
		t.Error("a new tab, or pictures turned on, reads as a verb that only reads")
	}
}
