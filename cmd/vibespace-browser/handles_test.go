package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// Issue 15, on a real Chromium: a tab's handle is tab:N, minted by the
// daemon and never twice — across tabs closing and across a daemon killed
// and started again (its tabs die with it; their numbers stay spent). The
// CDP target id is in --json (cdp_id, tab list too) and a handle of that
// old form is refused naming the tab's handle. A click's answer has one
// header line: the tab, its title, the lease and the profile. Before, the
// handle was tab:<32 hex characters> and the header two lines.
func TestShortTabHandlesAndOneHeaderLine(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	site := newSite(t)

	seen := map[target.ID]bool{}
	last := 0
	mint := func(args ...string) target.ID {
		t.Helper()
		r := e.OKJSON("s1", args...)
		id := r.Target.ID
		n := id.TabNumber()
		if n == 0 || string(id) != fmt.Sprintf("tab:%d", n) || seen[id] || n <= last {
			t.Fatalf("%v minted %q after tab:%d", args, id, last)
		}
		if r.Target.CDPID == "" || strings.Contains(r.Did, r.Target.CDPID) || !strings.Contains(r.Did, string(id)) {
			t.Fatalf("%v: cdp_id %q, did %q", args, r.Target.CDPID, r.Did)
		}
		seen[id], last = true, n
		return id
	}
	first := mint("open", site.URL+"/form")
	for range 3 {
		mint("tab", "new")
		e.OK("s1", "tab", "close") // the current one: the new tab
	}
	second := mint("tab", "new", site.URL+"/list")

	// tab list: both, each with its CDP id; the text names the short
	// handles, the current one marked.
	list := e.OKJSON("s1", "tab")
	cdp := map[target.ID]string{}
	for _, ti := range list.Targets {
		cdp[ti.ID] = ti.CDPID
	}
	if len(list.Targets) != 2 || cdp[first] == "" || cdp[second] == "" || cdp[first] == cdp[second] {
		t.Fatalf("tab list: %+v", list.Targets)
	}
	if out := e.OK("s1", "tab"); !strings.Contains(out, "  "+string(first)+` "Sign up" `) || !strings.Contains(out, "* "+string(second)+` "List" `) || strings.Contains(out, cdp[first]) {
		t.Fatalf("tab list:\n%s", out)
	}

	// The old form names the tab's handle and changes nothing.
	r := e.RefusedJSON("unknown_target", "s1", "tab", "tab:"+cdp[first])
	if r.Facts["handle"] != string(first) {
		t.Fatalf("tab tab:<cdp id>: %+v", r)
	}
	if cur := e.OKJSON("s1", "get", "url"); cur.Target.ID != second {
		t.Fatalf("a refused select made %s current", cur.Target.ID)
	}

	// A click's answer: one header line with the tab, its title, the
	// lease and the profile, and the click reached the page (its own
	// report).
	e.OK("s1", "tab", strings.TrimPrefix(string(first), "tab:")) // "3" is tab:3
	save := textRef(t, e.OK("s1", "snapshot", "-i"), "push button", "Save")
	from := site.NReports()
	out := e.OK("s1", "click", save)
	rep := site.WaitReport(t, from, "the save", func(r report) bool { return r.Event == "save" })
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var heads []string
	for _, l := range lines {
		if strings.Contains(l, "lease: ") || strings.Contains(l, "profile: ") || strings.HasPrefix(l, "tab:") {
			heads = append(heads, l)
		}
	}
	want := func(title string) string {
		return fmt.Sprintf("%s %q · lease: yours · profile: own ephemeral", first, title)
	}
	if len(heads) != 1 || heads[0] != lines[0] || (heads[0] != want("Sign up") && heads[0] != want(rep.Title)) {
		t.Fatalf("the click's answer has %d header lines, want one %q:\n%s", len(heads), want("Sign up"), out)
	}

	// A daemon killed and started again: the tabs died with it, their
	// handles are tab_gone, and new tabs take new numbers.
	e.Kill9()
	e.Serve()
	after := mint("open", site.URL+"/list")
	if after == first || after == second {
		t.Fatalf("after a restart a tab was given %s again", after)
	}
	if r := e.RefusedJSON("tab_gone", "s1", "tab", string(second)); !strings.Contains(r.Message, string(second)) {
		t.Fatalf("tab %s after a restart: %+v", second, r)
	}
}
