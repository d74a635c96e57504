package chromium

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// TestContextCap: the shared browser holds at most MaxContexts sessions'
// contexts. A session more waits as long as its verb may and is refused
// pool_busy with its place; a context that holds nothing (its tab closed,
// no cookie) is disposed of for it, and it browses; one that holds a
// cookie is never taken.
func TestContextCap(t *testing.T) {
	logs := &logCapture{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s := newSite(t)
	h := startHarness(t, "", Options{Logger: log, IdleStop: -1, MaxContexts: 2, ContextCapWhy: "two, for the test", ContextWait: 2 * time.Second}, nil)
	open := func(session, path string) daemon.Response {
		return h.call(t, daemon.Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: s.URL + path}))
	}
	must := func(r daemon.Response) daemon.Response {
		t.Helper()
		if !r.OK {
			t.Fatalf("refused %s: %s %v", r.Code, r.Message, r.Facts)
		}
		return r
	}
	closeTab := func(session string, id target.ID) {
		h.ok(t, daemon.Request{Verb: "browser.tab", Session: session, Target: string(id)}.With(args.Tab{Action: "close"}))
	}
	// amy keeps a tab; bob keeps a cookie, his tab closed.
	amyTab := must(open("amy", "/page")).Target.ID
	bobTab := must(open("bob", "/login?who=bob")).Target.ID
	closeTab("bob", bobTab)

	// cal waits his 2 s and is told his place.
	r := open("cal", "/page")
	wantCode(t, r, target.CodePoolBusy)
	if r.Facts["position"] != float64(1) || r.Facts["queued"] != float64(1) || r.Facts["cap"] != float64(2) {
		t.Fatalf("pool_busy facts %v", r.Facts)
	}
	if n := len(logs.records("INFO", "an empty browser context disposed of for a session waiting under the cap")); n != 0 {
		t.Fatalf("%d contexts disposed of while both held something", n)
	}

	// amy's tab closes: her context holds nothing, and cal gets its slot.
	closeTab("amy", amyTab)
	calTab := must(open("cal", "/page")).Target.ID
	if got := logs.records("INFO", "an empty browser context disposed of for a session waiting under the cap"); len(got) != 1 {
		t.Fatalf("%d empty contexts disposed of, want amy's one", len(got))
	}
	if got := h.ok(t, daemon.Request{Verb: "browser.get", Session: "cal", Target: string(calTab)}.With(args.Get{What: "title"})); got.Text != "Daemon test page" {
		t.Fatalf("cal's tab: %q", got.Text)
	}
	// bob's context kept his cookie: the site echoes what he sends.
	must(open("bob", "/echo"))
	if got := h.ok(t, daemon.Request{Verb: "browser.get", Session: "bob"}.With(args.Get{What: "text"})); !strings.Contains(got.Text, "cookies: login=bob") {
		t.Fatalf("bob's cookie after the cap took amy's context: %q", got.Text)
	}
	// cal's tab and bob's hold the two slots: amy waits again.
	wantCode(t, open("amy", "/page"), target.CodePoolBusy)
}
