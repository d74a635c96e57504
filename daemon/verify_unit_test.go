package daemon

import (
	"github.com/vibespace/vibespace/daemon/stage"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestAdmitStepReserves: two acting verbs of one session admitted at once
// with one step left: only one passes (the step is taken when admitted);
// a verb that then does not run gives its step back.
func TestAdmitStepReserves(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	wantCode(t, td.call(t, Request{Verb: "budget", Session: "a", Steps: 1}), "")
	c1 := &call{Call: stage.Call{Req: Request{Verb: "key", Session: "a"}, Facts: facts("key")}}
	c2 := &call{Call: stage.Call{Req: Request{Verb: "key", Session: "a"}, Facts: facts("key")}}
	if err := td.admitStep(c1); err != nil {
		t.Fatalf("the first: %v", err)
	}
	if err := td.admitStep(c2); target.CodeOf(err) != target.CodeBudgetSpent {
		t.Fatalf("the second, while the first runs: %v", err)
	}
	td.stepped(c1, Response{Code: target.CodeWindowGone}) // it did not run
	if err := td.admitStep(c2); err != nil {
		t.Fatalf("after the first gave its step back: %v", err)
	}
	td.stepped(c2, Response{OK: true})
	if err := td.admitStep(&call{Call: stage.Call{Req: Request{Verb: "key", Session: "a"}, Facts: facts("key")}}); target.CodeOf(err) != target.CodeBudgetSpent {
		t.Fatalf("after a step ran: %v", err)
	}
	if resp := td.call(t, Request{Verb: "budget", Session: "a"}); !strings.Contains(resp.Did, "0 of 1 steps left") {
		t.Fatalf("budget: %q", resp.Did)
	}
}

// TestLoopPerTarget: the loop count is the session's on one target: a
// reading verb leaves it be, and so does an action on another target;
// another action on the target, or a change, starts it over.
func TestLoopPerTarget(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	a, b := td.entryOf(td.open(t, "s")), td.entryOf(td.open(t, "s"))
	click := func(e *entry, at int) *call {
		return &call{Call: stage.Call{Req: Request{Verb: "click", Session: "s", Target: string(e.id), At: &Point{X: at, Y: at}}, Facts: facts("click")}, e: e}
	}
	none := Response{OK: true, Effect: &target.Effect{Word: target.EffectNoVisibleChange}}
	for range 3 {
		if err := td.admitLoop(click(a, 1)); err != nil {
			t.Fatal(err)
		}
		td.stepped(click(a, 1), none)
	}
	td.stepped(&call{Call: stage.Call{Req: Request{Verb: "snapshot", Session: "s"}, Facts: facts("snapshot")}, e: a}, Response{OK: true})
	td.stepped(click(b, 1), Response{OK: true, Effect: &target.Effect{Word: target.EffectConfirmed}})
	if err := td.admitLoop(click(a, 1)); target.CodeOf(err) != target.CodeNoProgress {
		t.Fatalf("after a snapshot and a click on another target: %v", err)
	}
	if err := td.admitLoop(click(b, 1)); err != nil {
		t.Fatalf("the same click on the other target: %v", err)
	}
	td.stepped(click(a, 2), none) // another action on a
	if err := td.admitLoop(click(a, 1)); err != nil {
		t.Fatalf("after another action on the target: %v", err)
	}
}

// TestLookBeforeHoldsNoSlot: the look before a key acts (which may take
// up to VerifyWait) holds neither its display's injection slot nor its
// stacking slot, so other windows of the display are not kept waiting.
func TestLookBeforeHoldsNoSlot(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	e := td.entryOf(td.open(t, "s"))
	var mu sync.Mutex
	held := 0
	b.Display().OnInfo(func() {
		select {
		case e.disp.inject <- struct{}{}:
			<-e.disp.inject
		default:
			mu.Lock()
			held++
			mu.Unlock()
		}
		select {
		case e.disp.stack <- struct{}{}:
			<-e.disp.stack
		default:
			mu.Lock()
			held++
			mu.Unlock()
		}
	})
	wantCode(t, td.call(t, Request{Verb: "key", Session: "s", Target: string(e.id), Chord: "a"}), "")
	b.Display().OnInfo(nil)
	mu.Lock()
	defer mu.Unlock()
	if held != 0 {
		t.Fatalf("a slot was held %d times while the target was read", held)
	}
}
