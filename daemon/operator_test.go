package daemon

import (
	"bufio"
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// auditRows reads the audit log's rows of verb.
func auditRows(t *testing.T, td *testDaemon, verb string) []lease.Entry {
	t.Helper()
	f, err := os.Open(filepath.Join(td.cfg.StateDir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []lease.Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e lease.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if e.Verb == verb {
			out = append(out, e)
		}
	}
	return out
}

// TestOperatorWordsWhoMayDoWhat: a session takes over and hands back only
// what it sees; a second takeover is refused taken_over unless forced, and
// then the first user is named and told once; the paused holder neither
// hands back nor replaces a takeover made from another session, even with
// --force; the live view takes over any target; every audit row of these
// verbs and of share says the user, the session, force, and with whom.
func TestOperatorWordsWhoMayDoWhat(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := string(td.open(t, "agent"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "agent", Target: id}), "")

	// Not exposed: refused, and it learns nothing.
	for _, verb := range []string{"takeover", "handback"} {
		r := td.call(t, Request{Verb: verb, Session: "stranger", Target: id}.With(args.Operator{User: "mallory", Force: true}))
		wantCode(t, r, target.CodeNotExposed)
		if r.Target != nil {
			t.Fatalf("%s by a stranger names the target: %+v", verb, r.Target)
		}
	}
	if l := td.leases.Get(target.ID(id)); l.Input != lease.InputAgent {
		t.Fatalf("a stranger took it over: %+v", l)
	}

	wantCode(t, td.call(t, Request{Verb: "share", Session: "agent", Target: id}.With(args.Share{With: "op"})), "")
	wantCode(t, td.call(t, Request{Verb: "share", Session: "agent", Target: id}.With(args.Share{With: "op2"})), "")
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "op", Target: id}.With(args.Operator{User: "u1"})), "")
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "op", Target: id}.With(args.Operator{User: "u1"})), "") // again: nothing changes

	// The paused holder never hands back, nor replaces, a person's takeover.
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "agent", Target: id}.With(args.Operator{User: "u1", Force: true})), target.CodeWindowPaused)
	wantCode(t, td.call(t, Request{Verb: "takeover", Session: "agent", Target: id}.With(args.Operator{User: "u3", Force: true})), target.CodeWindowPaused)

	// A second takeover is refused while the first is live…
	r := td.call(t, Request{Verb: "takeover", Session: "op2", Target: id}.With(args.Operator{User: "u2"}))
	wantCode(t, r, target.CodeTakenOver)
	if r.Facts["user"] != "u1" || !strings.Contains(r.Message, "u1") {
		t.Fatalf("taken_over answer %+v", r)
	}
	// …unless forced, and then the answer names whom it replaced.
	r = td.call(t, Request{Verb: "takeover", Session: "op2", Target: id}.With(args.Operator{User: "u2", Force: true}))
	wantCode(t, r, "")
	if !strings.Contains(r.Did, "in place of u1") || r.Target == nil || r.Target.User != "u2" {
		t.Fatalf("forced takeover answer %+v", r)
	}
	// u1 is told once, on their next word on it.
	r = td.call(t, Request{Verb: "handback", Session: "op", Target: id}.With(args.Operator{User: "u1"}))
	wantCode(t, r, target.CodeWindowPaused)
	if !strings.Contains(r.Note, "replaced") || !strings.Contains(r.Note, "u2") {
		t.Fatalf("u1's first answer after being replaced: note %q", r.Note)
	}
	if r := td.call(t, Request{Verb: "handback", Session: "op", Target: id}.With(args.Operator{User: "u1"})); r.Note != "" {
		t.Fatalf("told twice: %q", r.Note)
	}
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "op2", Target: id}.With(args.Operator{User: "u2"})), "")

	// The live view (the person at the page) takes over any target it shows.
	other := string(td.open(t, "agent2"))
	wantCode(t, td.liveHands().Takeover(t.Context(), target.ID(other), "viewer-1"), "")
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "agent2", Target: other}), target.CodeWindowPaused)
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "agent2", Target: other}.With(args.Operator{User: "viewer-1"})), target.CodeWindowPaused)
	wantCode(t, td.liveHands().Handback(t.Context(), target.ID(other), "viewer-1"), "")

	// The audit says who, as whom, forced or not, and with whom.
	shares := auditRows(t, td, "share")
	if len(shares) != 2 || shares[0].With != "op" || shares[1].With != "op2" || shares[0].Session != "agent" {
		t.Fatalf("share rows %+v", shares)
	}
	tos := auditRows(t, td, "takeover")
	type row struct {
		session, user string
		force, ok     bool
		code          target.Code
		replaced      string
	}
	var got []row
	for _, e := range tos {
		got = append(got, row{e.Session, e.User, e.Force, e.OK, e.Code, e.Replaced})
	}
	want := []row{
		{"stranger", "mallory", true, false, target.CodeNotExposed, ""},
		{"op", "u1", false, true, "", ""},
		{"op", "u1", false, true, "", ""},
		{"agent", "u3", true, false, target.CodeWindowPaused, ""},
		{"op2", "u2", false, false, target.CodeTakenOver, ""},
		{"op2", "u2", true, true, "", "u1"},
		{liveViewSession, "viewer-1", false, true, "", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("takeover rows %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("takeover row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	hbs := auditRows(t, td, "handback")
	if len(hbs) != 7 {
		t.Fatalf("handback rows %+v", hbs)
	}
	if h := hbs[1]; h.Session != "agent" || h.User != "u1" || !h.Force || h.OK {
		t.Fatalf("the paused holder's forced handback row %+v", h)
	}
	if h := hbs[4]; h.Session != "op2" || h.User != "u2" || h.Force || !h.OK {
		t.Fatalf("u2's handback row %+v", h)
	}
	if h := hbs[6]; h.Session != liveViewSession || h.User != "viewer-1" || !h.OK {
		t.Fatalf("the live view's handback row %+v", h)
	}
}
