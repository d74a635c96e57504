package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
)

// TestStateKeepsNoQueryOfATab: state.json keeps a tab's scheme, host and
// path, never its query, fragment or userinfo (a query can hold a secret).
func TestStateKeepsNoQueryOfATab(t *testing.T) {
	br := kindtest.NewBrowser()
	td := startKinds(t, "", br, &kindtest.Provider{})
	open := td.call(t, Request{Verb: "browser.open", Session: "a", URL: "http://user:pw-secret@127.0.0.1:1/some/path?token=secret-token&x=1#frag-secret"})
	wantCode(t, open, "")
	if !strings.Contains(open.Target.App, "token=secret-token") {
		t.Fatalf("the agent's answer names the address it opened: %+v", open.Target)
	}
	// The tab went to its address after it was first written: the next
	// write (any lease change) writes what it reads now.
	if err := td.persist(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(td.cfg.StateDir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	st := string(b)
	if !strings.Contains(st, `"http://127.0.0.1:1/some/path"`) {
		t.Fatalf("state.json lost the tab's address:\n%s", st)
	}
	for _, secret := range []string{"secret", "token=", "frag", "user:", "?"} {
		if strings.Contains(st, secret) {
			t.Fatalf("state.json holds %q:\n%s", secret, st)
		}
	}
}

func TestBareURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a/b?q=1#f":     "https://example.com/a/b",
		"https://u:p@example.com:8443/x":    "https://example.com:8443/x",
		"about:blank":                       "about:blank",
		"data:text/html,<p>secret</p>":      "data:",
		"http://[::1]:80/?x":                "http://[::1]:80/",
		"":                                  "",
		"http://bad host/%zz?token=secret":  "http:",
		"file:///home/someone/page.html?x=": "file:///home/someone/page.html",
	} {
		if got := bareURL(in); got != want {
			t.Errorf("bareURL(%q) = %q, want %q", in, got, want)
		}
	}
}
