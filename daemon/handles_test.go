package daemon

import (
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// Issue 15: a tab's handle is short, tab:N, minted by the daemon and never
// minted twice, across tabs closing and across a daemon restart (tabs die
// with a daemon; their numbers stay spent). Windows are numbered apart.
// The CDP target id stays in every answer's target (cdp_id). Before, a
// tab's handle was tab:<its CDP target id>: 32 hex characters in every
// answer, and a restarted browser's ids could name an old handle again.
func TestTabHandlesShortNeverReused(t *testing.T) {
	dir := t.TempDir()
	br := kindtest.NewBrowser()
	td := startKinds(t, dir, br, &kindtest.Provider{})
	seen := map[target.ID]bool{}
	last := 0
	mint := func(td *testDaemon, br *kindtest.Browser, r Response) target.ID {
		t.Helper()
		wantCode(t, r, "")
		id := r.Target.ID
		n := id.TabNumber()
		if n == 0 || id != target.ID(fmt.Sprintf("tab:%d", n)) {
			t.Fatalf("a tab's handle is %q, want tab:N", id)
		}
		if seen[id] || n <= last {
			t.Fatalf("%s minted after tab:%d (seen before: %v)", id, last, seen[id])
		}
		seen[id], last = true, n
		// The CDP id is the backend's own name of the tab: the double
		// says which tab it opened last.
		tabs := br.Tabs()
		info, err := tabs[len(tabs)-1].Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if r.Target.CDPID == "" || r.Target.CDPID != info.Key {
			t.Fatalf("%s: cdp_id %q, the tab's CDP id is %q", id, r.Target.CDPID, info.Key)
		}
		if !strings.Contains(r.Did, string(id)) || strings.Contains(r.Did, info.Key) {
			t.Fatalf("the answer names the tab %q, want its short handle %s alone", r.Did, id)
		}
		return id
	}
	first := mint(td, br, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})))
	if win := td.open(t, "a"); win != "win:1" {
		t.Fatalf("the first window is %s: windows are numbered apart from tabs", win)
	}
	var open []target.ID
	for i := range 12 {
		id := mint(td, br, td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "new"})))
		if i%2 == 0 { // close every other one: its number is spent
			wantCode(t, td.call(t, Request{Verb: "browser.tab", Session: "a", Target: string(id)}.With(args.Tab{Action: "close"})), "")
			continue
		}
		open = append(open, id)
	}
	// tab list: the session's tabs in number order (tab:10 after tab:9),
	// each with its CDP id.
	list := td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "list"}))
	wantCode(t, list, "")
	want := append([]target.ID{first}, open...)
	var got []target.ID
	for _, ti := range list.Targets {
		got = append(got, ti.ID)
		if ti.CDPID == "" {
			t.Fatalf("tab list: %s without its cdp_id", ti.ID)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("tab list %v, want %v", got, want)
	}
	if lines := strings.Split(list.Text, "\n"); len(lines) != len(want) || !strings.HasPrefix(lines[len(lines)-1], "* "+string(want[len(want)-1])+" ") {
		t.Fatalf("tab list text:\n%s", list.Text)
	}

	// The audit names each tab by its handle, a bare close too (before,
	// a bare tab close named no target).
	wantCode(t, td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "close"})), "")
	closes := auditRows(t, td, "browser.tab")
	if len(closes) == 0 || closes[len(closes)-1].Target != want[len(want)-1] {
		t.Fatalf("the last tab row of the audit: %+v, want %s closed", closes[len(closes)-1], want[len(want)-1])
	}
	for _, verb := range []string{"browser.open", "browser.tab"} {
		for _, row := range auditRows(t, td, verb) {
			if row.Target != "" && row.Target.TabNumber() == 0 { // tab list names none
				t.Fatalf("an audit row of %s names %q", verb, row.Target)
			}
		}
	}
	open = open[:len(open)-1]

	// A restart: the tabs die with the daemon, their numbers do not come
	// back (the double's second browser names its tabs as the first did).
	td.Close()
	<-td.done
	br2 := kindtest.NewBrowser()
	td2 := startKinds(t, dir, br2, &kindtest.Provider{})
	mint(td2, br2, td2.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})))
	// A handle of the earlier daemon's tab is told it closed, and
	// reaches nothing.
	r := td2.call(t, Request{Verb: "browser.tab", Session: "a", Target: string(open[0])}.With(args.Tab{Action: "select"}))
	wantCode(t, r, target.CodeTabGone)
	if !strings.Contains(r.Message, string(open[0])) {
		t.Fatalf("tab select %s after a restart: %q", open[0], r.Message)
	}
	if w := td2.open(t, "a"); w != "win:2" {
		t.Fatalf("the first window after the restart is %s, want win:2", w)
	}
}

// A handle of the old form, tab:<CDP target id>, is refused unknown_target
// naming the tab's short handle (a target has one name: answers, audit rows,
// leases and notes use it); it changes nothing. One that names no tab says
// what a tab's handle is.
func TestTabHandleOfTheOldForm(t *testing.T) {
	br := kindtest.NewBrowser()
	td := startKinds(t, "", br, &kindtest.Provider{})
	first := td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, first, "")
	second := td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "new"}))
	wantCode(t, second, "")
	old := "tab:" + first.Target.CDPID
	for _, req := range []Request{
		Request{Verb: "browser.tab", Target: old}.With(args.Tab{Action: "select"}),
		Request{Verb: "browser.tab", Target: old}.With(args.Tab{Action: "close"}),
		Request{Verb: "takeover", Target: old},
		Request{Verb: "watch", Target: old},
	} {
		req.Session = "a"
		r := td.call(t, req)
		wantCode(t, r, target.CodeUnknownTarget)
		if r.Facts["handle"] != string(first.Target.ID) || !strings.Contains(r.Message, "use "+string(first.Target.ID)) {
			t.Fatalf("%s %s: %+v, want it to name %s", req.Verb, old, r, first.Target.ID)
		}
	}
	if tabs := br.Tabs(); tabs[0].Closed() {
		t.Fatal("a refused close closed the tab")
	}
	cur := td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "list"}))
	if !strings.Contains(cur.Text, "* "+string(second.Target.ID)+" ") {
		t.Fatalf("a refused select changed the current tab:\n%s", cur.Text)
	}
	r := td.call(t, Request{Verb: "browser.tab", Session: "a", Target: "tab:NOSUCHCDPID"}.With(args.Tab{Action: "select"}))
	wantCode(t, r, target.CodeUnknownTarget)
	if r.Facts["handle"] != nil || !strings.Contains(r.Message, "tab:N") {
		t.Fatalf("an old-form handle of no tab: %+v", r)
	}
	// The short handle reaches it.
	wantCode(t, td.call(t, Request{Verb: "browser.tab", Session: "a", Target: string(first.Target.ID)}.With(args.Tab{Action: "select"})), "")
}
