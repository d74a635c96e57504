package verbaudit_test

import (
	"github.com/vibespace/vibespace/daemon/args"
	"testing"

	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/verbaudit"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// rows makes the stage with an audit log that keeps what it is given.
func rows(t *testing.T) (stage.Finisher, *[]lease.Entry) {
	t.Helper()
	var got []lease.Entry
	s, err := verbaudit.New(stage.Env{Record: func(e lease.Entry) { got = append(got, e) }})
	if err != nil {
		t.Fatal(err)
	}
	return s.(stage.Finisher), &got
}

func call(t *testing.T, req wire.Request, tg stage.Target) *stage.Call {
	t.Helper()
	f, ok := verb.Of(req.Verb)
	if !ok {
		t.Fatalf("no verb %s", req.Verb)
	}
	return stagetest.Decoded(&stage.Call{Req: req, Facts: f, Target: tg})
}

func TestRows(t *testing.T) {
	s, got := rows(t)

	// A verb that ran on a window of the user's desktop: its road, its
	// target, desktop as its answer names it.
	c := call(t, wire.Request{Verb: "click", Session: "s", Target: "win:1"}.With(args.Click{Ref: "e1"}), stagetest.Of("win:1"))
	c.Road = target.Road("tree")
	s.Finish(c, &stage.Answer{Resp: wire.Response{OK: true, Target: &wire.TargetInfo{ID: "win:1", Desktop: true}}})

	// A refusal before it reached anything: the target the request named,
	// its code; no desktop without a target reached.
	c = call(t, wire.Request{Verb: "type", Session: "s", Target: "win:7"}.With(args.Type{Text: "secret"}), nil)
	refusal := target.Refuse(target.CodeTimeout, "busy")
	s.Finish(c, &stage.Answer{Resp: wire.Response{Code: target.CodeTimeout, Target: &wire.TargetInfo{ID: "win:7", Desktop: true}}, Err: refusal})

	// The operator's words: what the verb added, and the other session
	// --for named (none when it names the asker's own).
	c = call(t, wire.Request{Verb: "takeover", Session: "op", For: "agent"}, stagetest.Of("tab:3"))
	c.Fact = lease.Entry{User: "ann", Force: true, Replaced: "bob", With: "carl", Mode: target.Mode("pixels"), Setting: "on"}
	s.Finish(c, &stage.Answer{Resp: wire.Response{OK: true}})
	s.Finish(call(t, wire.Request{Verb: "browser.use", Session: "s", For: "s"}, nil), &stage.Answer{Resp: wire.Response{OK: true}})

	want := []lease.Entry{
		{Session: "s", Verb: "click", By: "tree", OK: true, Target: "win:1", Desktop: true},
		{Session: "s", Verb: "type", OK: false, Code: target.CodeTimeout, Target: "win:7"},
		{Session: "op", For: "agent", Verb: "takeover", OK: true, Target: "tab:3", User: "ann", Force: true, Replaced: "bob", With: "carl", Mode: "pixels", Setting: "on"},
		{Session: "s", Verb: "browser.use", OK: true},
	}
	if len(*got) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(*got), len(want), *got)
	}
	for i := range want {
		if (*got)[i] != want[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, (*got)[i], want[i])
		}
	}
}
