package budget

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// testEnv is a stage.Env on dir and clock (the daemon's default bound of
// no_progress); owed collects what the stage owes.
func testEnv(dir string, clock func() time.Time, owed *[]string) stage.Env {
	if clock == nil {
		clock = time.Now
	}
	return stage.Env{
		StateDir:        dir,
		Now:             clock,
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
		Owe:             func(n notice.Notice) { *owed = append(*owed, n.Text) },
		Wrote:           func(string, error) {},
		Persist:         func() {},
		Alive:           func(target.ID) bool { return true },
		NoProgressAfter: 3,
	}
}

func newGuard(t *testing.T, clock func() time.Time) *Guard {
	t.Helper()
	var owed []string
	s, err := New(testEnv(t.TempDir(), clock, &owed))
	if err != nil {
		t.Fatal(err)
	}
	g := s.(*Guard)
	g.Start(context.Background())
	return g
}

func facts(name string) verb.Facts {
	f, ok := verb.Of(name)
	if !ok {
		panic("verb table: no verb " + name)
	}
	return f
}

func refusal(err error) wire.Response {
	r, _ := target.AsRefusal(err)
	return wire.Response{Code: r.Code, Message: r.Message, Facts: r.Facts}
}

// ask runs req through the stage as the core runs a verb: admitted,
// answered (the budget verbs) or run (on tgt, when not nil), finished.
func ask(t *testing.T, g *Guard, req wire.Request, tgt stage.Target) wire.Response {
	t.Helper()
	ctx := context.Background()
	c := stagetest.Decoded(&stage.Call{Req: req, Facts: facts(req.Verb)})
	a := &stage.Answer{}
	defer func() { g.Finish(c, a) }()
	if a.Err = g.Admit(ctx, c); a.Err != nil {
		a.Resp = refusal(a.Err)
		return a.Resp
	}
	c.Target = tgt
	if _, a.Err = g.Enter(ctx, c); a.Err != nil {
		a.Resp = refusal(a.Err)
		return a.Resp
	}
	if slices.Contains(g.Verbs(), req.Verb) {
		a.Resp, a.Err = g.Answer(ctx, c)
	}
	if a.Err != nil {
		a.Resp = refusal(a.Err)
	} else {
		a.Resp.OK = true
	}
	return a.Resp
}

func wantCode(t *testing.T, resp wire.Response, code target.Code) {
	t.Helper()
	if resp.Code != code || resp.OK != (code == "") {
		t.Fatalf("answer %+v, want code %q", resp, code)
	}
}

// TestBudgetMinutes: a session's wall-clock budget, on the daemon's clock:
// acting verbs run until its minutes pass, then are refused budget_spent
// saying how to go on, while reading still runs; the operator's reset
// starts the clock over.
func TestBudgetMinutes(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	pass := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	g := newGuard(t, clock)
	win := stagetest.Of(target.WindowID(1))
	key := wire.Request{Verb: "key", Session: "a", Target: string(win.TargetID)}.With(args.Key{Chord: "a", NoVerify: true})

	if resp := ask(t, g, wire.Request{Verb: "budget", Session: "a"}.With(args.Budget{Minutes: 30}), nil); !strings.Contains(resp.Did, "30 of 30 minutes left") {
		t.Fatalf("budget --minutes 30: %+v", resp)
	}
	wantCode(t, ask(t, g, key, win), "")
	pass(29 * time.Minute)
	wantCode(t, ask(t, g, key, win), "")
	pass(time.Minute)
	resp := ask(t, g, key, win)
	wantCode(t, resp, target.CodeBudgetSpent)
	if !strings.Contains(resp.Message, "budget --reset") || !strings.Contains(resp.Message, "30 minutes") {
		t.Fatalf("budget_spent says: %s", resp.Message)
	}
	wantCode(t, ask(t, g, wire.Request{Verb: "snapshot", Session: "a", Target: string(win.TargetID)}, win), "")
	// The operator starts it over (--for).
	wantCode(t, ask(t, g, wire.Request{Verb: "budget", Session: "op", For: "a"}.With(args.Budget{Reset: true}), nil), "")
	wantCode(t, ask(t, g, key, win), "")
}

// TestAdmitStepReserves: two acting verbs of one session admitted at once
// with one step left: only one passes (the step is taken when admitted);
// a verb that then does not run gives its step back.
func TestAdmitStepReserves(t *testing.T) {
	ctx := context.Background()
	g := newGuard(t, nil)
	wantCode(t, ask(t, g, wire.Request{Verb: "budget", Session: "a"}.With(args.Budget{Steps: 1}), nil), "")
	c1 := stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key", Session: "a"}, Facts: facts("key")})
	c2 := stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key", Session: "a"}, Facts: facts("key")})
	if err := g.Admit(ctx, c1); err != nil {
		t.Fatalf("the first: %v", err)
	}
	if err := g.Admit(ctx, c2); target.CodeOf(err) != target.CodeBudgetSpent {
		t.Fatalf("the second, while the first runs: %v", err)
	}
	g.Finish(c1, &stage.Answer{Resp: wire.Response{Code: target.CodeWindowGone}}) // it did not run
	if err := g.Admit(ctx, c2); err != nil {
		t.Fatalf("after the first gave its step back: %v", err)
	}
	g.Finish(c2, &stage.Answer{Resp: wire.Response{OK: true}})
	if err := g.Admit(ctx, stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key", Session: "a"}, Facts: facts("key")})); target.CodeOf(err) != target.CodeBudgetSpent {
		t.Fatalf("after a step ran: %v", err)
	}
	if resp := ask(t, g, wire.Request{Verb: "budget", Session: "a"}, nil); !strings.Contains(resp.Did, "0 of 1 steps left") {
		t.Fatalf("budget: %q", resp.Did)
	}
}

// TestLoopPerTarget: the loop count is the session's on one target: a
// reading verb leaves it be, and so does an action on another target;
// another action on the target, or a change, starts it over.
func TestLoopPerTarget(t *testing.T) {
	ctx := context.Background()
	g := newGuard(t, nil)
	a, b := stagetest.Of(target.WindowID(1)), stagetest.Of(target.WindowID(2))
	click := func(e *stagetest.Target, at int) *stage.Call {
		return stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "click", Session: "s", Target: string(e.TargetID)}.With(args.Click{At: fmt.Sprintf("%d,%d", at, at)}), Facts: facts("click"), Target: e})
	}
	finish := func(c *stage.Call, resp wire.Response) { g.Finish(c, &stage.Answer{Resp: resp}) }
	none := wire.Response{OK: true, Effect: &target.Effect{Word: target.EffectNoVisibleChange}}
	for range 3 {
		if _, err := g.Enter(ctx, click(a, 1)); err != nil {
			t.Fatal(err)
		}
		finish(click(a, 1), none)
	}
	finish(stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "snapshot", Session: "s"}, Facts: facts("snapshot"), Target: a}), wire.Response{OK: true})
	finish(click(b, 1), wire.Response{OK: true, Effect: &target.Effect{Word: target.EffectConfirmed}})
	if _, err := g.Enter(ctx, click(a, 1)); target.CodeOf(err) != target.CodeNoProgress {
		t.Fatalf("after a snapshot and a click on another target: %v", err)
	}
	if _, err := g.Enter(ctx, click(b, 1)); err != nil {
		t.Fatalf("the same click on the other target: %v", err)
	}
	finish(click(a, 2), none) // another action on a
	if _, err := g.Enter(ctx, click(a, 1)); err != nil {
		t.Fatalf("after another action on the target: %v", err)
	}
}

// TestMissingBudgetsFailClosed: state.json said budgets.json was saved
// (Restore) and it is gone: the stage owes the loss, refuses acting verbs
// budget_unreadable, lists the fault, and writes budgets.json's record of
// the loss at once, so the next daemon fails closed too.
func TestMissingBudgetsFailClosed(t *testing.T) {
	dir := t.TempDir()
	var owed []string
	s, _ := New(testEnv(dir, nil, &owed))
	g := s.(*Guard)
	g.Restore(json.RawMessage(`{"saved":true}`))
	g.Start(context.Background())
	if len(owed) != 1 || !strings.Contains(owed[0], "budgets.json was missing") {
		t.Fatalf("owed: %q", owed)
	}
	if err := g.Admit(context.Background(), stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key", Session: "a"}, Facts: facts("key")})); target.CodeOf(err) != target.CodeBudgetUnreadable {
		t.Fatalf("an acting verb: %v", err)
	}
	if f := g.Faults(); len(f) != 1 || !strings.Contains(f[0], string(target.CodeBudgetUnreadable)) {
		t.Fatalf("faults: %q", f)
	}
	if string(g.Keep()) != `{"saved":true}` {
		t.Fatalf("kept: %s", g.Keep())
	}

	owed = nil
	s, _ = New(testEnv(dir, nil, &owed))
	again := s.(*Guard)
	again.Restore(g.Keep())
	again.Start(context.Background())
	if err := again.Admit(context.Background(), stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key", Session: "a"}, Facts: facts("key")})); target.CodeOf(err) != target.CodeBudgetUnreadable {
		t.Fatalf("after a restart: %v", err)
	}
	wantCode(t, ask(t, again, wire.Request{Verb: "budget", Session: "op", For: "a"}.With(args.Budget{Steps: 10}), nil), "")
	if err := again.Admit(context.Background(), stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "key", Session: "a"}, Facts: facts("key")})); err != nil {
		t.Fatalf("once its operator set it again: %v", err)
	}
}

// TestLoopCountsUnchangedState: a repeat that saw no visible change counts
// towards no_progress only while the target is as the last repeat left it
// (the verifier's digests: Before of this one, After of the last): a
// target whose state changed in between (a late effect, another hand)
// starts the count over, so repeated input that lands is never refused.
func TestLoopCountsUnchangedState(t *testing.T) {
	ctx := context.Background()
	g := newGuard(t, nil)
	a := stagetest.Of(target.WindowID(1))
	none := wire.Response{OK: true, Effect: &target.Effect{Word: target.EffectNoVisibleChange}}
	press := func(before, after string) error {
		c := stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "click", Session: "s", Target: "win:1"}.With(args.Click{Ref: "@e5"}), Facts: facts("click"), Target: a})
		if _, err := g.Enter(ctx, c); err != nil {
			return err
		}
		c.Before, c.After = before, after
		g.Finish(c, &stage.Answer{Resp: none})
		return nil
	}
	// Each press finds the target otherwise than the last left it: never
	// refused, however many.
	for i := range 6 {
		if err := press(fmt.Sprint("s", i), fmt.Sprint("s", i)); err != nil {
			t.Fatalf("press %d on a target that changed between presses: %v", i+1, err)
		}
	}
	// Three in a row on a target that stays as it is: the fourth is
	// refused.
	for i := range 3 {
		if err := press("same", "same"); err != nil {
			t.Fatalf("press %d: %v", i+1, err)
		}
	}
	if err := press("same", "same"); target.CodeOf(err) != target.CodeNoProgress {
		t.Fatalf("the fourth press on an unchanged target: %v, want no_progress", err)
	}
}
