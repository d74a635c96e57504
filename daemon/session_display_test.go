package daemon

import (
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// Tests of per-session displays (kind.PerSession) on the doubles: one
// display per session, found again after a restart, stopped when idle,
// bounded in number; and the fact that a person is attached to one.

// openOn opens a fake application on display from session.
func (td *testDaemon) openOn(t *testing.T, session, display string) Response {
	t.Helper()
	resp := td.call(t, Request{Verb: "open", Session: session}.With(args.Open{App: "fake-app", Display: display}))
	wantCode(t, resp, "")
	return resp
}

// keysOn are the keys of the windows on disp.
func keysOn(t *testing.T, disp *kindtest.Display) map[string]bool {
	t.Helper()
	st, err := disp.Stack(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, w := range st {
		out[w.Key] = true
	}
	return out
}

// backends are the records state.json in dir keeps beside the targets.
func backends(t *testing.T, dir string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Backends map[string]json.RawMessage `json:"backends"`
	}
	if err := json.Unmarshal(b, &state); err != nil {
		t.Fatal(err)
	}
	return state.Backends
}

// sessionRecords are the per-session displays' records state.json in dir
// keeps.
func sessionRecords(t *testing.T, dir string) []displays.SessionRecord {
	t.Helper()
	var recs []displays.SessionRecord
	if b := backends(t, dir)[displays.SessionDisplaysKey]; len(b) > 0 {
		if err := json.Unmarshal(b, &recs); err != nil {
			t.Fatal(err)
		}
	}
	return recs
}

// waitClosed waits, bounded, for disp to be closed.
func waitClosed(t *testing.T, disp *kindtest.Display, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !disp.Closed() {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not stopped", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two sessions opening on a per-session provider get a display each, a
// session opening twice gets its own again, and a shared provider keeps
// one display for everyone. The records keep each display with its
// session: a daemon killed with -9 finds both displays and every window
// on them again, under the right session. (Before, a provider had one
// display: the second session's window went to the first's display.)
func TestPerSessionDisplays(t *testing.T) {
	shared, xp := &kindtest.Provider{NameIs: "shared"}, &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	dir := t.TempDir()
	td := startKinds(t, dir, nil, shared, xp)
	a1 := td.openOn(t, "a", "xp")
	a2 := td.openOn(t, "a", "xp")
	if xp.Started() != 1 {
		t.Fatalf("one session opening twice started %d displays", xp.Started())
	}
	b1 := td.openOn(t, "b", "xp")
	if xp.Started() != 2 {
		t.Fatalf("two sessions started %d displays", xp.Started())
	}
	if !strings.Contains(b1.Did, "(xp, your session's own)") {
		t.Fatalf("open does not say the display is the session's own: %q", b1.Did)
	}
	da, db := xp.Displays()[0], xp.Displays()[1]
	key := func(r Response) string { return td.entryOf(r.Target.ID).rec.Key }
	onA, onB := keysOn(t, da), keysOn(t, db)
	if len(onA) != 2 || !onA[key(a1)] || !onA[key(a2)] || len(onB) != 1 || !onB[key(b1)] {
		t.Fatalf("a's display holds %v, b's %v", onA, onB)
	}
	sa := td.openOn(t, "a", "shared")
	sb := td.openOn(t, "b", "shared")
	if shared.Started() != 1 || len(keysOn(t, shared.Display())) != 2 {
		t.Fatalf("a shared provider started %d displays for two sessions", shared.Started())
	}

	// status and doctor name each per-session display, its session and
	// its use, with the ceiling and the idle stop (their defaults said).
	st := td.call(t, Request{Verb: "status", Session: "a"}).Status.Display
	for _, w := range []string{shared.Display().Name() + "; per-session displays: ", da.Name() + " (xp, session a, 2 windows)", db.Name() + " (xp, session b, 1 window)",
		"2 of at most 4 running (the default)", "stops after 5m0s (the default)"} {
		if !strings.Contains(st, w) {
			t.Errorf("status does not say %q: %s", w, st)
		}
	}
	var row *Check
	doc := td.call(t, Request{Verb: "doctor", Session: "a"})
	for i, c := range doc.Checks {
		if c.Name == "session displays" {
			row = &doc.Checks[i]
		}
	}
	if row == nil || !strings.Contains(row.Detail, "xp: one display per session") || !strings.Contains(row.Detail, da.Name()+" (xp, session a, 2 windows)") ||
		!strings.Contains(row.Detail, "stops after 5m0s (the default)") {
		t.Fatalf("doctor's row of the per-session displays: %+v", row)
	}
	if xp.Started() != 2 {
		t.Fatalf("doctor started a display: %d", xp.Started())
	}

	// state.json keeps each per-session display with its session.
	if recs := sessionRecords(t, dir); len(recs) != 2 || recs[0].Session != "a" || recs[1].Session != "b" || recs[0].Display != "xp" {
		t.Fatalf("the per-session displays' records: %+v", recs)
	}
	if srecs := backends(t, dir)[displays.DisplaysKey]; !strings.Contains(string(srecs), `"shared"`) || strings.Contains(string(srecs), `"xp"`) {
		t.Fatalf("the shared displays' records: %s", srecs)
	}

	// Killed with -9: the next daemon finds both displays and each window
	// on its session's display.
	td.Detach()
	<-td.done
	td2 := startKinds(t, dir, nil, shared, xp)
	if xp.Started() != 2 || shared.Started() != 1 {
		t.Fatalf("the restarted daemon started displays (xp %d, shared %d) instead of re-attaching", xp.Started(), shared.Started())
	}
	for session, want := range map[string][]Response{"a": {a1, a2, sa}, "b": {b1, sb}} {
		l := td2.call(t, Request{Verb: "list", Session: session})
		if len(l.Targets) != len(want) {
			t.Fatalf("after the restart %s lists %+v", session, l.Targets)
		}
		for _, r := range want {
			wantCode(t, td2.call(t, Request{Verb: "snapshot", Session: session, Target: string(r.Target.ID)}), "")
		}
	}
	for r, disp := range map[*Response]*kindtest.Display{&a1: da, &a2: da, &b1: db} {
		e := td2.entryOf(r.Target.ID)
		if e == nil || e.disp == nil || e.disp.Kind() != kind.Display(disp) || e.disp.Session() != e.rec.Origin {
			t.Fatalf("after the restart %s is on %+v", r.Target.ID, e.disp)
		}
	}
	// Each session's next open goes to its own display again.
	a3 := td2.openOn(t, "a", "xp")
	b3 := td2.openOn(t, "b", "xp")
	if xp.Started() != 2 || !keysOn(t, da)[td2.entryOf(a3.Target.ID).rec.Key] || !keysOn(t, db)[td2.entryOf(b3.Target.ID).rec.Key] {
		t.Fatalf("after the restart: started %d; a's display %v, b's %v", xp.Started(), keysOn(t, da), keysOn(t, db))
	}
}

// A per-session display with no window for DisplayIdleStop is stopped:
// its record dropped, an audit line written; the next open of its session
// starts a new one. A per-session display with a window, and a shared
// display with none, are left running. (Before, no display was ever
// stopped but by the daemon's own Close.)
func TestIdleSessionDisplayStops(t *testing.T) {
	shared, xp := &kindtest.Provider{NameIs: "shared"}, &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	td := startDaemonWith(t, nil, "", func(c *Config) {
		c.Displays = []kind.DisplayProvider{shared, xp}
		c.DisplayIdleStop = 100 * time.Millisecond
	})
	a := td.openOn(t, "a", "xp")
	s := td.openOn(t, "b", "shared")
	wantCode(t, td.call(t, Request{Verb: "close", Session: "b", Target: string(s.Target.ID)}), "")
	b := td.openOn(t, "b", "xp")
	wantCode(t, td.call(t, Request{Verb: "close", Session: "b", Target: string(b.Target.ID)}), "")
	if len(xp.Displays()) != 2 {
		t.Fatalf("a and b have %d displays", len(xp.Displays()))
	}
	da, db := xp.Displays()[0], xp.Displays()[1]
	waitClosed(t, db, "b's idle display")
	// Every display found idle in a sweep is dropped at once, before any
	// is closed: a's and the shared one would be gone by now.
	if da.Closed() || td.reg.Running(displays.KeyFor(xp, "a")) == nil {
		t.Fatal("a's display, with a window on it, was stopped")
	}
	if shared.Display().Closed() || td.reg.Running("shared") == nil {
		t.Fatal("the shared display was stopped as idle")
	}
	if td.reg.Running(displays.KeyFor(xp, "b")) != nil {
		t.Fatal("b's stopped display is still running for the daemon")
	}
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(a.Target.ID)}), "")
	if recs := sessionRecords(t, td.cfg.StateDir); len(recs) != 1 || recs[0].Session != "a" {
		t.Fatalf("the per-session displays' records after the idle stop: %+v", recs)
	}
	// The audit line is written once the display's close returned.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		audit, _ := os.ReadFile(filepath.Join(td.cfg.StateDir, auditFile))
		if strings.Contains(string(audit), `"session":"daemon (idle stop)","for":"b"`) && strings.Contains(string(audit), `"verb":"display-stop"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no audit line of the idle stop:\n%s", audit)
		}
	}
	td.openOn(t, "b", "xp")
	if xp.Started() != 3 {
		t.Fatalf("b's next open started %d displays in all", xp.Started())
	}
}

// One per-session display more than MaxSessionDisplays is refused
// display_limit, naming how many run, which are the asker's, how many
// belong to other sessions, and what to do; nothing is started. A
// session's own running display, and a shared one, are not refused; once
// an idle one stops, the open goes through. (Before, nothing bounded
// them.)
func TestSessionDisplayLimit(t *testing.T) {
	shared := &kindtest.Provider{NameIs: "shared"}
	xp, xq := &kindtest.Provider{NameIs: "xp", PerSessionIs: true}, &kindtest.Provider{NameIs: "xq", PerSessionIs: true}
	td := startDaemonWith(t, nil, "", func(c *Config) {
		c.Displays = []kind.DisplayProvider{shared, xp, xq}
		c.MaxSessionDisplays = 2
		c.DisplayIdleStop = 200 * time.Millisecond
	})
	td.openOn(t, "a", "xp")
	b := td.openOn(t, "b", "xp")
	// a at the ceiling: one of the two is a's.
	r := td.call(t, Request{Verb: "open", Session: "a"}.With(args.Open{App: "fake-app", Display: "xq"}))
	wantCode(t, r, target.CodeDisplayLimit)
	yoursA := "xp " + xp.Displays()[0].Name()
	for _, w := range []string{"2 per-session displays run, the most this daemon allows at once", "your own display of xq cannot start",
		"yours: " + yoursA, "1 other(s) belong to other sessions", "close the windows on one you no longer need", "stops after 200ms"} {
		if !strings.Contains(r.Message, w) {
			t.Errorf("display_limit does not say %q: %s", w, r.Message)
		}
	}
	if r.Facts["limit"] != float64(2) || r.Facts["running"] != float64(2) || r.Facts["others"] != float64(1) || r.Facts["idle_stop"] != "200ms" {
		t.Errorf("display_limit's facts: %v", r.Facts)
	}
	if y, _ := r.Facts["yours"].([]any); len(y) != 1 || y[0] != yoursA {
		t.Errorf("display_limit's yours: %v", r.Facts["yours"])
	}
	// c has none of them.
	r = td.call(t, Request{Verb: "open", Session: "c"}.With(args.Open{App: "fake-app", Display: "xp"}))
	wantCode(t, r, target.CodeDisplayLimit)
	if !strings.Contains(r.Message, "none of them is yours") || !strings.Contains(r.Message, "2 other(s)") || r.Facts["others"] != float64(2) {
		t.Errorf("c's display_limit: %s %v", r.Message, r.Facts)
	}
	if xp.Started() != 2 || xq.Started() != 0 {
		t.Fatalf("a refused open started a display: xp %d, xq %d", xp.Started(), xq.Started())
	}
	// At the ceiling, a session's own display and a shared one still open.
	td.openOn(t, "a", "xp")
	td.openOn(t, "c", "shared")
	// b's display goes idle and stops: c's open goes through.
	wantCode(t, td.call(t, Request{Verb: "close", Session: "b", Target: string(b.Target.ID)}), "")
	waitClosed(t, xp.Displays()[1], "b's idle display")
	td.openOn(t, "c", "xp")
	if xp.Started() != 3 {
		t.Fatalf("c's open after the idle stop: xp started %d", xp.Started())
	}
}

// While someone is attached to a display from outside (kind.Watched),
// every answer about a window on it says so — open, list, snapshot, a
// takeover — and answers about windows of another session's display do
// not. (Before, no answer said a person might be driving.)
func TestWatchedDisplayIsSaid(t *testing.T) {
	xp := &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	td := startKinds(t, "", nil, xp)
	first := td.openOn(t, "a", "xp")
	if first.Target.Watched != "" {
		t.Fatalf("nobody is attached yet: %+v", first.Target)
	}
	other := td.openOn(t, "b", "xp")
	since := time.Date(2026, 3, 1, 19, 12, 0, 0, time.UTC)
	xp.Displays()[0].SetWatchers(kind.Watchers{Count: 1, Since: since, How: "an xpra client"})
	watched := func(what string, ti *TargetInfo) {
		t.Helper()
		if ti == nil || ti.Watched != "an xpra client" || ti.Watchers != 1 || ti.WatchedSince != "2026-03-01T19:12:00Z" {
			t.Fatalf("%s does not say who is attached: %+v", what, ti)
		}
	}
	watched("open", td.openOn(t, "a", "xp").Target)
	l := td.call(t, Request{Verb: "list", Session: "a"})
	if len(l.Targets) != 2 {
		t.Fatalf("list %+v", l.Targets)
	}
	for i := range l.Targets {
		watched("list", &l.Targets[i])
	}
	id := string(first.Target.ID)
	watched("snapshot", td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}).Target)
	to := td.call(t, Request{Verb: "takeover", Session: "a", Target: id}.With(args.Operator{User: "alice"}))
	wantCode(t, to, "")
	watched("takeover", to.Target)
	// A refusal names the target too, and says it.
	watched("a refused verb", td.call(t, Request{Verb: "key", Session: "a", Target: id}.With(args.Key{Chord: "a"})).Target)
	// b's display has nobody attached: none of b's answers says it.
	if lb := td.call(t, Request{Verb: "list", Session: "b"}); len(lb.Targets) != 1 || lb.Targets[0].Watched != "" {
		t.Fatalf("b's list says someone watches: %+v", lb.Targets)
	}
	if s := td.call(t, Request{Verb: "snapshot", Session: "b", Target: string(other.Target.ID)}); s.Target.Watched != "" {
		t.Fatalf("b's snapshot says someone watches: %+v", s.Target)
	}
	// The client leaves: no answer says it any more.
	xp.Displays()[0].SetWatchers(kind.Watchers{})
	for _, ti := range td.call(t, Request{Verb: "list", Session: "a"}).Targets {
		if ti.Watched != "" || ti.Watchers != 0 || ti.WatchedSince != "" {
			t.Fatalf("after the client left: %+v", ti)
		}
	}
}

// A per-session display whose last window's application exited, with no
// verb or list to notice, goes idle and stops: the idle sweep re-reads the
// windows there. (Before, the gone window kept its display running.)
func TestIdleStopAfterTheAppExits(t *testing.T) {
	xp := &kindtest.Provider{NameIs: "xp", PerSessionIs: true}
	td := startDaemonWith(t, nil, "", func(c *Config) {
		c.Displays = []kind.DisplayProvider{xp}
		c.DisplayIdleStop = 100 * time.Millisecond
	})
	a := td.openOn(t, "a", "xp")
	disp := xp.Displays()[0]
	disp.Kill(disp.PID(td.entryOf(a.Target.ID).rec.Key))
	waitClosed(t, disp, "the display whose last app exited")
	if td.entryOf(a.Target.ID) != nil {
		t.Fatal("the gone window is still a target")
	}
}
