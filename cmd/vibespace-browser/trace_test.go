package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// TestTraceOfATabSession drives a real page (snapshot, fill and type a
// canary, click Save, which the page reports to the test's server) and
// reads the session's trace back: the steps in order with their verb,
// tab, ref, road and duration; the text's length and never the text,
// nowhere under the state directory; another session is refused the
// tab's trace without the operator's --for.
func TestTraceOfATabSession(t *testing.T) {
	e := sharedEnv(t)
	site := newSite(t)
	open := e.OKJSON("s1", "open", site.URL+"/form")
	tab := string(open.Target.ID)
	snap := e.Snapshot("s1", "-i")
	name, save := ref(t, snap, "entry", "Name"), ref(t, snap, "push button", "Save")
	const canary = "CANARY-5c0a-filled"
	e.OK("s1", "fill", name, canary)
	e.OK("s1", "type", name, "-and-typed")
	from := site.NReports()
	e.OK("s1", "click", save)
	rep := site.WaitReport(t, from, "the save", func(r report) bool { return r.Event == "save" })
	if rep.Name != canary+"-and-typed" {
		t.Fatalf("the page saw %+v", rep)
	}

	resp := e.OKJSON("s1", "trace")
	var verbs []string
	for _, s := range resp.Trace {
		verbs = append(verbs, s.Verb)
		if string(s.Target) != tab || s.Session != e.Session("s1") || s.Time.IsZero() {
			t.Errorf("a step without its tab, session or time: %+v", s)
		}
	}
	if got := strings.Join(verbs, " "); got != "browser.open browser.snapshot browser.fill browser.type browser.click" {
		t.Fatalf("the steps: %q\n%+v", got, resp.Trace)
	}
	snapStep, fill, typ, click := resp.Trace[1], resp.Trace[2], resp.Trace[3], resp.Trace[4]
	if snapStep.After == "" || snapStep.By == "" {
		t.Errorf("snapshot step: %+v", snapStep)
	}
	if fill.Ref != name || fill.Chars != len(canary) || fill.By == "" || !fill.OK {
		t.Errorf("fill step: %+v", fill)
	}
	if typ.Ref != name || typ.Chars != len("-and-typed") || typ.By == "" {
		t.Errorf("type step: %+v", typ)
	}
	if click.Ref != save || click.By == "" || !click.OK || click.MS <= 0 {
		t.Errorf("click step: %+v", click)
	}
	out := e.OK("s1", "trace", "--target", tab, "--last", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "2 of 5 step(s) kept of session "+e.Session("s1")+" on "+tab) ||
		!strings.Contains(lines[1], " type "+tab+" "+name) || !strings.Contains(lines[1], "(10 chars) by:") ||
		!strings.Contains(lines[2], " click "+tab+" "+save+" ") || !strings.Contains(lines[2], " by:"+string(click.By)+" → ") {
		t.Errorf("trace --last 2:\n%s", out)
	}

	e.RefusedJSON(string(target.CodeNotExposed), "s2", "trace", "--target", tab)
	op := e.OKJSON("s2", "trace", "--for", e.Session("s1"))
	if len(op.Trace) != 5 {
		t.Errorf("trace --for s1: %+v", op.Trace)
	}
	raw, _ := json.Marshal(op)
	if strings.Contains(string(raw), canary) {
		t.Error("the trace's answer holds the text filled")
	}
	e.HomeHoldsNot(canary)
	e.HomeHoldsNot("-and-typed")
}
