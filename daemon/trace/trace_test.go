package trace

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// world is a trace stage on a temporary state directory, with what it
// owed and wrote.
type world struct {
	*Stage
	dir   string
	mu    sync.Mutex
	owed  []string
	wrote map[string]error
	known map[target.ID]map[string]bool // target → the sessions it is shared with
}

func newWorld(t *testing.T, tune func(*stage.Env)) *world {
	t.Helper()
	w := &world{dir: t.TempDir(), wrote: map[string]error{}, known: map[target.ID]map[string]bool{}}
	env := stage.Env{
		StateDir: w.dir,
		Now:      time.Now,
		Logger:   slog.New(slog.DiscardHandler),
		Owe: func(n notice.Notice) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.owed = append(w.owed, n.Text)
		},
		Wrote: func(name string, err error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.wrote[name] = err
		},
		TraceSteps:      500,
		TraceRetention:  time.Hour,
		TracePictureMax: 1 << 20,
		Sees: func(session string, id target.ID) (seen, known bool) {
			s, ok := w.known[id]
			return s[session], ok
		},
	}
	if tune != nil {
		tune(&env)
	}
	s, err := New(env)
	if err != nil {
		t.Fatal(err)
	}
	w.Stage = s
	return w
}

// call is the call of verb v on tg (nil: none), as the stages see it.
func call(v string, tg stage.Target, req wire.Request) *stage.Call {
	f, _ := verb.Of(v)
	req.Verb = v
	if req.Session == "" {
		req.Session = "a"
	}
	return stagetest.Decoded(&stage.Call{Req: req, Facts: f, Started: time.Now(), Target: tg})
}

func (w *world) finish(c *stage.Call, resp wire.Response, err error) {
	if err == nil {
		resp.OK = true
	} else {
		resp.Code = target.CodeOf(err) // as the core's answer of a refusal
	}
	w.Finish(c, &stage.Answer{Resp: resp, Err: err})
}

func (w *world) answer(t *testing.T, c *stage.Call) (wire.Response, error) {
	t.Helper()
	return w.Answer(t.Context(), c)
}

func verbs(steps []wire.TraceStep) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Verb)
	}
	return strings.Join(out, " ")
}

// TestStepsOfASession: every verb on a target is a step, in order; an
// untraced verb and one on no target are none; a type step keeps the
// text's length, never the text; a node whose name can carry typed text
// keeps its role only.
func TestStepsOfASession(t *testing.T) {
	w := newWorld(t, nil)
	tg := stagetest.Of("win:1")
	const canary = "hunter2-CANARY"
	w.finish(call("click", tg, wire.Request{}.With(args.Click{Ref: "@e9"})), wire.Response{By: target.RoadTree}, nil)
	c := call("type", tg, wire.Request{}.With(args.Type{Ref: "@e4", Text: canary}))
	c.Acted = &target.NodeTraits{Role: "combo box", Name: canary}
	c.Before, c.After = "b1", "a1 "+canary+" as text"
	w.finish(c, wire.Response{By: target.RoadTree, Effect: &target.Effect{Word: target.EffectConfirmed, Seen: []string{canary}}}, nil)
	w.finish(call("key", tg, wire.Request{}.With(args.Key{Chord: "shift+z"})), wire.Response{}, nil)
	w.finish(call("key", tg, wire.Request{}.With(args.Key{Chord: "ctrl+shift+t"})), wire.Response{}, nil)
	w.finish(call("click", tg, wire.Request{}.With(args.Click{Ref: "@e99"})), wire.Response{}, target.Refuse(target.CodeBadRef, "no @e99"))
	w.finish(call("trace", nil, wire.Request{}), wire.Response{}, nil)
	w.finish(call("list", nil, wire.Request{}), wire.Response{}, nil)

	resp, err := w.answer(t, call("trace", nil, wire.Request{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := verbs(resp.Trace); got != "click type key key click" {
		t.Fatalf("steps: %q", got)
	}
	typ, shifted, cmd, bad := resp.Trace[1], resp.Trace[2], resp.Trace[3], resp.Trace[4]
	if typ.Chars != len(canary) || typ.Name != "" || typ.Role != "combo box" || typ.Effect != target.EffectConfirmed || typ.Before != "b1" || typ.After == "" || strings.Contains(typ.After, canary) {
		t.Errorf("type step: %+v", typ)
	}
	if shifted.Key != "" || shifted.Chars != 1 || cmd.Key != "ctrl+shift+t" {
		t.Errorf("key steps: %+v %+v", shifted, cmd)
	}
	if bad.OK || bad.Code != target.CodeBadRef {
		t.Errorf("a refused step: %+v", bad)
	}
	filepath.Walk(w.dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), canary) {
				t.Errorf("%s holds the text typed", p)
			}
		}
		return nil
	})
}

// TestPictures: only while pictures are on, only after an acting step
// that types nothing, never of a window of the user's desktop without its
// pixels grant, never one larger than TracePictureMax; the live view's
// steps show none.
func TestPictures(t *testing.T) {
	w := newWorld(t, func(e *stage.Env) { e.TracePictureMax = 100 })
	png := []byte("\x89PNG picture")
	tg := &stagetest.Target{TargetID: "win:1", PNG: png}
	w.finish(call("click", tg, wire.Request{}), wire.Response{}, nil)
	on := call("trace", nil, wire.Request{Session: "op"}.With(args.Trace{Action: PicturesOn}))
	if _, err := w.answer(t, on); err != nil || on.Fact.Setting != "trace pictures on" {
		t.Fatalf("pictures on: %v, audited %q", err, on.Fact.Setting)
	}
	w.finish(call("click", tg, wire.Request{}), wire.Response{}, nil)
	w.finish(call("type", tg, wire.Request{}.With(args.Type{Text: "x"})), wire.Response{}, nil)
	w.finish(call("snapshot", tg, wire.Request{}), wire.Response{}, nil)
	mine := &stagetest.Target{TargetID: "win:2", PNG: png, Mine: true}
	w.finish(call("click", mine, wire.Request{}), wire.Response{}, nil)
	mine.Pixels = true
	w.finish(call("click", mine, wire.Request{}), wire.Response{}, nil)
	big := &stagetest.Target{TargetID: "win:3", PNG: make([]byte, 101)}
	w.finish(call("click", big, wire.Request{}), wire.Response{}, nil)

	resp, _ := w.answer(t, call("trace", nil, wire.Request{}))
	var got []bool
	for _, s := range resp.Trace {
		got = append(got, s.Picture != "")
	}
	want := []bool{false, true, false, false, false, true, false}
	if len(got) != len(want) {
		t.Fatalf("steps: %q", verbs(resp.Trace))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pictures kept %v, want %v", got, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, resp.Trace[1].Picture)); string(b) != string(png) {
		t.Errorf("the picture is not the screenshot: %q", b)
	}
	for _, s := range w.Steps("win:1", 20) {
		if s.Picture != "" {
			t.Errorf("the live view is shown a picture: %+v", s)
		}
	}
}

// TestAnswerRefuses: a malformed trace request, and a target another
// session's (not shared with the caller, never acted on by it) without
// --for, are refused; --for reads it.
func TestAnswerRefuses(t *testing.T) {
	w := newWorld(t, nil)
	w.known["win:1"] = map[string]bool{"a": true}
	w.finish(call("click", stagetest.Of("win:1"), wire.Request{}), wire.Response{}, nil)
	for _, req := range []wire.Request{
		wire.Request{}.With(args.Trace{Action: "pictures-maybe"}),
		wire.Request{Target: "win:1"}.With(args.Trace{Action: PicturesOn}),
		wire.Request{}.With(args.Trace{Last: -1}),
		wire.Request{}.With(args.Trace{Last: 501}),
	} {
		if _, err := w.answer(t, call("trace", nil, req)); target.CodeOf(err) != target.CodeBadRequest {
			t.Errorf("%+v (args %s): %v", req, req.Args, err)
		}
	}
	if _, err := w.answer(t, call("trace", nil, wire.Request{Session: "b", Target: "win:1"})); target.CodeOf(err) != target.CodeNotExposed {
		t.Errorf("b's trace of a's window: %v", err)
	}
	resp, err := w.answer(t, call("trace", nil, wire.Request{Session: "b", For: "a", Target: "win:1"}))
	if err != nil || verbs(resp.Trace) != "click" {
		t.Errorf("--for a: %+v %v", resp, err)
	}
	if _, err := w.answer(t, call("trace", nil, wire.Request{Session: "b", Target: "win:9"})); err != nil {
		t.Errorf("a target gone: %v", err)
	}
}

// TestCutAndRestart: a verb an earlier daemon was killed in is a step
// refused outcome_unknown; the trace and what could not be read back of
// it are there after a restart.
func TestCutAndRestart(t *testing.T) {
	w := newWorld(t, nil)
	at := time.Now().Add(-time.Minute)
	w.Cut("a", "win:1", "type", at)
	resp, _ := w.answer(t, call("trace", nil, wire.Request{}))
	if len(resp.Trace) != 1 || resp.Trace[0].Code != target.CodeOutcomeUnknown || !resp.Trace[0].Time.Equal(at.UTC()) {
		t.Fatalf("the cut step: %+v", resp.Trace)
	}
	again := newWorld(t, func(e *stage.Env) { e.StateDir = w.dir })
	again.Start(t.Context())
	if resp, _ := again.answer(t, call("trace", nil, wire.Request{})); verbs(resp.Trace) != "type" {
		t.Errorf("after a restart: %q", verbs(resp.Trace))
	}
	if len(again.owed) != 0 {
		t.Errorf("a whole trace told as lost: %q", again.owed)
	}
}

func TestTypesText(t *testing.T) {
	for chord, want := range map[string]bool{"a": true, "shift+a": true, "space": true, "€": true, "KP_1": true,
		"ctrl+a": false, "Tab": false, "Return": false, "F5": false, "alt+x": false, "super+l": false, "not a chord+": true} {
		if got := typesText(chord); got != want {
			t.Errorf("typesText(%q) = %v, want %v", chord, got, want)
		}
	}
}
