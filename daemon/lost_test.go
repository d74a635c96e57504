package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestDamagedBudgetsFailClosed (issue 35 row 5): a session's budget of 50
// steps, the daemon killed, garbage written over budgets.json. The next
// daemon starts and serves, but the guard rail fails closed: budget says
// the budget is unknown, acting verbs are refused budget_unreadable (a
// reading verb runs), status says why, and so does a restart before
// anyone set the budget again. Once the operator sets it, the session
// acts; a session not set again stays refused.
func TestDamagedBudgetsFailClosed(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	win := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "budget", Session: "a"}.With(args.Budget{Steps: 50})), "")
	td.Detach() // as kill -9 leaves it
	<-td.done
	garbage := []byte("{\x00garbage\n")
	if err := os.WriteFile(filepath.Join(dir, "budgets.json"), garbage, 0o600); err != nil {
		t.Fatal(err)
	}

	for restart := range 2 {
		td = startDaemon(t, b, dir)
		key := Request{Verb: "key", Session: "a", Target: win}.With(args.Key{Chord: "a", NoVerify: true})
		resp := td.call(t, key)
		wantCode(t, resp, target.CodeBudgetUnreadable)
		if !strings.Contains(resp.Message, "budget --steps N") {
			t.Fatalf("restart %d: the refusal does not say how to go on: %s", restart, resp.Message)
		}
		if restart == 0 && !strings.Contains(resp.Note, "budgets.json was damaged") {
			t.Fatalf("the first answer does not say what was lost: note %q", resp.Note)
		}
		wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: win}), "")
		if resp := td.call(t, Request{Verb: "budget", Session: "a"}); !strings.Contains(resp.Did, "unknown") {
			t.Fatalf("restart %d: budget says %q", restart, resp.Did)
		}
		st := td.call(t, Request{Verb: "status", Session: "a"})
		if st.Status == nil || !strings.Contains(strings.Join(st.Status.Faults, "\n"), "budget_unreadable") {
			t.Fatalf("restart %d: status does not say the budgets are lost: %+v", restart, st.Status)
		}
		td.Detach()
		<-td.done
	}
	// The damaged file is kept aside, as it was.
	aside, _ := filepath.Glob(filepath.Join(dir, "budgets.json.damaged-*"))
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}
	if kept, _ := os.ReadFile(aside[0]); string(kept) != string(garbage) {
		t.Fatalf("kept aside: %q", kept)
	}

	td = startDaemon(t, b, dir)
	other := string(td.open(t, "b"))
	wantCode(t, td.call(t, Request{Verb: "budget", Session: "op", For: "a"}.With(args.Budget{Steps: 10})), "")
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: win}.With(args.Key{Chord: "a", NoVerify: true})), "")
	wantCode(t, td.call(t, Request{Verb: "key", Session: "b", Target: other}.With(args.Key{Chord: "a", NoVerify: true})), target.CodeBudgetUnreadable)
	// None, said out loud, is an answer too.
	wantCode(t, td.call(t, Request{Verb: "budget", Session: "b"}.With(args.Budget{Steps: -1, Minutes: -1})), "")
	wantCode(t, td.call(t, Request{Verb: "key", Session: "b", Target: other}.With(args.Key{Chord: "a", NoVerify: true})), "")
	if resp := td.call(t, Request{Verb: "budget", Session: "a"}); !strings.Contains(resp.Did, "9 of 10 steps left") {
		t.Fatalf("a's budget after it was set again: %q", resp.Did)
	}
}

// TestHandbackToldOnceAcrossRestarts (issue 35 row 9): takeover and
// handback, the agent told once; four restarts after it tell it no more.
func TestHandbackToldOnceAcrossRestarts(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	win := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: win}.With(args.Share{With: "op"})), "")
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "op", Target: win}.With(args.Operator{User: "alice"})), "")
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "op", Target: win}.With(args.Operator{User: "alice"})), "")
	snap := Request{Verb: "snapshot", Session: "a", Target: win}
	if resp := td.call(t, snap); !strings.Contains(resp.Note, "control came back") {
		t.Fatalf("the handback is not told: %+v", resp)
	}
	for i := range 4 {
		td.Detach()
		<-td.done
		td = startDaemon(t, b, dir)
		if resp := td.call(t, snap); resp.Note != "" {
			t.Fatalf("restart %d told again: %q", i+1, resp.Note)
		}
	}
}

// TestDamagedState (issue 35 row 1): state.json cut short by hand after a
// kill. The next daemon starts (no lockout) and sets the file aside as it
// was. With the copy it keeps beside the state whole, it restores from it
// (the window is still there) and says so; with the copy damaged too, it
// starts afresh. Either way each session is told once what happened, and
// status lists it.
func TestDamagedState(t *testing.T) {
	for _, copyToo := range []bool{false, true} {
		t.Run(map[bool]string{false: "restored from the copy", true: "afresh"}[copyToo], func(t *testing.T) {
			b := &kindtest.Provider{}
			dir := t.TempDir()
			td := startDaemon(t, b, dir)
			win := td.open(t, "a")
			td.Detach()
			<-td.done
			path := filepath.Join(dir, stateFile)
			whole, _ := os.ReadFile(path)
			cut := whole[:len(whole)/2]
			if err := os.WriteFile(path, cut, 0o600); err != nil {
				t.Fatal(err)
			}
			if copyToo {
				if err := os.WriteFile(path+".copy", cut, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			td = startDaemon(t, b, dir)
			want := "restored from its copy state.json.copy"
			if copyToo {
				want = "could not be restored (this daemon started afresh;"
			}
			for _, s := range []string{"a", "b"} {
				resp := td.call(t, Request{Verb: "list", Session: s})
				wantCode(t, resp, "")
				if !strings.Contains(resp.Note, "state.json was damaged (it is cut short") || !strings.Contains(resp.Note, want) {
					t.Fatalf("%s's first answer: note %q", s, resp.Note)
				}
				if again := td.call(t, Request{Verb: "list", Session: s}); again.Note != "" {
					t.Fatalf("%s told twice: %q", s, again.Note)
				}
			}
			snap := td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(win)})
			if copyToo {
				wantCode(t, snap, target.CodeUnknownTarget)
			} else {
				wantCode(t, snap, "")
			}
			st := td.call(t, Request{Verb: "status", Session: "a"})
			if st.Status == nil || !strings.Contains(strings.Join(st.Status.Faults, "\n"), "state.json was damaged") {
				t.Fatalf("status: %+v", st.Status)
			}
			aside, _ := filepath.Glob(path + ".damaged-*")
			if len(aside) != 1 {
				t.Fatalf("set aside: %v", aside)
			}
			if kept, _ := os.ReadFile(aside[0]); string(kept) != string(cut) {
				t.Fatalf("kept aside: %q", kept)
			}
			// It serves on, and never mints a handle an agent may still hold.
			if again := td.open(t, "a"); again == win {
				t.Fatalf("the handle %s was minted again", again)
			}
		})
	}
}

// TestRestartTellsOfACutSelect (issue 35 rows 7 and 14): a select in
// flight when the daemon is killed is told as every acting verb is — a
// note on the next answer on its window, an outcome_unknown audit row —
// and its session's trace has a step for it, said to be cut. The select
// is held in flight behind a gated type on the same window (a verb waits
// for the window's earlier one), after its record was written.
func TestRestartTellsOfACutSelect(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	id := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	gate := b.Display().GateTyping()
	typed, selected := make(chan Response, 1), make(chan Response, 1)
	go func() {
		typed <- td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Text: "x"}))
	}()
	waitRecords := func(verb string) map[string][]byte {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			recs := map[string][]byte{}
			ents, _ := os.ReadDir(filepath.Join(dir, flightDir))
			for _, en := range ents {
				if b, err := os.ReadFile(filepath.Join(dir, flightDir, en.Name())); err == nil {
					recs[en.Name()] = b
				}
			}
			for _, b := range recs {
				if strings.Contains(string(b), `"verb":"`+verb+`"`) {
					return recs
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no record of the %s in flight: %v", verb, recs)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitRecords("type")
	go func() {
		selected <- td.call(t, Request{Verb: "select", Session: "a", Target: id}.With(args.Select{Ref: "@e2", Options: []string{"Green"}}))
	}()
	recs := waitRecords("select")
	close(gate)
	<-typed
	<-selected
	td.Detach()
	<-td.done
	// What a kill -9 during the select leaves: its record alone.
	for name, b := range recs {
		if strings.Contains(string(b), `"verb":"select"`) {
			if err := os.WriteFile(filepath.Join(dir, flightDir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	td2 := startDaemon(t, b, dir)
	resp := td2.call(t, Request{Verb: "snapshot", Session: "a", Target: id})
	if !strings.Contains(resp.Note, "select by a at ") || !strings.Contains(resp.Note, "was cut by a daemon restart; its effect is unknown") {
		t.Fatalf("the first answer on %s after the restart: note %q", id, resp.Note)
	}
	audit, _ := os.ReadFile(filepath.Join(dir, auditFile))
	if !strings.Contains(string(audit), `"verb":"select","ok":false,"code":"outcome_unknown"`) {
		t.Fatalf("the cut select is not audited:\n%s", audit)
	}
	tr := td2.call(t, Request{Verb: "trace", Session: "a"})
	var cut []string
	for _, s := range tr.Trace {
		if s.Verb == "select" && s.Code == target.CodeOutcomeUnknown {
			cut = append(cut, s.Line())
		}
	}
	if len(cut) != 1 || !strings.Contains(cut[0], "cut by a daemon restart") {
		t.Fatalf("the trace's cut select: %q (all: %+v)", cut, tr.Trace)
	}
}
