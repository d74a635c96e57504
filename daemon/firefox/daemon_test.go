package firefox_test

import (
	"bytes"
	"fmt"
	"image/png"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// refIn is the ref of the line "role "name" … @eN" of a snapshot's text.
func refIn(t *testing.T, text, role, name string) string {
	t.Helper()
	prefix := role + " " + fmt.Sprintf("%q", name) + " "
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			for _, f := range strings.Fields(rest) {
				if strings.HasPrefix(f, "@e") {
					return f
				}
			}
		}
	}
	t.Fatalf("no %s %q with a ref in:\n%s", role, name, text)
	return ""
}

// TestDaemonFirefoxProfile: through the daemon, with Firefox beside
// Chromium as the program runs them, a profile of provider firefox opens
// its pages in a Firefox tab (tab:N): snapshot, fill, click by ref (the
// page's own click handler tells the site), screenshot and eval work by
// the daemon's verbs, and so do find, a scoped snapshot, --diff and wait;
// --headed is refused naming the provider; a profile
// of the daemon's own Chromium still opens Chromium tabs beside it.
func TestDaemonFirefoxProfile(t *testing.T) {
	testenv.NeedIntegration(t, "firefox-esr", "chromium")
	dir := t.TempDir()
	ch := chromium.New(chromium.Options{StartTimeout: 90 * time.Second})
	ff := firefox.NewPool(firefox.Options{StartTimeout: 2 * time.Minute})
	br := firefox.Beside(ch, ff)
	t.Cleanup(func() { br.Close() })
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{native.Xvfb(native.Options{})}, Browser: br, VerbTimeout: 2 * time.Minute})
	s := newSite(t, map[string]string{"/form": formPage, "/plain": `<title>Plain</title><p>plain`})
	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "ann"} }

	id := sv.OK(t, a("browser.new").With(args.New{Label: "work", Provider: provider.Firefox})).Profile.ID
	sv.OK(t, a("browser.use").With(args.Use{Label: id}))
	// A fresh Firefox takes 20-30 s to start on a loaded machine, more
	// with the race detector: started outside the first open's call.
	if err := ff.Start(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	headed := a("browser.open").With(args.OpenURL{URL: s.URL + "/form"})
	headed.Headed = true
	if r := sv.Call(t, headed); r.OK || r.Code != target.CodeNotOnThisProvider || r.Facts["provider"] != provider.Firefox {
		t.Fatalf("open --headed on a firefox profile: %+v", r)
	}
	open := sv.OK(t, a("browser.open").With(args.OpenURL{URL: s.URL + "/form"}))
	if open.Target == nil || open.Target.ID.Kind() != target.KindTab || open.Target.Title != "Form page" {
		t.Fatalf("open answered %+v", open.Target)
	}
	if !ff.Running(id) {
		t.Fatalf("the profile's tab is not Firefox's: no Firefox runs for %s", id)
	}
	snap := sv.OK(t, a("browser.snapshot"))
	name := refIn(t, snap.Text, "entry", "Name")
	goBtn := refIn(t, snap.Text, "push button", "Go")
	sv.OK(t, a("browser.fill").With(args.Fill{Ref: name, Text: "Grace Hopper"}))
	sv.OK(t, a("browser.click").With(args.Click{Ref: goBtn}))
	s.waitFor(t, t.Context(), "GET /clicked?trusted=true&name=Grace%20Hopper")
	shot := sv.OK(t, a("browser.screenshot"))
	if cfg, err := png.DecodeConfig(bytes.NewReader(shot.PNG)); err != nil || cfg.Width == 0 {
		t.Errorf("screenshot: %v %+v", err, cfg)
	}
	// The core's reads over the tab's snapshot: find, a scope, a diff;
	// and wait, on what the page's own script adds.
	if f := sv.OK(t, a("browser.find").With(args.Find{Text: "go"})); !strings.Contains(f.Text, goBtn) {
		t.Errorf("find go: %q lacks %s", f.Text, goBtn)
	}
	scoped := sv.OK(t, a("browser.snapshot").With(args.Snapshot{Observe: args.Observe{Ref: name}}))
	if !strings.Contains(scoped.Text, `"Name"`) || strings.Contains(scoped.Text, "Sign in") {
		t.Errorf("snapshot %s is not the field alone:\n%s", name, scoped.Text)
	}
	sv.OK(t, a("browser.snapshot"))
	sv.OK(t, a("browser.eval").With(args.Eval{Expr: `setTimeout(() => { const b = document.createElement("button"); b.id = "later"; b.textContent = "Later"; document.body.append(b); }, 300), 1`}))
	sv.OK(t, a("browser.wait").With(args.Wait{Selector: "#later"}))
	diff := sv.OK(t, a("browser.snapshot").With(args.Snapshot{Observe: args.Observe{Diff: true}}))
	if !strings.Contains(diff.Text, `"Later"`) || strings.Contains(diff.Text, "Sign in") {
		t.Errorf("snapshot --diff after a button came:\n%s", diff.Text)
	}
	ev := sv.OK(t, a("browser.eval").With(args.Eval{Expr: "navigator.userAgent.includes('Firefox')"}))
	if string(ev.Value) != "true" {
		t.Errorf("eval in the profile's tab: %+v, want a Firefox", ev)
	}

	// Another session, the daemon's own Chromium: its tab is Chromium's.
	b := daemon.Request{Verb: "browser.open", Session: "bob"}.With(args.OpenURL{URL: s.URL + "/plain"})
	sv.OK(t, b)
	ev = sv.OK(t, daemon.Request{Verb: "browser.eval", Session: "bob"}.With(args.Eval{Expr: "navigator.userAgent.includes('Firefox')"}))
	if string(ev.Value) != "false" {
		t.Errorf("eval in the Chromium tab: %+v", ev)
	}
}
