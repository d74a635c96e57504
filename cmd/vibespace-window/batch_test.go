package main_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// batchAnswer runs a batch of lines as session s with --json and decodes
// its answer.
func (e *env) batchAnswer(s string, lines []string, argv ...string) (wire.Response, int) {
	e.T.Helper()
	r := e.CLIStdin(s, strings.Join(lines, "\n")+"\n", append([]string{"--json", "batch"}, argv...)...)
	var resp wire.Response
	if err := json.Unmarshal([]byte(r.Out), &resp); err != nil {
		e.T.Fatalf("batch: not a JSON answer (exit %d): %v\n%s\n%s", r.Code, err, r.Out, r.Errout)
	}
	return resp, r.Code
}

// clicks are the widgets the fixture logged a click on, in order, from
// index from; sentinel is clicked (outside any batch) and waited for
// first, so that every event of what ran before it is in the log.
func clicksUntil(t *testing.T, e *env, s, id, sentinelRef string, log *testenv.FixtureLog, from int) []string {
	t.Helper()
	mark := log.Len()
	e.OK(s, "click", id, sentinelRef)
	wait(t, log, mark, "the sentinel click", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "open-dialog" })
	evs, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs[from:mark] {
		if ev.Type == "click" || ev.Type == "text" {
			out = append(out, ev.Type+":"+ev.Widget+":"+ev.Text)
		}
	}
	return out
}

// A batch on a window runs its steps in order through the verb path:
// the fixture's own log has each step's effect, in order; each step is a
// step of the trace under the batch's one id; an expectation that holds
// (changed, window:"…") is said so.
func TestBatchOnAWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	alpha, beta := node(t, snap, "push button", "Alpha").Ref, node(t, snap, "push button", "Beta").Ref
	name, dialog := node(t, snap, "text", "Name").Ref, node(t, snap, "push button", "Open dialog").Ref

	from := log.Len()
	resp, code := e.batchAnswer("s1", []string{
		"# fill the name, then press both buttons",
		"click " + alpha,
		`type ` + name + ` "Ada Lovelace" --expect changed`,
		"click " + id + " " + beta,
		"click " + dialog + ` --expect window:"Fixture dialog"`,
	}, id)
	if code != 0 || !resp.OK || resp.Batch == nil || len(resp.Batch.Steps) != 4 {
		t.Fatalf("batch: exit %d %+v", code, resp)
	}
	for i, st := range resp.Batch.Steps {
		if !st.OK || st.Target != id || st.Effect == "" {
			t.Errorf("step %d: %+v", i+1, st)
		}
	}
	if m := resp.Batch.Steps[1].Met; m == nil || !*m {
		t.Errorf("the type's expect changed: %+v", resp.Batch.Steps[1])
	}
	if m := resp.Batch.Steps[3].Met; m == nil || !*m {
		t.Errorf("the dialog's expect window: %+v", resp.Batch.Steps[3])
	}
	evs, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs[from:] {
		switch {
		case ev.Type == "click":
			got = append(got, "click "+ev.Widget)
		case ev.Type == "text" && ev.Widget == "entry" && ev.Text == "Ada Lovelace":
			got = append(got, "text "+ev.Text)
		}
	}
	if strings.Join(got, ", ") != "click alpha, text Ada Lovelace, click beta, click open-dialog" {
		t.Errorf("the fixture logged, in order: %q", got)
	}

	tr := e.Answer("s1", "trace")
	var batched []wire.TraceStep
	for _, s := range tr.Trace {
		if s.Batch != "" {
			batched = append(batched, s)
			if s.Batch != resp.Batch.ID {
				t.Errorf("a step of another batch id %s (want %s): %+v", s.Batch, resp.Batch.ID, s)
			}
		}
	}
	if len(batched) != 4 || batched[0].Verb != "click" || batched[1].Verb != "type" || batched[1].Chars != len("Ada Lovelace") {
		t.Errorf("the trace's steps of the batch: %+v", batched)
	}
	if out := e.OK("s1", "trace"); !strings.Contains(out, "batch:"+resp.Batch.ID) {
		t.Errorf("the trace's lines do not name the batch:\n%s", out)
	}
}

// A batch stops at the first step refused — with that step's code, the
// steps before it said — and runs none after it: the fixture's log has
// the first step's click and not the third's. A batch stops too at a step
// whose expectation did not hold (expect_unmet), the steps after it not
// run.
func TestBatchStops(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	alpha, beta := node(t, snap, "push button", "Alpha").Ref, node(t, snap, "push button", "Beta").Ref
	disabled, dialog := node(t, snap, "text", "Disabled").Ref, node(t, snap, "push button", "Open dialog").Ref

	from := log.Len()
	resp, code := e.batchAnswer("s1", []string{
		"click " + alpha,
		`type ` + disabled + ` "never"`,
		"click " + beta,
	}, id)
	if code != 1 || resp.OK || resp.Code == "" || resp.Code == target.CodeExpectUnmet {
		t.Fatalf("a batch with a refused step: exit %d %+v", code, resp)
	}
	if at, _ := resp.Facts["stopped_at"].(float64); at != 2 || resp.Facts["batch"] == nil {
		t.Errorf("stopped at %v, want 2: %+v", resp.Facts["stopped_at"], resp.Facts)
	}
	if !strings.Contains(resp.Message, "stopped at step 2 of 3") || !strings.Contains(resp.Message, "steps 3 to 3 did not run") {
		t.Errorf("the refusal's words: %s", resp.Message)
	}
	if got := strings.Join(clicksUntil(t, e, "s1", id, dialog, log, from), ", "); got != "click:alpha:" {
		t.Errorf("the fixture logged %q before the sentinel: want the first step's click alone", got)
	}
	from = log.Len()
	resp, code = e.batchAnswer("s1", []string{
		"click " + alpha + ` --expect window:"Nowhere"`,
		"click " + beta,
	}, id)
	if code != 1 || resp.Code != target.CodeExpectUnmet {
		t.Fatalf("a batch whose expect does not hold: exit %d %+v", code, resp)
	}
	if !strings.Contains(resp.Message, `expected a new window titled "Nowhere"`) {
		t.Errorf("the refusal's words: %s", resp.Message)
	}
	if got := strings.Join(clicksUntil(t, e, "s1", id, dialog, log, from), ", "); got != "click:alpha:" {
		t.Errorf("the fixture logged %q before the sentinel: want the first step's click alone", got)
	}

	// A text that is not there stops it too; a bad line is refused before
	// anything runs.
	resp, code = e.batchAnswer("s1", []string{"click " + alpha + ` --expect text:"No such words anywhere"`, "click " + beta}, id)
	if code != 1 || resp.Code != target.CodeExpectUnmet {
		t.Fatalf("expect text: exit %d %+v", code, resp)
	}
	r := e.CLIStdin("s1", "click "+alpha+"\nfrobnicate "+beta+"\n", "batch", id)
	if r.Code != 2 || !strings.Contains(r.Errout, "batch line 2") {
		t.Errorf("a line that is no command: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
}

// A secret typed by name into a window's field reaches it — the
// fixture's own log is the oracle — and its value is in no answer, no
// line of the audit log and no file of the trace; an unknown name is
// refused no_secret.
func TestSecretByNameOnAWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	b := make([]byte, 10)
	rand.Read(b)
	value := "pw-" + hex.EncodeToString(b)
	var answers []string
	r := e.CLIStdin("s1", value+"\n", "key", "set", "secret:login")
	answers = append(answers, r.Out, r.Errout)
	if r.Code != 0 {
		t.Fatalf("key set secret:login: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	name := node(t, snap, "text", "Name").Ref

	from := log.Len()
	out := e.OK("s1", "type", id, name, "--secret", "login")
	answers = append(answers, out)
	if !strings.Contains(out, "a secret of 23 characters, login, was typed") {
		t.Errorf("type --secret does not say a secret of 23 characters was typed:\n%s", out)
	}
	wait(t, log, from, "the secret in Name", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "entry" && ev.Text == value
	})
	resp, code := e.batchAnswer("s1", []string{"type " + name + " --secret nope"}, id)
	if code != 1 || resp.Code != target.CodeNoSecret {
		t.Errorf("an unknown secret in a batch: exit %d %+v", code, resp)
	}
	bout, _ := json.Marshal(resp)
	// (A snapshot would read the field back: the Name entry is no
	// password field, and shows what it holds.)
	answers = append(answers, string(bout), e.OK("s1", "trace"))

	for i, a := range answers {
		if strings.Contains(a, value) {
			t.Errorf("answer %d holds the secret's value:\n%s", i, a)
		}
	}
	keys := filepath.Join(e.Home, "keys")
	filepath.WalkDir(e.Home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, keys+string(filepath.Separator)) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), value) {
			t.Errorf("%s holds the secret's value", strings.TrimPrefix(p, e.Home))
		}
		return nil
	})
	// The foreground daemon's own log, beside the state directory.
	if b, err := os.ReadFile(filepath.Join(e.Dir, "serve.log")); err != nil || strings.Contains(string(b), value) {
		t.Errorf("the daemon's log holds the secret's value, or was not read (%v)", err)
	}
	audit, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"verb":"type"`) {
		t.Errorf("the audit log has no type row (%v)", err)
	}
}
