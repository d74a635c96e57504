package chromium

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
)

// TestBrowserProfileSurvivesRestart: a profile's login cookie (a
// Set-Cookie with an expiry, from the server) is still sent after the
// daemon closed and a new one started on the same state directory; the
// handle refusals reach the answer with their facts.
func TestBrowserProfileSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := newSite(t)
	h := startHarness(t, dir, Options{}, nil)
	req := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "carol"} }

	nw := req("browser.new").With(args.New{Label: "Work account"})
	work := h.ok(t, nw).Profile
	if work == nil || !profile.IsID(work.ID) {
		t.Fatalf("new answered %+v", work)
	}
	use := req("browser.use").With(args.Use{Label: work.ID, Alias: "work"})
	if r := h.ok(t, use); r.Profile == nil || r.Profile.Handle != "work" || !r.Profile.Default {
		t.Fatalf("use answered %+v", r.Profile)
	}
	open := req("browser.open").With(args.OpenURL{URL: s.URL + "/login?who=carol"})
	r := h.ok(t, open)
	if r.Profile == nil || r.Profile.ID != work.ID || !r.Profile.Running || r.Profile.Ephemeral {
		t.Fatalf("open in the profile answered %+v", r.Profile)
	}
	h.pool.mu.Lock()
	pid := h.pool.browsers[work.ID].b.PID()
	h.pool.mu.Unlock()
	h.close()
	if left := cdp.GroupProcesses(pid); len(left) > 0 {
		t.Fatalf("the profile's browser left processes %v after Close", left)
	}

	// While the daemon is down the operator attaches a second profile to
	// the session: its next command is told once.
	reg, err := profile.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	home, err := reg.New("Home")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.UseFor("carol", home.ID, "home"); err != nil {
		t.Fatal(err)
	}

	h2 := startHarness(t, dir, Options{}, nil)
	snap := req("browser.snapshot")
	changed := h2.call(t, snap)
	wantCode(t, changed, target.CodeProfileChanged)
	if !strings.Contains(factString(changed.Facts["handles"]), "home") || changed.Facts["was"] == nil || changed.Facts["now"] == nil {
		t.Fatalf("profile_changed facts %v", changed.Facts)
	}
	required := h2.call(t, snap)
	wantCode(t, required, target.CodeProfileRequired)
	if hs := factString(required.Facts["handles"]); !strings.Contains(hs, "work") || !strings.Contains(hs, "home") {
		t.Fatalf("profile_required facts %v", required.Facts)
	}
	snap.Profile = "./profiles/work"
	wantCode(t, h2.call(t, snap), target.CodePathNotHandle)
	snap.Profile = "nosuch"
	wantCode(t, h2.call(t, snap), target.CodeUnknownProfile)

	// The cookie came back with the profile: the server sees it.
	open = req("browser.open").With(args.OpenURL{URL: s.URL + "/echo"})
	open.Profile = "work"
	if r := h2.ok(t, open); r.Profile == nil || r.Profile.ID != work.ID {
		t.Fatalf("open --profile work answered %+v", r.Profile)
	}
	ev := req("browser.eval").With(args.Eval{Expr: "document.getElementById('c').textContent"})
	ev.Profile = "work"
	if got := string(h2.ok(t, ev).Value); got != `"cookies: login=carol"` {
		t.Fatalf("after the restart the profile sent %s", got)
	}
	// The other profile is another browser with none of it.
	open.Profile = "home"
	h2.ok(t, open)
	ev.Profile = "home"
	if got := string(h2.ok(t, ev).Value); got != `"cookies: "` {
		t.Fatalf("the home profile sent %s", got)
	}

	// Detaching closes the session's tabs there; a bare command with one
	// attachment left acts on it.
	det := req("browser.detach")
	det.Profile = "home"
	if r := h2.ok(t, det); len(r.Attachments) != 1 || r.Attachments[0].Handle != "work" {
		t.Fatalf("detach answered %+v", r.Attachments)
	}
	ev.Profile = ""
	if got := string(h2.ok(t, ev).Value); got != `"cookies: login=carol"` {
		t.Fatalf("bare eval after detach read %s", got)
	}
}

// TestBrowserKilledDaemonLeavesNoBrowser: a daemon killed with -9 leaves
// no browser behind: the profile's browser, its pipe closed by the
// daemon's death, shuts down cleanly by itself (its cookie written), the
// next daemon on the state directory waits until it is gone, and the
// profile's browser starts again on use with the cookie.
func TestBrowserKilledDaemonLeavesNoBrowser(t *testing.T) {
	dir := t.TempDir()
	s := newSite(t)
	h := startHarness(t, dir, Options{}, nil)
	req := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "dave"} }
	id := h.useNewProfile(t, "dave", "kept")
	open := req("browser.open").With(args.OpenURL{URL: s.URL + "/login?who=dave"})
	h.ok(t, open)
	other := daemon.Request{Verb: "browser.open", Session: "erin"}.With(args.OpenURL{URL: s.URL + "/page"})
	h.ok(t, other)
	h.pool.mu.Lock()
	pids := []int{h.pool.browsers[id].b.PID(), h.pool.browsers[""].b.PID()}
	h.pool.mu.Unlock()
	h.die(t)
	// The next daemon starts at once: the old browser may still be writing
	// its profile, and Reap must let it finish before the profile is used.
	h2 := startHarness(t, dir, Options{}, nil)
	for _, pid := range pids {
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			t.Fatalf("the restarted daemon left the old browser %d running: %v", pid, left)
		}
	}
	h.pool.Close() // the old pool's bookkeeping; its processes are gone
	open = open.With(args.OpenURL{URL: s.URL + "/echo"})
	h2.ok(t, open)
	ev := req("browser.eval").With(args.Eval{Expr: "document.getElementById('c').textContent"})
	if got := string(h2.ok(t, ev).Value); got != `"cookies: login=dave"` {
		t.Fatalf("after the restart the profile sent %s", got)
	}
}

// TestBrowserReapStopsAHungBrowser: browsers that outlived their daemon
// and did not quit (their pipes still open, as a hung browser's would be)
// are stopped by the next daemon on the state directory within its grace,
// whole groups, and the shared browser's temporary profile is removed.
func TestBrowserReapStopsAHungBrowser(t *testing.T) {
	dir := t.TempDir()
	s := newSite(t)
	h := startHarness(t, dir, Options{}, nil)
	id := h.useNewProfile(t, "dave", "kept")
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "dave"}.With(args.OpenURL{URL: s.URL + "/page"}))
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "erin"}.With(args.OpenURL{URL: s.URL + "/page"}))
	h.pool.mu.Lock()
	pids := []int{h.pool.browsers[id].b.PID(), h.pool.browsers[""].b.PID()}
	shared := h.pool.browsers[""].dir
	h.pool.mu.Unlock()
	h.detach()
	for _, pid := range pids {
		if len(cdp.GroupProcesses(pid)) == 0 {
			t.Fatalf("browser %d is gone after Detach; the test cannot tell a reap from it", pid)
		}
	}
	startHarness(t, dir, Options{}, nil)
	for _, pid := range pids {
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			t.Fatalf("the restarted daemon left the old browser %d running: %v", pid, left)
		}
	}
	if _, err := os.Stat(shared); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the shared browser's temporary profile %s: %v, want removed", shared, err)
	}
	h.pool.Close()
}

// TestBrowserCeilingAndIdleStop: one browser more than the ceiling is
// refused browser_limit, naming only the asker's own browsers; an idle
// profile browser stops by itself and frees its place.
func TestBrowserCeilingAndIdleStop(t *testing.T) {
	s := newSite(t)
	h := startHarness(t, "", Options{MaxBrowsers: 2, IdleStop: 2 * time.Second}, nil)
	mk := func(session, label string) string {
		id := h.ok(t, daemon.Request{Verb: "browser.new", Session: session}.With(args.New{Label: label})).Profile.ID
		h.ok(t, daemon.Request{Verb: "browser.use", Session: session}.With(args.Use{Label: id}))
		return id
	}
	// frank: the shared browser (his own context) and profile "Secret one".
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "frank"}.With(args.OpenURL{URL: s.URL + "/page"}))
	p1 := mk("frank", "Secret one")
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "frank"}.With(args.OpenURL{URL: s.URL + "/page"}))

	// grace has nothing running: the refusal names none of frank's.
	p2 := mk("grace", "Grace's")
	r := h.call(t, daemon.Request{Verb: "browser.open", Session: "grace"}.With(args.OpenURL{URL: s.URL + "/page"}))
	wantCode(t, r, target.CodeBrowserLimit)
	if strings.Contains(r.Message, "Secret one") || strings.Contains(r.Message, p1) || r.Facts["others"] != float64(2) {
		t.Fatalf("grace's browser_limit: %s %v", r.Message, r.Facts)
	}
	// frank's own third is refused naming his two.
	mk("frank", "Third")
	r = h.call(t, daemon.Request{Verb: "browser.open", Session: "frank", Profile: "third"}.With(args.OpenURL{URL: s.URL + "/page"}))
	wantCode(t, r, target.CodeBrowserLimit)
	if !strings.Contains(r.Message, "Secret one") || !strings.Contains(r.Message, "shared browser") || r.Facts["others"] != float64(0) {
		t.Fatalf("frank's browser_limit: %s %v", r.Message, r.Facts)
	}

	// Nobody uses frank's profile: it stops, and grace's browser starts.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for h.pool.Running(p1) {
		select {
		case <-ctx.Done():
			t.Fatal("the idle profile browser never stopped")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if r := h.ok(t, daemon.Request{Verb: "browser.open", Session: "grace"}.With(args.OpenURL{URL: s.URL + "/page"})); r.Profile == nil || r.Profile.ID != p2 {
		t.Fatalf("grace's open answered %+v", r.Profile)
	}
	// frank's tab in the stopped browser is gone from his list; the one in
	// his own context is there.
	if l := h.ok(t, daemon.Request{Verb: "list", Session: "frank"}); len(l.Targets) != 1 {
		var ids []string
		for _, x := range l.Targets {
			ids = append(ids, string(x.ID)+" "+x.Lease)
		}
		t.Fatalf("frank's list after the idle stop: %v (p1 running %v)", ids, h.pool.Running(p1))
	}
}

// TestBrowserCrashRelaunches: a browser that dies takes its tabs with it
// (tab_gone), and the next open starts it again.
func TestBrowserCrashRelaunches(t *testing.T) {
	s := newSite(t)
	h := startHarness(t, "", Options{}, nil)
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "hank"}.With(args.OpenURL{URL: s.URL + "/page"}))
	h.pool.mu.Lock()
	b := h.pool.browsers[""].b
	h.pool.mu.Unlock()
	killGroup(t.Context(), b.PID())
	<-b.Exited()
	wantCode(t, h.call(t, daemon.Request{Verb: "browser.snapshot", Session: "hank"}), target.CodeTabGone)
	wantCode(t, h.call(t, daemon.Request{Verb: "browser.snapshot", Session: "hank"}), target.CodeNoTab)
	r := h.ok(t, daemon.Request{Verb: "browser.open", Session: "hank"}.With(args.OpenURL{URL: s.URL + "/page"}))
	if r.Target == nil || r.Target.Title != "Daemon test page" {
		t.Fatalf("open after the crash: %+v", r.Target)
	}
}

func factString(v any) string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, factString(x))
		}
		return strings.Join(out, ",")
	case string:
		return v
	}
	return ""
}

// TestSharedBrowserIdleStop: the shared browser, idle past IdleStop with
// no tab and no cookie in any session's context, stops (its processes are
// gone, read in /proc) and starts again on the next open; a context that
// holds a cookie keeps it running through idle turns.
func TestSharedBrowserIdleStop(t *testing.T) {
	logs := &logCapture{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := newSite(t)
	h := startHarness(t, "", Options{Logger: log, IdleStop: time.Second}, nil)
	sharedPID := func() int {
		h.pool.mu.Lock()
		defer h.pool.mu.Unlock()
		if br := h.pool.browsers[""]; br != nil && br.alive() {
			return br.b.PID()
		}
		return 0
	}
	tab := h.ok(t, daemon.Request{Verb: "browser.open", Session: "ivy"}.With(args.OpenURL{URL: s.URL + "/page"})).Target.ID
	first := sharedPID()
	if first == 0 {
		t.Fatal("no shared browser after an open")
	}
	h.ok(t, daemon.Request{Verb: "browser.tab", Session: "ivy", Target: string(tab)}.With(args.Tab{Action: "close"}))
	waitFor(t, "the idle shared browser stops", func() bool { return sharedPID() == 0 })
	waitFor(t, "its processes end", func() bool { return len(cdp.GroupProcesses(first)) == 0 })
	if len(logs.records("INFO", "stopping the idle shared browser: none of its contexts holds a tab or a cookie")) != 1 {
		t.Error("the stop was not logged once")
	}

	// The next open starts it again.
	tab = h.ok(t, daemon.Request{Verb: "browser.open", Session: "ivy"}.With(args.OpenURL{URL: s.URL + "/login?who=ivy"})).Target.ID
	second := sharedPID()
	if second == 0 || second == first {
		t.Fatalf("the shared browser after the stop: pid %d (was %d)", second, first)
	}
	// A cookie is something the stop would lose: the browser stays.
	h.ok(t, daemon.Request{Verb: "browser.tab", Session: "ivy", Target: string(tab)}.With(args.Tab{Action: "close"}))
	const kept = "the shared browser is idle and kept: a context holds something"
	from := len(logs.records("DEBUG", kept))
	waitFor(t, "three idle turns that keep the browser", func() bool { return len(logs.records("DEBUG", kept)) >= from+3 })
	if pid := sharedPID(); pid != second {
		t.Fatalf("the shared browser holding a cookie: pid %d, want %d still running", pid, second)
	}
	for _, r := range logs.records("DEBUG", kept)[from:] {
		if r["cookies"] != float64(1) || r["tabs"] != float64(0) {
			t.Fatalf("kept for %v tabs, %v cookies; want the one cookie", r["tabs"], r["cookies"])
		}
	}
}
