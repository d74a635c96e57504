package daemon

import (
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/target"
)

// TestEveryVerbThroughTheEnvelope walks every verb of the verb table
// through what the core reads of it before anything runs: a mode, a key
// and --for are each refused bad_request on exactly the verbs whose facts
// do not take them, and a window's verb given a tab's handle is refused
// wrong_kind. (The stages' reading of the table is walked in
// cmd/vibespace-daemon/stages; the command lines' in daemoncall.)
func TestEveryVerbThroughTheEnvelope(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	for _, f := range verb.All() {
		for _, c := range []struct {
			field string
			takes bool
			req   Request
			says  string
		}{
			{"mode", f.Mode, Request{}.With(args.Mode{Mode: "banana"}), "a mode is a window's"},
			{"secret", f.Secret, Request{Args: json.RawMessage(`{"secret":"s3cret"}`)}, "a key is key set's alone"},
			{"for", f.For, Request{For: "other"}, "--for is the operator's word"},
		} {
			req := c.req
			req.Verb, req.Session = f.Name, "s"
			r := td.call(t, req)
			refused := r.Code == target.CodeBadRequest && strings.Contains(r.Message, c.says)
			if refused == c.takes {
				t.Errorf("%s with a %s: %s %q, want it refused there: %v (the table says it takes one: %v)", f.Name, c.field, r.Code, r.Message, !c.takes, c.takes)
			}
			if strings.Contains(r.Message, "s3cret") {
				t.Errorf("%s echoed the key: %q", f.Name, r.Message)
			}
		}
		if f.Reach == verb.Handle {
			req := Request{Verb: f.Name, Session: "s", Target: "tab:1"}.With(
				taken(f.Name, map[string]any{"ref": "@e1", "text": "x", "chord": "a", "options": []string{"a"}, "what": "text", "mode": "auto", "reason": "x"}))
			if r := td.call(t, req); r.Code != target.CodeWrongKind {
				t.Errorf("%s on a tab's handle: %s %q, want wrong_kind", f.Name, r.Code, r.Message)
			}
		}
	}
}

// taken is of the arguments in all those verb takes (its type's fields).
func taken(verb string, all map[string]any) map[string]any {
	m := map[string]any{}
	for _, f := range args.Fields(verb) {
		if v, ok := all[f]; ok {
			m[f] = v
		}
	}
	return m
}
