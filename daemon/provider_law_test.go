package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// keysOf counts the key events the fake browser's tabs received.
func keysOf(b *kindtest.Browser, kind string) int {
	n := 0
	for _, e := range b.Events() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// lawDaemon is a daemon of the fake browser reading rows, with session a
// holding one tab of a cdp profile.
func lawDaemon(t *testing.T, rows []provider.Row) (*testDaemon, *keyBrowser) {
	t.Helper()
	br := &keyBrowser{Browser: kindtest.NewBrowser()}
	td := startDaemonWith(t, nil, "", func(c *Config) {
		c.Displays = []kind.DisplayProvider{&kindtest.Provider{}}
		c.Browser = br
		c.Providers = rows
	})
	wantCode(t, td.call(t, Request{Verb: "browser.new", Session: "a"}.With(args.New{Label: "theirs", Provider: provider.CDP, Endpoint: "ws://127.0.0.1:9/devtools/browser/abc"})), "")
	wantCode(t, td.call(t, Request{Verb: "browser.use", Session: "a"}.With(args.Use{Label: "theirs"})), "")
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})), "")
	return td, br
}

// TestProviderLaw: a verb of the capability law that the profile's row
// cannot do (a cdp row given key among its Cannot: no row of the table
// says so today) is refused not_on_this_provider, naming the provider and
// the row's reason, before the browser is asked for anything (no context
// asked, no key reaches the tab); the verbs the row can do still run, and
// list shows the refusal among the tab's capabilities. The table as it is
// lets the same key through.
func TestProviderLaw(t *testing.T) {
	const why = "a test's row: keys do not travel there"
	var rows []provider.Row
	for _, r := range provider.All() {
		if r.Name == provider.CDP {
			r.Cannot = append(r.Cannot, provider.Cannot{Feature: string(target.VerbKey), Why: why})
		}
		rows = append(rows, r)
	}
	td, br := lawDaemon(t, rows)
	asked := len(br.asked())
	r := td.call(t, Request{Verb: "browser.key", Session: "a"}.With(args.Key{Chord: "Return"}))
	wantCode(t, r, target.CodeNotOnThisProvider)
	if r.Facts["provider"] != provider.CDP || r.Facts["reason"] != why || r.Facts["feature"] != "key" || !strings.Contains(r.Message, "provider cdp") {
		t.Fatalf("the refusal does not name the provider and why: %+v", r)
	}
	if n := len(br.asked()); n != asked {
		t.Fatalf("the refused verb reached the browser: %d contexts asked, %d before", n, asked)
	}
	if n := keysOf(br.Browser, "key"); n != 0 {
		t.Fatalf("the refused key reached the tab (%d key events)", n)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.type", Session: "a"}.With(args.Type{Text: "hi"})), "")
	if n := keysOf(br.Browser, "type"); n != 1 {
		t.Fatalf("type, which the row can do, did not reach the tab (%d type events)", n)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.snapshot", Session: "a"}), "")

	list := td.call(t, Request{Verb: "list", Session: "a"})
	wantCode(t, list, "")
	var tab *TargetInfo
	for i := range list.Targets {
		if list.Targets[i].ID.Kind() == target.KindTab {
			tab = &list.Targets[i]
		}
	}
	if tab == nil {
		t.Fatalf("list shows no tab: %+v", list.Targets)
	}
	seen := false
	for _, c := range tab.Capabilities {
		switch {
		case c.Verb == target.VerbKey:
			seen = true
			if c.OK() || c.Refusal.Code != target.CodeNotOnThisProvider || c.Refusal.Facts["provider"] != provider.CDP || c.Refusal.Facts["reason"] != why {
				t.Errorf("list shows key as %+v", c)
			}
		case !c.OK():
			t.Errorf("list refuses %s, which the row can do: %+v", c.Verb, c)
		}
	}
	if !seen {
		t.Errorf("list shows no key: %+v", tab.Capabilities)
	}

	// The table itself: a cdp tab takes the same key.
	td2, br2 := lawDaemon(t, nil)
	wantCode(t, td2.call(t, Request{Verb: "browser.key", Session: "a"}.With(args.Key{Chord: "Return"})), "")
	if n := keysOf(br2.Browser, "key"); n != 1 {
		t.Fatalf("the table's cdp row: %d key events, want 1", n)
	}
}
