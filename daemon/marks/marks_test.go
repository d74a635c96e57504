package marks_test

import (
	"encoding/json"
	"errors"
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/marks"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// screen is a target whose box is at (100,50) on its screen and whose
// ref e1 is at (110,70).
func screen(id target.ID) *stagetest.Target {
	return &stagetest.Target{TargetID: id, Win: target.Rect{X: 100, Y: 50, W: 400, H: 300},
		Nodes: map[string]target.Rect{"e1": {X: 110, Y: 70, W: 20, H: 10}}}
}

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func book(t *testing.T, alive func(target.ID) bool) *marks.Book {
	t.Helper()
	s, err := marks.New(stage.Env{Now: func() time.Time { return now }, Alive: alive})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*marks.Book)
}

func call(t *testing.T, req wire.Request, tg stage.Target) *stage.Call {
	t.Helper()
	f, ok := verb.Of(req.Verb)
	if !ok {
		t.Fatalf("no verb %s", req.Verb)
	}
	return stagetest.Decoded(&stage.Call{Req: req, Facts: f, Target: tg})
}

func ok() *stage.Answer { return &stage.Answer{Resp: wire.Response{OK: true}} }

func TestMarks(t *testing.T) {
	b := book(t, func(target.ID) bool { return true })
	win, tab := screen("win:1"), screen("tab:1")

	// click --at: the point as given.
	b.Finish(call(t, wire.Request{Verb: "click", Session: "s"}.With(args.Click{At: "5,6"}), win), ok())
	m := b.Mark("win:1")
	if m == nil || m.Verb != "click" || m.Session != "s" || m.Point == nil || *m.Point != (wire.Point{X: 5, Y: 6}) || m.Box != nil || !m.At.Equal(now) || m.Seq != 1 {
		t.Fatalf("click --at: %+v", m)
	}

	// type @e1 with text: the node's box in the target's own pixels and
	// its centre; no text anywhere in the mark.
	b.Finish(call(t, wire.Request{Verb: "browser.type", Session: "s"}.With(args.Type{Ref: "e1", Text: "hunter2"}), tab), ok())
	m = b.Mark("tab:1")
	if m == nil || m.Ref != "e1" || m.Box == nil || *m.Box != (target.Rect{X: 10, Y: 20, W: 20, H: 10}) || *m.Point != (wire.Point{X: 20, Y: 25}) || m.Seq != 2 {
		t.Fatalf("type @e1: %+v", m)
	}
	if j, _ := json.Marshal(m); strings.Contains(string(j), "hunter2") {
		t.Fatalf("the mark carries the typed text: %s", j)
	}

	// scroll with no point: the centre of the target.
	b.Finish(call(t, wire.Request{Verb: "scroll", Session: "s"}.With(args.Scroll{Direction: "down"}), win), ok())
	if m = b.Mark("win:1"); m.Verb != "scroll" || m.Point == nil || *m.Point != (wire.Point{X: 200, Y: 150}) || m.Seq != 3 {
		t.Fatalf("scroll: %+v", m)
	}

	// No mark: a verb that does not mark, one refused, one on no target.
	b.Finish(call(t, wire.Request{Verb: "snapshot", Session: "s"}, win), ok())
	b.Finish(call(t, wire.Request{Verb: "click", Session: "s"}.With(args.Click{Ref: "e1"}), win), &stage.Answer{Err: errors.New("refused")})
	b.Finish(call(t, wire.Request{Verb: "click", Session: "s"}.With(args.Click{Ref: "e1"}), nil), ok())
	if m = b.Mark("win:1"); m.Verb != "scroll" || m.Seq != 3 {
		t.Fatalf("a verb that left no mark changed it: %+v", m)
	}

	// Mark answers a copy.
	m.Point.X = 999
	if b.Mark("win:1").Point.X != 200 {
		t.Fatal("Mark answered the book's own point")
	}
	if b.Mark("win:2") != nil {
		t.Fatal("a target never marked has a mark")
	}
}

func TestMarksOfGoneTargetsAreForgotten(t *testing.T) {
	gone := map[target.ID]bool{}
	b := book(t, func(id target.ID) bool { return !gone[id] })
	b.Finish(call(t, wire.Request{Verb: "click", Session: "s"}.With(args.Click{Ref: "e1"}), screen("win:1")), ok())
	gone["win:1"] = true
	b.Finish(call(t, wire.Request{Verb: "click", Session: "s"}.With(args.Click{Ref: "e1"}), screen("win:2")), ok())
	if b.Mark("win:1") != nil || b.Mark("win:2") == nil {
		t.Fatalf("win:1 %+v, win:2 %+v", b.Mark("win:1"), b.Mark("win:2"))
	}
}
