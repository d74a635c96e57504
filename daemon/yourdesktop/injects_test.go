package yourdesktop

import (
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
)

// TestInjects: the verbs that may send injected input to the person's
// desktop are those the verb table decides as keys, a scroll, a point or
// typing — read from the table, as the list of names it replaced said.
func TestInjects(t *testing.T) {
	at := &wire.Point{X: 1, Y: 2}
	for _, c := range []struct {
		req  wire.Request
		want bool
	}{
		{wire.Request{Verb: "key", Chord: "a"}, true},
		{wire.Request{Verb: "scroll"}, true},
		{wire.Request{Verb: "scroll", At: at}, true},
		{wire.Request{Verb: "click", At: at}, true},
		{wire.Request{Verb: "click", Ref: "@e1"}, false},
		{wire.Request{Verb: "type", Text: "x"}, true},
		{wire.Request{Verb: "type", Ref: "@e1", Text: "x"}, true},
		{wire.Request{Verb: "select", Ref: "@e1"}, false},
		{wire.Request{Verb: "snapshot"}, false},
		{wire.Request{Verb: "screenshot"}, false},
		{wire.Request{Verb: "find"}, false},
		{wire.Request{Verb: "get", Ref: "@e1"}, false},
		{wire.Request{Verb: "close"}, false},
		{wire.Request{Verb: "mode"}, false},
	} {
		if got := injects(c.req); got != c.want {
			t.Errorf("%s (ref %q, at %v): injects %v, want %v", c.req.Verb, c.req.Ref, c.req.At, got, c.want)
		}
	}
}
