package reach

import (
	"context"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// verbPath is a verb path that records what it was sent and answers
// answer.
type verbPath struct {
	sent   []wire.Request
	answer wire.Response
}

func (v *verbPath) Handle(_ context.Context, req wire.Request) wire.Response {
	v.sent = append(v.sent, req)
	return v.answer
}

func (v *verbPath) Browser() kind.Browser { return nil }

// TestRungFive: with no hand-off, rung 5 is the outcome handoff_next,
// naming every signal; with ByVerb, the hand-off verb is sent for the
// rung's target (a window's handle; a tab as the current tab's
// browser.handoff) with the signals as its reason, its answer is the
// ladder's (handed_off), and its refusal the ladder's refusal.
func TestRungFive(t *testing.T) {
	sig := []wire.ReachSignal{saw(Fetch, BotCheck, "x"), saw(Tree, BotCheck, "x")}
	climb := func(h HandOff, window, tab target.ID) (wire.Response, error) {
		l := &ladder{s: &Stage{cfg: Config{HandOff: h}}, c: &stage.Call{Req: wire.Request{Session: "s1"}}, url: "http://127.0.0.1:1/check",
			ans: &wire.ReachAnswer{Signals: sig}, window: window, tab: tab}
		return l.person(context.Background())
	}
	r, err := climb(nil, "", "tab:4")
	if err != nil || r.Reach.Rung != 5 || r.Reach.Outcome != OutcomeHandoffNext || !strings.HasPrefix(r.Did, "rung 5: hand-off to a person is next") ||
		!strings.Contains(r.Did, "hand tab:4 over (reason: reach http://127.0.0.1:1/check: bot_check, bot_check)") {
		t.Fatalf("no hand-off: %+v %v", r, err)
	}

	vp := &verbPath{answer: wire.Response{OK: true, Did: "came back through a person after 3s"}}
	b := &ByVerb{Verb: "handoff", host: vp}
	r, err = climb(b, "win:7", "tab:4")
	if err != nil || r.Reach.Outcome != OutcomeHandedOff || !strings.Contains(r.Did, "came back through a person") {
		t.Fatalf("a hand-off that came back: %+v %v", r, err)
	}
	if got := vp.sent[0]; got.Verb != "handoff" || got.Target != "win:7" || got.Session != "s1" ||
		string(got.Args) != `{"reason":"reach http://127.0.0.1:1/check: bot_check, bot_check"}` {
		t.Fatalf("the hand-off of a window was sent as %+v (args %s)", got, got.Args)
	}
	if _, err = climb(b, "", "tab:4"); err != nil {
		t.Fatal(err)
	}
	if got := vp.sent[1]; got.Verb != "browser.handoff" || got.Target != "" {
		t.Fatalf("the hand-off of a tab was sent as %+v", got)
	}

	vp.answer = wire.Response{Code: "handoff_declined", Message: "the person declined"}
	_, err = climb(b, "win:7", "")
	if r, ok := target.AsRefusal(err); !ok || r.Code != "handoff_declined" || r.Facts["signals"] != "bot_check, bot_check" {
		t.Fatalf("a declined hand-off: %v", err)
	}
}
