package yourdesktop

import (
	"testing"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// TestInjects: the verbs that may send injected input to the person's
// desktop are those the verb table decides as keys, a scroll, a point or
// typing — read from the table, as the list of names it replaced said.
func TestInjects(t *testing.T) {
	for _, c := range []struct {
		req  wire.Request
		want bool
	}{
		{wire.Request{Verb: "key"}.With(args.Key{Chord: "a"}), true},
		{wire.Request{Verb: "scroll"}, true},
		{wire.Request{Verb: "scroll"}.With(args.Scroll{At: "1,2"}), true},
		{wire.Request{Verb: "click"}.With(args.Click{At: "1,2"}), true},
		{wire.Request{Verb: "click"}.With(args.Click{Ref: "@e1"}), false},
		{wire.Request{Verb: "type"}.With(args.Type{Text: "x"}), true},
		{wire.Request{Verb: "type"}.With(args.Type{Ref: "@e1", Text: "x"}), true},
		{wire.Request{Verb: "select"}.With(args.Select{Ref: "@e1"}), false},
		{wire.Request{Verb: "snapshot"}, false},
		{wire.Request{Verb: "screenshot"}, false},
		{wire.Request{Verb: "find"}, false},
		{wire.Request{Verb: "get"}.With(args.GetNode{Ref: "@e1"}), false},
		{wire.Request{Verb: "close"}, false},
		{wire.Request{Verb: "mode"}, false},
	} {
		if got := injects(called(c.req)); got != c.want {
			t.Errorf("%s (args %s): injects %v, want %v", c.req.Verb, c.req.Args, got, c.want)
		}
	}
}
