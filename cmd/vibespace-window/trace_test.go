package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestTraceOfAWindowSession drives the GTK fixture (snapshot, click, type
// a canary) and reads the session's trace back: the steps in order, each
// with its verb, target, ref, road and duration, the snapshot's digest,
// the type's length and never its text (nowhere under the state
// directory); another session is refused the window's trace without the
// operator's --for, and reads it with it.
func TestTraceOfAWindowSession(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	alpha, name := node(t, snap, "push button", "Alpha"), node(t, snap, "text", "Name")
	from := log.Len()
	e.OK("s1", "click", id, alpha.Ref)
	wait(t, log, from, "the click on Alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	const canary = "CANARY-b71d-typed"
	from = log.Len()
	e.OK("s1", "type", id, name.Ref, canary)
	wait(t, log, from, "the canary in the entry", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Text == canary })
	e.Refused("bad_ref", "s1", "click", id, "@e9999")

	resp := e.Answer("s1", "trace")
	if !resp.OK {
		t.Fatalf("trace: %+v", resp)
	}
	var verbs []string
	for _, s := range resp.Trace {
		verbs = append(verbs, s.Verb)
		if s.Target != target.ID(id) || s.Session != "s1" || s.Time.IsZero() {
			t.Errorf("a step without its target, session or time: %+v", s)
		}
	}
	if got := strings.Join(verbs, " "); got != "open snapshot click type click" {
		t.Fatalf("the steps: %q\n%+v", got, resp.Trace)
	}
	sn, click, typ, bad := resp.Trace[1], resp.Trace[2], resp.Trace[3], resp.Trace[4]
	if sn.By != target.RoadTree || sn.After == "" {
		t.Errorf("snapshot step: %+v", sn)
	}
	if click.Ref != alpha.Ref || click.By != target.RoadTree || !click.OK || click.MS <= 0 {
		t.Errorf("click step: %+v", click)
	}
	if typ.Ref != name.Ref || typ.Chars != len(canary) || typ.By == "" || !typ.OK {
		t.Errorf("type step: %+v", typ)
	}
	if bad.OK || bad.Code != target.CodeBadRef {
		t.Errorf("the refused click: %+v", bad)
	}
	// The text answer: one line a step, in the same order.
	out := e.OK("s1", "trace", "--last", "3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "3 of 5 step(s) kept of session s1") ||
		!strings.Contains(lines[1], " click "+id+" "+alpha.Ref) || !strings.Contains(lines[1], "by:tree → ") ||
		!strings.Contains(lines[2], " type "+id+" "+name.Ref) || !strings.Contains(lines[2], "(17 chars)") ||
		!strings.Contains(lines[3], "→ refused bad_ref") {
		t.Errorf("trace --last 3:\n%s", out)
	}
	if one := e.Answer("s1", "trace", "--target", id, "--last", "1"); len(one.Trace) != 1 || one.Trace[0].Code != target.CodeBadRef {
		t.Errorf("trace --target --last 1: %+v", one.Trace)
	}

	// Another session: refused without the operator's --for.
	e.Refused("not_exposed", "s2", "trace", "--target", id)
	if own := e.Answer("s2", "trace"); !own.OK || len(own.Trace) != 0 {
		t.Errorf("s2's own trace: %+v", own)
	}
	op := e.Answer("s2", "trace", "--for", "s1", "--target", id)
	if !op.OK || len(op.Trace) != 5 {
		t.Errorf("trace --for s1: %+v", op)
	}
	raw, _ := json.Marshal(op)
	if strings.Contains(string(raw), canary) {
		t.Error("the trace's answer holds the text typed")
	}
	e.HomeHoldsNot(canary)
}
