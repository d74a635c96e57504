package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/vibespace/vibespace/daemon/stage"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestDigestIsKeyed: the digest of what a watch saw is no plain hash of
// the node's text: every 4-digit PIN digested without the daemon's key
// (as anyone reading a trace could) misses it, while a change of the text
// of the same length, or of a range control's value, still shows.
func TestDigestIsKeyed(t *testing.T) {
	obs := func(text string, v float64) observation {
		return observation{node: &target.Node{Role: "password text", Name: "PIN", Text: text, TextLen: len(text),
			Value: &target.Value{Current: v, Max: 10}}}
	}
	got := obs("4711", 1).digest()
	for pin := range 10000 {
		p := fmt.Sprintf("%04d", pin)
		for _, line := range []string{
			fmt.Sprintf("node %v %d %s %s\n", []string(nil), 4, p, "PIN"),
			fmt.Sprintf("node %q %d %q %q\n", []string(nil), 4, p, "PIN"),
		} {
			for _, tail := range []string{"gone \ninfo  \ncontent \n", "value 1 0 10\ngone \ninfo \"\" \"\"\ncontent \n"} {
				h := sha256.Sum256([]byte(line + tail))
				if s := hex.EncodeToString(h[:]); strings.HasPrefix(s, got) || strings.HasPrefix(got, s[:12]) {
					t.Fatalf("the digest %s is the unkeyed hash of PIN %s", got, p)
				}
			}
		}
	}
	if got == obs("4712", 1).digest() {
		t.Error("a text changed at the same length reads as the same digest")
	}
	if got == obs("4711", 2).digest() {
		t.Error("a value that moved reads as the same digest")
	}
	if got != obs("4711", 1).digest() {
		t.Error("one observation digests two ways")
	}
}

// TestNodeChangesValue: a range control whose value moved (a slider, a
// spin button) is a change of the node, said by its values.
func TestNodeChangesValue(t *testing.T) {
	a := &target.Node{Role: "slider", Name: "Volume", Value: &target.Value{Current: 3, Max: 10}}
	b := &target.Node{Role: "slider", Name: "Volume", Value: &target.Value{Current: 5, Max: 10}}
	if got := nodeChanges(a, b, true); !slices.Equal(got, []string{"value: 3 → 5"}) {
		t.Fatalf("slider 3 → 5: %q", got)
	}
	if got := nodeChanges(a, a, true); len(got) != 0 {
		t.Fatalf("an unmoved slider changed: %q", got)
	}
}

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
