package stages

import (
	"github.com/vibespace/vibespace/daemon/args"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/inflight"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// picture is a real PNG (1×1), what a target's screenshot answers.
var picture = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// markReader and stepReader are what the live view reads of the marks
// and the trace stages.
type (
	markReader interface {
		Mark(target.ID) *wire.AgentMark
	}
	stepReader interface {
		Steps(target.ID, int) []wire.TraceStep
	}
)

// TestEveryVerbThroughEveryStage walks every verb of the verb table
// through every registered stage, as the daemon runs them (admit, enter,
// finish), and checks that each stage did what the verb's facts say — and
// nothing the facts do not say: a verb that acts takes a step of the
// session's budget, one that may leave its effect unknown is recorded in
// flight while it runs, one that marks leaves the agent's mark, every one
// on a target is a step of the trace unless untraced (with a picture after
// an acting one that types no text, pictures on), and every one writes
// one audit row.
func TestEveryVerbThroughEveryStage(t *testing.T) {
	for _, f := range verb.All() {
		t.Run(f.Name, func(t *testing.T) {
			dir := t.TempDir()
			var rows []lease.Entry
			env := stage.Env{
				StateDir: dir, Now: time.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Owe: func(notice.Notice) {}, Wrote: func(string, error) {}, Record: func(e lease.Entry) { rows = append(rows, e) },
				Persist: func() {}, Alive: func(target.ID) bool { return true },
				NoProgressAfter: 3, TracePictureMax: 1 << 20, TraceSteps: 100,
				Sees: func(string, target.ID) (bool, bool) { return true, true },
			}
			ch, err := stage.Make(All(), env)
			if err != nil {
				t.Fatal(err)
			}
			ch.Restore(nil)
			ch.Start(t.Context())
			answer := func(v string, req wire.Request) {
				t.Helper()
				req.Verb, req.Session = v, "s"
				a := ch.Answerer(v)
				if a == nil {
					t.Fatalf("no stage answers %s", v)
				}
				if _, err := a.Answer(t.Context(), stagetest.Decoded(&stage.Call{Req: req})); err != nil {
					t.Fatalf("%s: %v", v, err)
				}
			}
			answer("budget", wire.Request{}.With(args.Budget{Steps: 1}))
			answer("trace", wire.Request{}.With(args.Trace{Action: "pictures-on"}))

			id := target.ID("win:1")
			if f.Browser() {
				id = "tab:1"
			}
			tg := &stagetest.Target{TargetID: id, Win: target.Rect{W: 200, H: 100}, PNG: picture,
				Nodes: map[string]target.Rect{"@e1": {X: 10, Y: 10, W: 20, H: 10}}}
			c := stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: f.Name, Session: "s", Target: string(id)}.With(refAndText(f.Name)),
				Facts: f, Started: time.Now(), Target: tg})
			if err := ch.Admit(t.Context(), c); err != nil {
				t.Fatalf("admit: %v", err)
			}
			leave, err := ch.Enter(t.Context(), c)
			if err != nil {
				t.Fatalf("enter: %v", err)
			}
			flying, _ := os.ReadDir(filepath.Join(dir, inflight.Dir))
			if got := len(flying) == 1; got != f.Cut() {
				t.Errorf("recorded in flight while it ran: %v, want %v (the table: acts %v, unsure %v)", got, f.Cut(), f.Acts, f.Unsure)
			}
			ch.Finish(c, &stage.Answer{Resp: wire.Response{OK: true}})
			leave()
			if flying, _ = os.ReadDir(filepath.Join(dir, inflight.Dir)); len(flying) != 0 {
				t.Errorf("%d records in flight left once it answered", len(flying))
			}

			// The budget: one step was allowed; an acting verb took it.
			next := stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: "click", Session: "s"}, Facts: mustOf(t, "click")})
			spent := target.CodeOf(ch.Admit(t.Context(), next)) == target.CodeBudgetSpent
			if spent != f.Acts {
				t.Errorf("the session's one step was taken: %v, want %v (acts)", spent, f.Acts)
			}

			var marked *wire.AgentMark
			var steps []wire.TraceStep
			for _, s := range ch.Stages() {
				if m, ok := s.(markReader); ok {
					marked = m.Mark(id)
				}
				if r, ok := s.(stepReader); ok {
					steps = r.Steps(id, 10)
				}
			}
			if (marked != nil) != f.Marks {
				t.Errorf("the agent's mark: %+v, want one: %v (marks)", marked, f.Marks)
			}
			if (len(steps) == 1) != !f.Untraced || len(steps) > 1 {
				t.Errorf("trace steps: %d, want one unless untraced (%v)", len(steps), f.Untraced)
			}
			if want := f.Acts && !f.Types && !f.Untraced; (tg.Shots == 1) != want {
				t.Errorf("pictures taken after it: %d, want one: %v (acts %v, types %v)", tg.Shots, want, f.Acts, f.Types)
			}
			if len(rows) != 1 || rows[0].Verb != f.Name || rows[0].Target != id || !rows[0].OK {
				t.Errorf("audit rows %+v, want one of %s on %s", rows, f.Name, id)
			}
		})
	}
}

func mustOf(t *testing.T, name string) verb.Facts {
	t.Helper()
	f, ok := verb.Of(name)
	if !ok {
		t.Fatalf("no verb %s", name)
	}
	return f
}

// refAndText are the arguments of verb that name node @e1 and carry the
// text "secret words", as far as the verb takes them.
func refAndText(verb string) map[string]string {
	m := map[string]string{}
	for _, f := range args.Fields(verb) {
		switch f {
		case "ref":
			m["ref"] = "@e1"
		case "text":
			m["text"] = "secret words"
		}
	}
	return m
}
