// Package batch is the batch verbs (batch, browser.batch), a registered
// stage (cmd/vibespace-daemon/stages): several steps in one call, each a
// verb as its command line names it (click @e3, fill @e5 "x", key Return),
// run in order on the session's targets through the verb path itself —
// the core's Handle, lent as the stage's hands (Host) — so each step is
// admitted, leased, budgeted, watched for its effect, audited and traced
// exactly as if it had been sent alone; the trace keeps every step under
// the batch's id (stage.Call.Batch, set here as each step is admitted).
//
// A batch stops at the first step refused (the batch is refused with that
// step's code) or at a step whose expectation did not hold (expect_unmet):
// changed (its effect was confirmed or changed_elsewhere), text:<words>
// (a snapshot of the step's target holds them, any case: a read traced
// as a step of the batch too), window[:<title>] (a target the session did not have before
// the step is listed after it, or the step's effect saw a new window).
// Its answer says each step's short effect, and where and why it stopped.
//
// A batch has the time of one verb (the daemon's verb timeout) for all its
// steps: a step cut by it is refused timeout and the batch stops there.
//
// The package never imports the core (layout_test.go).
package batch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "batch"

// Host is what the stage needs of the core: the verb path, answering one
// request as if a client had sent it.
type Host interface {
	Handle(ctx context.Context, req wire.Request) wire.Response
}

// Stage answers the batch verbs.
type Stage struct {
	host Host // nil: none lent (a batch is then refused internal)
}

// New makes the stage; env.Hands must be a Host.
func New(env stage.Env) (stage.Stage, error) {
	h, _ := env.Hands.(Host)
	return &Stage{host: h}, nil
}

func (s *Stage) Name() string { return Name }

// Verbs are the batch verbs, one per command line.
func (s *Stage) Verbs() []string { return []string{"batch", "browser.batch"} }

// inBatch keeps, in a step's context, the id of the batch it runs in.
type inBatch struct{}

// Admit marks a verb run as a step of a batch with the batch's id, for
// the trace.
func (s *Stage) Admit(ctx context.Context, c *stage.Call) error {
	if id, ok := ctx.Value(inBatch{}).(string); ok {
		c.Batch = id
	}
	return nil
}

// step is one step as checked before any runs.
type step struct {
	req    wire.Request
	word   string
	ref    string
	expect args.Expect
	raw    string // its expect as given
}

// Answer runs a batch.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	if s.host == nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s was lent no verb path", Name)
	}
	if _, nested := ctx.Value(inBatch{}).(string); nested {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "a batch cannot be a step of a batch")
	}
	steps, err := plan(c)
	if err != nil {
		return wire.Response{}, err
	}
	id := newID()
	c.Fact.Setting = fmt.Sprintf("batch %s of %d steps", id, len(steps))
	ctx = context.WithValue(ctx, inBatch{}, id)
	ans := &wire.BatchAnswer{ID: id}
	var notes []string
	for i, st := range steps {
		var before map[target.ID]bool
		if st.expect.Kind == args.ExpectWindow {
			before = s.targets(ctx, c)
		}
		resp := s.host.Handle(ctx, st.req)
		if resp.Note != "" {
			notes = append(notes, resp.Note)
		}
		bs := wire.BatchStep{Verb: st.word, Target: st.req.Target, Ref: st.ref, OK: resp.OK, Code: resp.Code, Expect: st.raw}
		if resp.Target != nil {
			bs.Target = string(resp.Target.ID)
		}
		if resp.Effect != nil {
			bs.Effect = resp.Effect.Word
		}
		bs.Did = resp.Did
		if !resp.OK {
			bs.Did = resp.Message
			ans.Steps = append(ans.Steps, bs)
			return wire.Response{}, stopped(ans, i, len(steps), resp.Code, resp.Message, resp.Facts)
		}
		if st.expect.Kind != "" {
			met, why := s.check(ctx, c, st, bs.Target, resp, before)
			bs.Met = &met
			if !met {
				bs.Code = target.CodeExpectUnmet
				ans.Steps = append(ans.Steps, bs)
				return wire.Response{}, stopped(ans, i, len(steps), target.CodeExpectUnmet, why, nil)
			}
		}
		ans.Steps = append(ans.Steps, bs)
	}
	lines := []string{fmt.Sprintf("batch %s: %d of %d steps ran", id, len(ans.Steps), len(steps))}
	for i, bs := range ans.Steps {
		lines = append(lines, stepLine(i, bs))
	}
	return wire.Response{Did: strings.Join(lines, "\n"), Note: strings.Join(notes, "\n"), Batch: ans}, nil
}

// plan checks every step before any runs: a verb of the batch's command
// line that reaches a target and acts on it or reads it, its arguments as
// its own type takes them, its expectation. A step that is none is
// refused bad_request, naming it, and nothing runs.
func plan(c *stage.Call) ([]step, error) {
	a := c.Args.(args.Batch)
	prefix := ""
	if strings.HasPrefix(c.Req.Verb, verb.BrowserPrefix) {
		prefix = verb.BrowserPrefix
	}
	var out []step
	for i, s := range a.Steps {
		name := prefix + strings.TrimPrefix(s.Verb, verb.BrowserPrefix)
		f, ok := verb.Of(name)
		if !ok || f.Reach == verb.None || !(f.Acts || f.Reads) || f.Picture || f.Browser() != (prefix != "") {
			return nil, target.Refuse(target.CodeBadRequest, "batch step %d: %s is no step a batch runs: a step acts on or reads a target (%s)", i+1, target.Echo(s.Verb), strings.Join(Steps(prefix != ""), ", ")).With("step", i+1)
		}
		raw, err := json.Marshal(s.Args)
		if err != nil || s.Args == nil {
			raw = nil
		}
		sa, _, err := args.Decode(name, raw)
		if err == nil {
			err = sa.Validate()
		}
		if err != nil {
			return nil, stepRefusal(i, s.Verb, err)
		}
		ex, err := args.ParseExpect(s.Expect)
		if err != nil {
			return nil, stepRefusal(i, s.Verb, err)
		}
		req := wire.Request{Verb: name, Session: c.Req.Session, Target: s.Target, Profile: c.Req.Profile, Headed: c.Req.Headed, Args: raw}
		switch {
		case prefix != "" && s.Target != "":
			return nil, target.Refuse(target.CodeBadRequest, "batch step %d: a page step acts on your current tab; it names no target", i+1).With("step", i+1)
		case prefix == "" && s.Target == "":
			req.Target = c.Req.Target
			if req.Target == "" {
				return nil, target.Refuse(target.CodeBadRequest, "batch step %d (%s) names no window, nor does the batch: batch win:N", i+1, s.Verb).With("step", i+1)
			}
		}
		out = append(out, step{req: req, word: f.Word(), ref: args.Ref(sa), expect: ex, raw: s.Expect})
	}
	return out, nil
}

// Steps lists the verbs a batch of one command line runs as steps, by
// their command line's words.
func Steps(browser bool) []string {
	var out []string
	for _, f := range verb.All() {
		if f.Reach != verb.None && (f.Acts || f.Reads) && !f.Picture && f.Browser() == browser {
			out = append(out, f.Word())
		}
	}
	slices.Sort(out)
	return out
}

// stepRefusal is err (a step's bad argument) naming the step.
func stepRefusal(i int, word string, err error) error {
	r, ok := target.AsRefusal(err)
	if !ok {
		r = target.Refuse(target.CodeBadRequest, "%v", err)
	}
	out := target.Refuse(r.Code, "batch step %d (%s): %s", i+1, target.Echo(word), r.Message).With("step", i+1)
	for k, v := range r.Facts {
		out.With(k, v)
	}
	return out
}

// stopped is the refusal of a batch stopped at step i of n with code and
// why: the steps that ran, with their effects, in its words and facts.
func stopped(ans *wire.BatchAnswer, i, n int, code target.Code, why string, facts map[string]any) error {
	var ran []string
	for j, bs := range ans.Steps[:i] {
		ran = append(ran, stepLine(j, bs))
	}
	last := ans.Steps[i]
	msg := fmt.Sprintf("batch %s stopped at step %d of %d (%s): %s", ans.ID, i+1, n, stepWords(last), why)
	if len(ran) > 0 {
		msg += "; before it: " + strings.Join(ran, "; ")
	}
	if i+1 < n {
		msg += fmt.Sprintf("; steps %d to %d did not run", i+2, n)
	}
	r := target.Refuse(code, "%s", msg)
	for k, v := range facts {
		r.With(k, v)
	}
	return r.With("batch", ans.ID).With("stopped_at", i+1).With("steps", ans.Steps)
}

// stepWords names a step: "click @e3 on win:1".
func stepWords(bs wire.BatchStep) string {
	s := bs.Verb
	if bs.Ref != "" {
		s += " " + bs.Ref
	}
	if bs.Target != "" {
		s += " on " + bs.Target
	}
	return s
}

// stepLine is one step of the answer: "2. fill @e5 on tab:1 → confirmed".
func stepLine(i int, bs wire.BatchStep) string {
	s := fmt.Sprintf("%d. %s", i+1, stepWords(bs))
	switch {
	case !bs.OK:
		s += " → refused " + string(bs.Code)
	case bs.Effect != "":
		s += " → " + string(bs.Effect)
	default:
		s += " → done"
	}
	if bs.Met != nil {
		s += fmt.Sprintf(" (expect %s: %s)", bs.Expect, map[bool]string{true: "held", false: "did not hold"}[*bs.Met])
	}
	return s
}

// check answers whether st's expectation held after it ran (resp), and
// why not.
func (s *Stage) check(ctx context.Context, c *stage.Call, st step, on string, resp wire.Response, before map[target.ID]bool) (bool, string) {
	switch st.expect.Kind {
	case args.ExpectChanged:
		if resp.Effect == nil {
			return false, "it expected a change, and its effect was not watched"
		}
		switch resp.Effect.Word {
		case target.EffectConfirmed, target.EffectChangedElsewhere:
			return true, ""
		}
		return false, fmt.Sprintf("it expected a change, and its effect was %s", resp.Effect.Word)
	case args.ExpectText:
		prefix := ""
		if strings.HasPrefix(st.req.Verb, verb.BrowserPrefix) {
			prefix = verb.BrowserPrefix
		}
		req := wire.Request{Verb: prefix + "snapshot", Session: c.Req.Session, Target: on, Profile: c.Req.Profile}
		if prefix != "" {
			req.Target = ""
		}
		snap := s.host.Handle(ctx, req)
		if !snap.OK {
			return false, fmt.Sprintf("it expected the text %q, and its target could not be read: %s [%s]", st.expect.Words, snap.Message, snap.Code)
		}
		if !strings.Contains(strings.ToLower(snap.Text), strings.ToLower(st.expect.Words)) {
			return false, fmt.Sprintf("it expected the text %q, and a snapshot of %s holds none", st.expect.Words, orWords(on, "the tab"))
		}
		return true, ""
	case args.ExpectWindow:
		if resp.Effect != nil {
			for _, seen := range resp.Effect.Seen {
				if strings.HasPrefix(seen, "new window") && strings.Contains(seen, st.expect.Words) {
					return true, ""
				}
			}
		}
		for id, title := range s.titles(ctx, c) {
			if !before[id] && strings.Contains(title, st.expect.Words) {
				return true, ""
			}
		}
		if st.expect.Words != "" {
			return false, fmt.Sprintf("it expected a new window titled %q, and none opened", st.expect.Words)
		}
		return false, "it expected a new window, and none opened"
	}
	return true, ""
}

// targets are the targets the session has now (list).
func (s *Stage) targets(ctx context.Context, c *stage.Call) map[target.ID]bool {
	out := map[target.ID]bool{}
	for id := range s.titles(ctx, c) {
		out[id] = true
	}
	return out
}

// titles are the session's targets now, each with its title (list).
func (s *Stage) titles(ctx context.Context, c *stage.Call) map[target.ID]string {
	resp := s.host.Handle(ctx, wire.Request{Verb: "list", Session: c.Req.Session})
	out := map[target.ID]string{}
	for _, t := range resp.Targets {
		out[t.ID] = t.Title
	}
	return out
}

func orWords(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// newID is a batch's id: "b-" and 8 hex digits.
func newID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return "b-" + hex.EncodeToString(b)
}
