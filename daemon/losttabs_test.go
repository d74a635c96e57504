package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// startBrowserDaemon runs a daemon with a fake browser and state in dir.
func startBrowserDaemon(t *testing.T, dir string) *testDaemon {
	t.Helper()
	return startDaemonWith(t, nil, dir, func(c *Config) {
		c.Displays = []kind.DisplayProvider{&kindtest.Provider{}}
		c.Browser = kindtest.NewBrowser()
	})
}

// TestLostTabsToldOnce (issue 35 row 4): the tabs a killed daemon had open
// (Detach plays the kill) are owed to their sessions: one notice each,
// naming every tab lost and its address as state.json kept it (no query),
// told on the session's next browser answer only — a window's answer does
// not carry it — and once, even when a second daemon is killed before it
// was told.
func TestLostTabsToldOnce(t *testing.T) {
	dir := t.TempDir()
	td := startBrowserDaemon(t, dir)
	open := func(td *testDaemon, s, url string, new bool) target.ID {
		t.Helper()
		req := Request{Verb: "browser.open", Session: s}.With(args.OpenURL{URL: url})
		if new {
			req = Request{Verb: "browser.tab", Session: s}.With(args.Tab{Action: "new", URL: url})
		}
		resp := td.call(t, req)
		wantCode(t, resp, "")
		return resp.Target.ID
	}
	a1 := open(td, "a", "http://127.0.0.1:1/first?token=s3cret", false)
	a2 := open(td, "a", "about:blank", true)
	// A tab that navigated: the address it was last at is kept.
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/second#frag"})), "")
	b1 := open(td, "b", "http://127.0.0.1:2/b", false)
	td.Detach()
	<-td.done

	// Killed again before anybody asked: what is owed is kept, once.
	td2 := startBrowserDaemon(t, dir)
	td2.Detach()
	<-td2.done

	td3 := startBrowserDaemon(t, dir)
	if r := td3.call(t, Request{Verb: "list", Session: "a"}); strings.Contains(r.Note, "lost") {
		t.Fatalf("a window's answer told of tabs: %q", r.Note)
	}
	r := td3.call(t, Request{Verb: "browser.tab", Session: "a"})
	wantCode(t, r, "")
	want := string(a1) + " (http://127.0.0.1:1/first) and " + string(a2) + " (http://127.0.0.1:1/second) were lost when the daemon restarted"
	if r.Note != want {
		t.Fatalf("a's first browser answer: note %q, want %q", r.Note, want)
	}
	if r := td3.call(t, Request{Verb: "browser.tab", Session: "a"}); r.Note != "" {
		t.Fatalf("told twice: %q", r.Note)
	}
	if r := td3.call(t, Request{Verb: "browser.tab", Session: "c"}); r.Note != "" {
		t.Fatalf("told to a session with no tab: %q", r.Note)
	}
	r = td3.call(t, Request{Verb: "browser.snapshot", Session: "b"})
	wantCode(t, r, target.CodeNoTab)
	if want := string(b1) + " (http://127.0.0.1:2/b) was lost when the daemon restarted"; r.Note != want {
		t.Fatalf("b's first browser answer (refused no_tab): note %q, want %q", r.Note, want)
	}
}

// TestClosedDaemonOwesNoLostTabs: a daemon stopped on purpose (Close)
// closes its tabs on purpose; the next one says nothing of them.
func TestClosedDaemonOwesNoLostTabs(t *testing.T) {
	dir := t.TempDir()
	td := startBrowserDaemon(t, dir)
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/x"})), "")
	td.Close()
	<-td.done
	td2 := startBrowserDaemon(t, dir)
	if r := td2.call(t, Request{Verb: "browser.tab", Session: "a"}); r.Note != "" {
		t.Fatalf("after a Close: note %q", r.Note)
	}
}
