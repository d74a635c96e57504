package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
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
	open := td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://user:pw-secret@127.0.0.1:1/some/path?token=secret-token&x=1#frag-secret"}))
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
		"https://example.com/a/b?q=1#f":    "https://example.com/a/b",
		"https://u:p@example.com:8443/x":   "https://example.com:8443/x",
		"about:blank":                      "about:blank",
		"data:text/html,<p>secret</p>":     "data:",
		"http://[::1]:80/?x":               "http://[::1]:80/",
		"":                                 "",
		"http://bad host/%zz?token=secret": "http:",
		"file:///srv/page.html?x=":         "file:///srv/page.html",
	} {
		if got := bareURL(in); got != want {
			t.Errorf("bareURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAuditRotatesAndStatusNamesTheFiles: audit.jsonl is bounded by
// Config.AuditMaxBytes, AuditKeep old files are kept, no more, and status
// names the files there are, relative to the state directory.
func TestAuditRotatesAndStatusNamesTheFiles(t *testing.T) {
	const bound = 2 << 10
	td := startDaemonWith(t, &kindtest.Provider{}, "", func(c *Config) {
		c.AuditMaxBytes, c.AuditKeep = bound, 2
		c.LogFile, c.LogKeep = filepath.Join(c.StateDir, "daemon.log"), 1
		c.Stderr = filepath.Join(c.StateDir, "daemon.stderr")
	})
	os.WriteFile(filepath.Join(td.cfg.StateDir, "daemon.log"), []byte("x\n"), 0o600)
	id := string(td.open(t, "a"))
	for range 60 {
		wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	}
	dir := td.cfg.StateDir
	for _, f := range []string{auditFile, auditFile + ".1", auditFile + ".2"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() > bound {
			t.Fatalf("%s: %v (bound %d)", f, err, bound)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, auditFile+".3")); err == nil {
		t.Fatal("a third old audit file was kept")
	}
	st := td.call(t, Request{Verb: "status", Session: "a"}).Status
	if got := strings.Join(st.Kept, " "); got != "audit.jsonl audit.jsonl.1 audit.jsonl.2 daemon.log" || st.Stderr != "daemon.stderr" {
		t.Fatalf("status names %q, stderr %q", got, st.Stderr)
	}
}
