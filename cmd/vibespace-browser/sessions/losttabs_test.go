package sessions_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/daemon"
)

// Issue 35 row 4, on a real daemon and Chromium: a daemon killed with -9
// takes its browser, and every tab in it, with it. The next daemon tells
// each session that could address them, once, on its next browser answer,
// which of its tabs were lost and at what address (as state.json kept it:
// no query). Before, tab list just said "0 tab(s)" and the tabs vanished
// without a word.
func TestLostTabsAreToldAfterADaemonKill(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)

	form := e.OKJSON("s1", "open", site.URL+"/form?token=s3cret").Target.ID
	list := e.OKJSON("s1", "tab", "new", site.URL+"/list").Target.ID
	other := e.OKJSON("s2", "open", site.URL+"/list").Target.ID
	e.OK("s3", "tab") // a session with no tab: nothing of its own is lost

	e.Kill9()
	e.Serve()

	want := string(form) + " (" + site.URL + "/form) and " + string(list) + " (" + site.URL + "/list) were lost when the daemon restarted"
	first := e.OK("s1", "tab")
	if !strings.Contains(first, "note: "+want+"\n") {
		t.Fatalf("s1's first browser answer after the kill does not name its lost tabs (want note %q):\n%s", want, first)
	}
	if strings.Contains(first, "s3cret") || strings.Contains(first, string(other)) {
		t.Fatalf("s1's note tells a query, or another session's tab:\n%s", first)
	}
	if second := e.OK("s1", "tab"); strings.Contains(second, "note: ") {
		t.Fatalf("s1 was told twice:\n%s", second)
	}

	// s2's tab is told to s2 alone, on its next browser word (open too).
	got := e.OKJSON("s2", "open", site.URL+"/form")
	if want := string(other) + " (" + site.URL + "/list) was lost when the daemon restarted"; got.Note != want {
		t.Fatalf("s2's first answer after the kill: note %q, want %q", got.Note, want)
	}
	if again := e.OKJSON("s2", "tab"); again.Note != "" {
		t.Fatalf("s2 was told twice: %q", again.Note)
	}
	if out := e.OK("s3", "tab"); strings.Contains(out, "note: ") {
		t.Fatalf("s3, which had no tab, was told:\n%s", out)
	}
}

// A daemon stopped on purpose (SIGTERM: Close) closes its tabs on purpose:
// the next daemon owes no word of them.
func TestStoppedDaemonOwesNoLostTabs(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)
	e.OK("s1", "open", site.URL+"/list")
	e.Stop()
	e.Serve()
	if out := e.OK("s1", "tab"); strings.Contains(out, "note: ") || !strings.Contains(out, "0 tab(s)") {
		t.Fatalf("after a daemon stopped on purpose:\n%s", out)
	}
}

// A verb cut on a tab by the kill, and the tab lost: one answer carries
// both facts, each once — the cut verb (cut.go's words) and the tab lost
// with its address.
func TestCutVerbOnALostTab(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)
	tab := string(e.OKJSON("s1", "open", site.URL+"/long").Target.ID)
	notes := ref(t, e.Snapshot("s1", "-i"), "entry", "Notes")

	from := site.NReports()
	var wg sync.WaitGroup
	var typed daemon.Response
	wg.Go(func() {
		r := e.CLI("s1", "--json", "type", notes, strings.Repeat("cut-by-a-kill ", 100))
		json.Unmarshal([]byte(r.Out), &typed)
	})
	site.WaitReport(t, from, "the first typed key", func(r report) bool { return r.Event == "typing" })
	e.Kill9()
	wg.Wait()
	if typed.OK {
		t.Fatalf("the type the daemon died in answered ok: %+v", typed)
	}
	if e.DaemonPID() == 0 {
		e.Serve()
	}

	got := e.OKJSON("s1", "tab").Note
	cut := "type on " + tab + " (gone since) by s1 at "
	lost := tab + " (" + site.URL + "/long) was lost when the daemon restarted"
	if strings.Count(got, cut) != 1 || !strings.Contains(got, "was cut by a daemon restart; its effect is unknown") || strings.Count(got, lost) != 1 {
		t.Fatalf("the first answer after the kill: note %q, want the cut type (%q…) and the lost tab (%q), each once", got, cut, lost)
	}
	if again := e.OKJSON("s1", "tab").Note; again != "" {
		t.Fatalf("told twice: %q", again)
	}
}
