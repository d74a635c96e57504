package realapps_test

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// The real-application matrix: applications from Debian that nobody here
// wrote, each driven through the CLI as an agent drives it — by its tree
// alone — and each effect read from something other than vibespace: a
// file the application saved, a request its page made to a server of the
// test's own, a path the GTK file chooser handed its caller, a result read
// by pyatspi (libatspi, another reader of the same tree). Each
// application is alive at the end of its row. One daemon and one session
// for the whole matrix; each application is started once.
func TestRealApps(t *testing.T) {
	testenv.NeedIntegration(t, "soffice", "firefox-esr", "kcalc", "gnome-calculator", "/usr/bin/python3")
	e := newEnv(t)
	// An office suite's first start (its profile made) takes longer than
	// the default bound of a verb on a loaded 2-core machine.
	e.StartServe("--verb-timeout", "120s")
	rows := []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"kcalc (Qt 5, KDE)", kcalcRow},
		{"gnome-calculator (GTK 4)", gnomeCalculatorRow},
		{"gtk3 file chooser", fileChooserRow},
		{"libreoffice writer", writerRow},
		{"firefox-esr window", firefoxRow},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			parent := e.T
			e.T = t // the CLI helpers fail this row, not the matrix
			defer func() { e.T = parent }()
			t0 := time.Now()
			r.run(t, e)
			t.Logf("%s: %.1f s", r.name, time.Since(t0).Seconds())
		})
	}
}

// realSession is the matrix's one session.
const realSession = "real"

// openApp opens argv and answers its window's handle and process.
func openApp(t *testing.T, e *env, argv ...string) (string, int) {
	t.Helper()
	resp := e.Answer(realSession, append([]string{"open"}, argv...)...)
	if !resp.OK || resp.Target == nil {
		t.Fatalf("open %v: %+v", argv, resp)
	}
	if e.Desk == nil {
		e.ReadDesk()
	}
	id, pid := string(resp.Target.ID), resp.Target.PID
	t.Cleanup(func() {
		// The application is alive after all we did to it; then it is
		// closed (the daemon's own close, then its process group).
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("%v (pid %d) is not alive at the end of its row: %v", argv, pid, err)
		}
		e.Answer(realSession, "close", id)
	})
	return id, pid
}

// snap is the window's tree, waited for (bounded) until has finds what
// the row needs in it: an application fills its window after it maps it.
func snap(t *testing.T, e *env, id, what string, has func(*target.Snapshot) bool) *target.Snapshot {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp := e.Answer(realSession, "snapshot", id)
		if resp.OK && resp.Snapshot != nil && has(resp.Snapshot) {
			return resp.Snapshot
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree of %s never showed %s; last answer: %s %s", id, what, resp.Code, resp.Message)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// find is the first node of s (depth first) that match accepts, or nil.
func find(s *target.Snapshot, match func(*target.Node) bool) *target.Node {
	var walk func(n *target.Node) *target.Node
	walk = func(n *target.Node) *target.Node {
		if n == nil {
			return nil
		}
		if match(n) {
			return n
		}
		for _, c := range n.Children {
			if f := walk(c); f != nil {
				return f
			}
		}
		return nil
	}
	return walk(s.Root)
}

// named matches a node of role whose name is name.
func named(role, name string) func(*target.Node) bool {
	return func(n *target.Node) bool { return n.Role == role && n.Name == name }
}

// refOf is the ref of the node match finds in s; the row fails without it.
func refOf(t *testing.T, s *target.Snapshot, what string, match func(*target.Node) bool) string {
	t.Helper()
	n := find(s, match)
	if n == nil || n.Ref == "" {
		t.Fatalf("no %s in the tree of %s", what, s.Target)
	}
	return n.Ref
}

// acted runs an acting verb and fails the row unless it ran.
func acted(t *testing.T, e *env, args ...string) wire.Response {
	t.Helper()
	resp := e.Answer(realSession, args...)
	if !resp.OK {
		t.Fatalf("%s: %s %s", strings.Join(args, " "), resp.Code, resp.Message)
	}
	effect := ""
	if resp.Effect != nil {
		effect = string(resp.Effect.Word)
	}
	t.Logf("%s: by %s, %s (%s)", args[0], resp.By, effect, resp.Did)
	return resp
}

// pyatspiTexts is what pyatspi (libatspi, not us) reads of every node of
// the application with pid: one line per node, "role\tname\ttext".
func pyatspiTexts(t *testing.T, e *env, pid int) string {
	t.Helper()
	script := filepath.Join(e.Dir, "texts.py")
	if err := os.WriteFile(script, []byte(pyatspiTextsScript), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", script, strconv.Itoa(pid))
	cmd.Env = []string{"DISPLAY=" + e.Desk.Display, "DBUS_SESSION_BUS_ADDRESS=" + e.Desk.BusAddress,
		"XDG_RUNTIME_DIR=" + filepath.Join(e.Desk.Dir, "run"), "HOME=" + filepath.Join(e.Desk.Dir, "home"), "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pyatspi: %v\n%s", err, out)
	}
	return string(out)
}

const pyatspiTextsScript = `
import sys, pyatspi
pid = int(sys.argv[1])
def walk(o, depth=0):
    if o is None or depth > 60:
        return
    try:
        text = ''
        try:
            t = o.queryText()
            text = t.getText(0, min(t.characterCount, 200))
        except NotImplementedError:
            pass
        print('%s\t%s\t%s' % (o.getRoleName(), o.name, text.replace('\n', ' ')))
        for c in o:
            walk(c, depth + 1)
    except Exception as e:
        print('unreadable\t%s\t' % e)
for app in pyatspi.Registry.getDesktop(0):
    if app is not None and app.get_process_id() == pid:
        walk(app)
`

// waitPyatspi waits (bounded) until pyatspi reads a line has accepts.
func waitPyatspi(t *testing.T, e *env, pid int, what string, has func(line string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := pyatspiTexts(t, e, pid)
		for _, l := range strings.Split(out, "\n") {
			if has(l) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pyatspi never read %s; it read:\n%s", what, out)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// pressKeys clicks a calculator's keys by ref, each through its Action.
func pressKeys(t *testing.T, e *env, id string, s *target.Snapshot, keys ...string) {
	t.Helper()
	for _, k := range keys {
		acted(t, e, "click", id, refOf(t, s, "key "+k, named("push button", k)))
	}
}

// kcalcRow: KDE's calculator (Qt 5, KDE Frameworks) computes 12+3 from its
// keys pressed by ref; pyatspi reads 15 in its display.
func kcalcRow(t *testing.T, e *env) {
	id, pid := openApp(t, e, "kcalc")
	s := snap(t, e, id, "its keys", func(s *target.Snapshot) bool { return find(s, named("push button", "=")) != nil })
	pressKeys(t, e, id, s, "1", "2", "+", "3", "=")
	waitPyatspi(t, e, pid, `the display "15"`, func(l string) bool { return strings.HasPrefix(l, "frame\t15\t") })
}

// gnomeCalculatorRow: GNOME's calculator (GTK 4) computes 7×6; pyatspi
// reads 42 in its result.
func gnomeCalculatorRow(t *testing.T, e *env) {
	id, pid := openApp(t, e, "gnome-calculator")
	s := snap(t, e, id, "its keys", func(s *target.Snapshot) bool { return find(s, named("push button", "=")) != nil })
	pressKeys(t, e, id, s, "7", "×", "6", "=")
	waitPyatspi(t, e, pid, "the result 42", func(l string) bool {
		f := strings.Split(l, "\t")
		return len(f) == 3 && strings.TrimSpace(f[2]) == "42"
	})
}

// fileChooserRow: GTK 3's own file chooser (a dialog a fixture opens and
// whose answer it logs) returns the path typed into its location field.
func fileChooserRow(t *testing.T, e *env) {
	want := filepath.Join(e.Dir, "chosen.txt")
	if err := os.WriteFile(want, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(e.Dir, "filechooser.jsonl")
	src := wintest.Fixture(t, "filechooser.py")
	id, _ := openApp(t, e, testenv.FixturePython, src, "--log", logPath)
	log := testenv.OpenFixtureLog(logPath)
	wait(t, log, 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	// The chooser's location field: GTK shows it on ctrl+L.
	acted(t, e, "key", id, "ctrl+l")
	isLocation := func(n *target.Node) bool {
		return n.Role == "text" && hasState(n, "editable") && hasState(n, "showing")
	}
	s := snap(t, e, id, "its location field", func(s *target.Snapshot) bool { return find(s, isLocation) != nil })
	loc := refOf(t, s, "the location field", isLocation)
	acted(t, e, "type", id, loc, want)
	// GTK checks the typed path before it lets Open be pressed: as an
	// agent would, look again until it can be.
	s = snap(t, e, id, "Open enabled", func(s *target.Snapshot) bool {
		n := find(s, named("push button", "Open"))
		return n != nil && hasState(n, "sensitive")
	})
	acted(t, e, "click", id, refOf(t, s, "the Open button", named("push button", "Open")))
	ev := wait(t, log, 0, "the chooser's answer", func(ev testenv.Event) bool { return ev.Type == "chosen" })
	if ev.Text != want {
		t.Fatalf("the file chooser returned %q, want %q", ev.Text, want)
	}
}

func hasState(n *target.Node, st string) bool {
	for _, s := range n.States {
		if s == st {
			return true
		}
	}
	return false
}

// writerRow: LibreOffice Writer (its GTK 3 plugin): text typed by ref into
// the document's paragraph, saved through its own Save As dialog (the
// name field filled by ref, Save clicked by ref); the saved file's own
// content.xml holds the text.
func writerRow(t *testing.T, e *env) {
	profile := "file://" + filepath.Join(e.Dir, "lo-profile")
	id, _ := openApp(t, e, "soffice", "--", "--writer", "--norestore", "--nologo", "-env:UserInstallation="+profile)
	s := snap(t, e, id, "the document's paragraph", func(s *target.Snapshot) bool { return find(s, isParagraph) != nil })
	const words = "Typed by vibespace into Writer"
	acted(t, e, "type", id, refOf(t, s, "the paragraph", isParagraph), words)

	before := windowsOf(t, e)
	acted(t, e, "key", id, "ctrl+shift+s")
	dialog := newWindow(t, e, before, "Save")
	ds := snap(t, e, dialog, "the name field", func(s *target.Snapshot) bool { return find(s, isNameField) != nil })
	out := filepath.Join(e.Dir, "saved-by-vibespace.odt")
	acted(t, e, "fill", dialog, refOf(t, ds, "the name field", isNameField), out)
	acted(t, e, "click", dialog, refOf(t, ds, "the Save button", named("push button", "Save")))

	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := odtText(out)
		if err == nil && strings.Contains(got, words) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the saved document %s: %v; its text: %q", out, err, got)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func isParagraph(n *target.Node) bool {
	return n.Role == "paragraph" && hasState(n, "editable") && hasState(n, "showing")
}

func isNameField(n *target.Node) bool {
	return n.Role == "text" && hasState(n, "editable") && strings.HasPrefix(n.Name, "Name")
}

// odtText is the text of an OpenDocument file's content.xml.
func odtText(path string) (string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return "", err
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != "content.xml" {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return "", err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return string(b), err
	}
	return "", fmt.Errorf("no content.xml in %s", path)
}

// windowsOf is the session's windows' handles.
func windowsOf(t *testing.T, e *env) map[string]bool {
	t.Helper()
	resp := e.Answer(realSession, "list")
	if !resp.OK {
		t.Fatalf("list: %s %s", resp.Code, resp.Message)
	}
	m := map[string]bool{}
	for _, ti := range resp.Targets {
		m[string(ti.ID)] = true
	}
	return m
}

// newWindow waits (bounded) for a window titled title that was not in
// before.
func newWindow(t *testing.T, e *env, before map[string]bool, title string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := e.Answer(realSession, "list")
		for _, ti := range resp.Targets {
			if !before[string(ti.ID)] && ti.Title == title {
				return string(ti.ID)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new window %q: %+v", title, resp.Targets)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// firefoxRow: Firefox ESR as a window (Gecko's tree, not CDP): a word
// typed by ref into a page's field and a button pressed by ref; the page's
// own request to the test's server carries the word.
func firefoxRow(t *testing.T, e *env) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sent" {
			mu.Lock()
			got = append(got, r.URL.Query().Get("word"))
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>vibespace firefox row</title>
<label>Word <input id="word"></label>
<button onclick="fetch('/sent?word=' + encodeURIComponent(document.getElementById('word').value)); document.title = 'sent'">Send</button>`)
	}))
	defer srv.Close()
	profile := filepath.Join(e.Dir, "ff-profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	// Nothing but the test's own server: no first-run pages, no update,
	// telemetry, safe-browsing or captive-portal traffic.
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(firefoxPrefs), 0o600); err != nil {
		t.Fatal(err)
	}
	id, _ := openApp(t, e, "firefox-esr", "--", "--no-remote", "--profile", profile, srv.URL+"/")
	s := snap(t, e, id, "the page's field", func(s *target.Snapshot) bool { return find(s, named("entry", "Word")) != nil })
	acted(t, e, "type", id, refOf(t, s, "the field", named("entry", "Word")), "vibes")
	acted(t, e, "click", id, refOf(t, s, "the button", named("push button", "Send")))
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		g := append([]string(nil), got...)
		mu.Unlock()
		if len(g) > 0 {
			if g[0] != "vibes" {
				t.Fatalf("the page sent %q, want %q", g[0], "vibes")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the page never sent the word")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const firefoxPrefs = `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.policy.firstRunURL", "");
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.unified", false);
user_pref("app.update.enabled", false);
user_pref("app.normandy.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("network.prefetch-next", false);
user_pref("network.dns.disablePrefetch", true);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.search.update", false);
user_pref("media.gmp-manager.url", "");
user_pref("browser.discovery.enabled", false);
`
