package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestNoBrowserBackend: a daemon started without a browser backend refuses
// every browser verb with no_browser, says why in doctor, and still
// answers the profile words (they need no browser).
func TestNoBrowserBackend(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	for _, v := range []string{"browser.open", "browser.snapshot", "browser.tab", "browser.status"} {
		req := Request{Verb: v, Session: "s"}
		if v == "browser.open" {
			req = req.With(args.OpenURL{URL: "http://127.0.0.1:1/"})
		}
		resp := td.call(t, req)
		wantCode(t, resp, target.CodeNoBrowser)
	}
	doc := td.call(t, Request{Verb: "doctor", Session: "s"})
	var found bool
	for _, c := range doc.Checks {
		if c.Name == "browser" && !c.OK && strings.Contains(c.Detail, "no browser backend") {
			found = true
		}
	}
	if !found {
		t.Fatalf("doctor does not say why there is no browser: %+v", doc.Checks)
	}
	resp := td.call(t, Request{Verb: "browser.new", Session: "s"}.With(args.New{Label: "Work"}))
	if !resp.OK || resp.Profile == nil || !strings.HasPrefix(resp.Profile.ID, "bp-") {
		t.Fatalf("new without a browser: %+v", resp)
	}
	// Every browser verb is known to the dispatcher: the core's or a
	// registered stage's.
	for _, v := range BrowserVerbs() {
		if runs[v].run == nil && td.stages.Answerer(v) == nil {
			t.Fatalf("%s has no method", v)
		}
	}
	if got := len(BrowserVerbs()); got != 33 {
		t.Fatalf("%d browser verbs, want the contract's 23, close (a desktop app's), trace, select, find, budget, batch, the pool's borrow and return, handoff and reach", got)
	}
}
