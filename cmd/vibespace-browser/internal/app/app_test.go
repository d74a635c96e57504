package app

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
)

func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{name}, args...), Options{
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
	})
	return code, out.String(), errb.String()
}

// listener answers on the socket env's daemon would use (clitest.FakeDaemon).
func listener(t *testing.T, env map[string]string, answer func(daemon.Request) daemon.Response) <-chan daemon.Request {
	t.Helper()
	return clitest.FakeDaemon(t, func(k string) string { return env[k] }, answer)
}

func testEnv(t *testing.T) map[string]string {
	dir := t.TempDir()
	return map[string]string{"VIBESPACE_HOME": filepath.Join(dir, "home"), "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
}

func TestWireVerbAndProfile(t *testing.T) {
	env := testEnv(t)
	got := listener(t, env, func(req daemon.Request) daemon.Response {
		return daemon.Response{OK: true, Profile: &daemon.ProfileInfo{ID: "bp-3f9a1c02", Label: "work", Handle: "work", Default: true, Attachments: 2},
			Target: &daemon.TargetInfo{ID: "tab:3", Title: "Form", Lease: "held by s1 since 2026-12-02T00:26:41Z", Holder: "s1", Since: "2026-12-02T00:26:41Z", CDPID: "DAB9E87B7BC9278C91D2EE2C73F059BB"}, Text: "- button \"Go\" @e1\n"}
	})
	for _, tc := range []struct {
		args       []string
		envProfile string
		want       daemon.Request
	}{
		{[]string{"snapshot", "-i"}, "", daemon.Request{Verb: "browser.snapshot"}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})},
		{[]string{"snapshot", "-i", "--profile", "w"}, "env", daemon.Request{Verb: "browser.snapshot", Profile: "w"}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})},
		{[]string{"snapshot", "--after", "@e13333", "-i", "--depth", "2"}, "", daemon.Request{Verb: "browser.snapshot"}.With(args.Snapshot{Observe: args.Observe{Interactive: true, Depth: 2}, After: "@e13333"})},
		{[]string{"--profile", "w", "click", "@e3"}, "env", daemon.Request{Verb: "browser.click", Profile: "w"}.With(args.Click{Ref: "@e3"})},
		{[]string{"click", "@e3"}, "env", daemon.Request{Verb: "browser.click", Profile: "env"}.With(args.Click{Ref: "@e3"})},
		{[]string{"fill", "@e3", "-x-"}, "", daemon.Request{Verb: "browser.fill"}.With(args.Fill{Ref: "@e3", Text: "-x-"})},
		{[]string{"type", "hello"}, "", daemon.Request{Verb: "browser.type"}.With(args.Type{Text: "hello"})},
		{[]string{"scroll", "down", "--by", "5", "--at", "3,4"}, "", daemon.Request{Verb: "browser.scroll"}.With(args.Scroll{Direction: "down", By: 5, At: "3,4"})},
		{[]string{"get", "title"}, "", daemon.Request{Verb: "browser.get"}.With(args.Get{What: "title"})},
		{[]string{"tab", "close", "3"}, "", daemon.Request{Verb: "browser.tab", Target: "tab:3"}.With(args.Tab{Action: "close"})},
		{[]string{"tab", "tab:3"}, "", daemon.Request{Verb: "browser.tab", Target: "tab:3"}.With(args.Tab{Action: "select"})},
		{[]string{"tab"}, "", daemon.Request{Verb: "browser.tab"}.With(args.Tab{Action: "list"})},
		{[]string{"pin", "--none"}, "", daemon.Request{Verb: "browser.pin"}.With(args.Pin{None: true})},
		{[]string{"pin", "w"}, "env", daemon.Request{Verb: "browser.pin", Profile: "env"}.With(args.Pin{Profile: "w"})},
		{[]string{"use", "bp-3f9a1c02", "--alias", "w"}, "", daemon.Request{Verb: "browser.use"}.With(args.Use{Label: "bp-3f9a1c02", Alias: "w"})},
		{[]string{"--profile", "./dir", "open", "http://127.0.0.1:1/"}, "", daemon.Request{Verb: "browser.open", Profile: "./dir"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})},
		{[]string{"wait", "--text", "Saved"}, "", daemon.Request{Verb: "browser.wait"}.With(args.Wait{Text: "Saved"})},
		{[]string{"new", "shop", "--backend", "desktop-app", "--url", "file:///p.html", "--size", "800x600", "--mode", "tree"}, "",
			daemon.Request{Verb: "browser.new"}.With(args.New{Label: "shop", Backend: "desktop-app", URL: "file:///p.html", Size: "800x600", Mode: "tree"})},
		{[]string{"close", "shop"}, "", daemon.Request{Verb: "browser.close"}.With(args.Close{Label: "shop"})},
	} {
		env["VIBESPACE_BROWSER"] = tc.envProfile
		env["VIBESPACE_SESSION"] = "s1"
		code, out, errs := run(t, env, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		req := <-got
		tc.want.Session = "s1"
		a, _ := json.Marshal(req)
		b, _ := json.Marshal(tc.want)
		if string(a) != string(b) {
			t.Errorf("%v sent %s, want %s", tc.args, a, b)
		}
		// One header line: the target, its title, the lease (the caller's:
		// yours) and the profile; the CDP id is --json's alone.
		if head, _, _ := strings.Cut(out, "\n"); head != `tab:3 "Form" · lease: yours · profile: work (bp-3f9a1c02), default, 2 attachments` ||
			strings.Count(out, "profile: ") != 1 || strings.Count(out, "lease: ") != 1 || strings.Contains(out, "DAB9") {
			t.Errorf("%v: the answer does not name the tab and the profile on its first line:\n%s", tc.args, out)
		}
	}
}

func TestRefusalListsHandles(t *testing.T) {
	env := testEnv(t)
	listener(t, env, func(req daemon.Request) daemon.Response {
		return daemon.Response{Code: "profile_required", Message: "this session has 2 attachments: name one",
			Facts: map[string]any{"handles": []string{"work", "bp-00aa11bb"}, "default": "work"}}
	})
	code, _, errs := run(t, env, "snapshot")
	if code != 1 || !strings.Contains(errs, "refused: this session has 2 attachments: name one [profile_required]") ||
		!strings.Contains(errs, "--profile work (default)\n") || !strings.Contains(errs, "--profile bp-00aa11bb\n") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	code, out, _ := run(t, env, "--json", "snapshot")
	var resp daemon.Response
	if code != 1 || json.Unmarshal([]byte(out), &resp) != nil || resp.Code != "profile_required" {
		t.Fatalf("--json: exit %d %s", code, out)
	}
}

func TestNewChildPrintsTheEnvLine(t *testing.T) {
	env := testEnv(t)
	listener(t, env, func(req daemon.Request) daemon.Response {
		return daemon.Response{OK: true, Profile: &daemon.ProfileInfo{ID: "bp-3f9a1c02", Handle: "bk-work.1", Parent: "work", Attachments: 1}}
	})
	code, out, errs := run(t, env, "new-child")
	if code != 0 || !strings.HasSuffix(out, "\nVIBESPACE_BROWSER=bk-work.1\n") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

func TestHelpNamesEveryVerbAndTheRules(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, w := range []string{"open", "snapshot", "click", "fill", "type", "key", "scroll", "screenshot", "get", "eval",
		"back", "forward", "reload", "wait", "tab", "profiles", "new", "close", "use", "attachments", "detach", "pin", "new-child",
		"--backend desktop-app", "no_cdp_on_this_backend",
		"status", "watch", "takeover", "handback", "serve", "VIBESPACE_SESSION", "VIBESPACE_BROWSER", "--profile",
		"profile_required", "profile_changed", "path_not_handle", "not_your_tab", "stale_ref", "browser_paused",
		"refused: <sentence> [<code>]", "--json", "NOT A SECURITY"} {
		if !strings.Contains(out, w) {
			t.Errorf("help does not mention %q", w)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	env := testEnv(t)
	for _, args := range [][]string{
		{"open"},
		{"click"},
		{"click", "@e1", "--at", "1,2"},
		{"click", "--at", "nope"},
		{"fill", "@e1"},
		{"type"},
		{"key"},
		{"scroll"},
		{"get", "colour"},
		{"wait"},
		{"wait", "--text", "a", "--url", "b"},
		{"tab", "new", "a", "b"},
		{"pin"},
		{"pin", "w", "--none"},
		{"new"},
		{"close"},
		{"close", "a", "b"},
		{"frobnicate"},
	} {
		code, _, errs := run(t, env, args...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestOnlyTheCommandRunIsSetUp: a run sets up only the command it runs
// (daemoncall.KeepOnlyCommand); what a command prints on bad usage, and
// every help, read the same as with every command set up.
func TestOnlyTheCommandRunIsSetUp(t *testing.T) {
	env := testEnv(t)
	for _, args := range [][]string{
		{"get"}, {"get", "colour"}, {"open"}, {"click", "--at", "x"}, {"snapshot", "--bogus"}, {"snapshot", "extra"},
		{"get", "--help"}, {"help", "get"}, {"--help"}, {"--help", "get"}, {"-h", "open"}, {"help"}, {}, {"gett", "title"}, {"--profile", "w", "eval"},
	} {
		var out, errb bytes.Buffer
		o := Options{Name: name, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
		a := New(o)
		argv := append([]string{name}, args...)
		wantCode := daemoncall.ExitCode(a.RunContext(context.Background(), daemoncall.Reorder(a, argv)), name, &errb)
		code, stdout, stderr := run(t, env, args...)
		if code != wantCode || stdout != out.String() || stderr != errb.String() {
			t.Errorf("%q with one command set up: exit %d\n%s%s\nwith all: exit %d\n%s%s", args, code, stdout, stderr, wantCode, out.String(), errb.String())
		}
		if len(args) > 0 && args[0] == "get" && len(args) == 1 && !strings.Contains(stderr, "get needs one of") {
			t.Errorf("get alone: %q", stderr)
		}
	}
}

// TestDesktopAppWords: an answer naming a desktop app's profile says its
// backend and the window it runs as; profiles lists them so.
func TestDesktopAppWords(t *testing.T) {
	env := testEnv(t)
	shop := daemon.ProfileInfo{ID: "bp-3f9a1c02", Label: "shop", Handle: "shop", Default: true, Attachments: 1, Backend: "desktop-app", Window: "win:3", Running: true}
	listener(t, env, func(req daemon.Request) daemon.Response {
		if req.Verb == "browser.profiles" {
			stopped := shop
			stopped.Window, stopped.Running, stopped.Handle = "", false, ""
			return daemon.Response{OK: true, Profiles: []daemon.ProfileInfo{shop, stopped}}
		}
		return daemon.Response{OK: true, Profile: &shop, Target: &daemon.TargetInfo{ID: "win:3", Title: "Shop", Lease: "held by s1", Mode: "tree"}, Did: "opened chromium"}
	})
	code, out, errs := run(t, env, "new", "shop", "--backend", "desktop-app")
	if code != 0 || !strings.Contains(out, `win:3 "Shop" · lease: held by s1 · mode: tree · profile: shop (bp-3f9a1c02), default, desktop-app, running as win:3`+"\n") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, env, "profiles")
	if code != 0 || !strings.Contains(out, "shop (bp-3f9a1c02) · default · desktop-app · running as win:3 · 1 attachment\n") ||
		!strings.Contains(out, "shop (bp-3f9a1c02) · default · desktop-app · 1 attachment\n") {
		t.Fatalf("profiles: exit %d\n%s%s", code, out, errs)
	}
}
