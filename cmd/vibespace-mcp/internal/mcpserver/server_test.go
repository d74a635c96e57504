package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// TestSameWordsAsTheCommandLine holds a tool's text to what the command
// line prints for the same answer: on success its stdout (the handback
// note, the header line with "your desktop" and the lease, what was done
// and by which road, the body), on refusal its stderr with the code put
// first instead of last.
func TestSameWordsAsTheCommandLine(t *testing.T) {
	desk := &wire.TargetInfo{ID: "win:7", Title: "Budget.ods", Lease: "held by s1 since 2026-12-02T07:00:00Z", Holder: "s1",
		Since: "2026-12-02T07:00:00Z", Input: "agent", Desktop: true, Pixels: true, Mode: target.ModeAuto, Resolved: target.ModeTree}
	tab := &wire.TargetInfo{ID: "tab:2", Title: "Sign up", Lease: "held by s1 since 2026-12-02T07:00:00Z", Holder: "s1", Since: "2026-12-02T07:00:00Z"}
	prof := &wire.ProfileInfo{ID: "bp-3f9a1c02", Label: "work", Handle: "work", Default: true, Attachments: 2}
	answers := []struct {
		name string
		resp wire.Response
		body daemoncall.Body
		want []string // what the text must say (the whole of it, for the first), besides matching the command line
	}{
		{"a click on the user's desktop after a handback", wire.Response{OK: true, Target: desk, By: target.RoadTree,
			Note: "control came back at 07:01: ada had taken over at 07:00 and handed back; the window or page may have changed — take a new snapshot before acting on old refs",
			Did:  `clicked @e5 (push button "Save") through its Action → confirmed: a new window`},
			nil, []string{"note: control came back at 07:01: ada had taken over at 07:00 and handed back; the window or page may have changed — take a new snapshot before acting on old refs\n" +
				`win:7 "Budget.ods" · your desktop (pixels granted) · lease: yours · mode: auto → tree` + "\n" +
				`clicked @e5 (push button "Save") through its Action → confirmed: a new window [by tree]` + "\n"}},
		{"a snapshot of a tab in a profile", wire.Response{OK: true, Target: tab, Profile: prof, Text: "# 3 nodes, 1 action, 0 editable\ndocument \"Sign up\" @e1"},
			daemoncall.PrintText, []string{`tab:2 "Sign up" · lease: yours · profile: work (bp-3f9a1c02), default, 2 attachments`, "@e1\n"}},
		{"held", wire.Response{Code: target.CodeHeld, Message: "win:7 is held by s2 since 2026-12-02T07:00:00Z",
			Facts:  map[string]any{"holder": "s2", "target": "win:7"},
			Target: &wire.TargetInfo{ID: "win:7", Title: "Budget.ods", Lease: "held by s2 since 2026-12-02T07:00:00Z", Holder: "s2", Desktop: true}},
			nil, []string{"held: win:7 is held by s2", "facts: holder=s2 target=win:7", "· your desktop · lease: held by s2"}},
		{"profile_required", wire.Response{Code: target.CodeProfileRequired, Message: "name one of your attachments",
			Facts: map[string]any{"handles": []any{"work", "shop"}, "default": "work"}},
			nil, []string{"profile_required: name one", "--profile work (default)", "--profile shop"}},
	}
	for _, a := range answers {
		t.Run(a.name, func(t *testing.T) {
			x := &server{cfg: Config{Session: "s1"}}
			got := textOf(x.result(a.resp, plan{body: a.body}))

			var out, errout bytes.Buffer
			p := daemoncall.Printer{Out: &out, Err: &errout, Session: "s1"}
			p.AnswerWith(a.resp, a.body)
			want := out.String()
			if !a.resp.OK {
				first, rest, _ := strings.Cut(errout.String(), "\n")
				if first != fmt.Sprintf("refused: %s [%s]", a.resp.Message, a.resp.Code) {
					t.Fatalf("the command line's refusal line changed: %q", first)
				}
				want = fmt.Sprintf("%s: %s\n", a.resp.Code, a.resp.Message) + rest
			}
			if got != want {
				t.Fatalf("tool text:\n%s\nthe command line's:\n%s", got, want)
			}
			if a.name == answers[0].name && got != a.want[0] {
				t.Fatalf("the whole text:\n%q\nwant\n%q", got, a.want[0])
			}
			for _, w := range a.want {
				if !strings.Contains(got, w) {
					t.Errorf("the text lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestFailures: a call without an answer is a tool error with a code — no
// daemon (and how to start it), out of time, ours.
func TestFailures(t *testing.T) {
	for _, c := range []struct {
		err  error
		code target.Code
		says string
	}{
		{unreachableErr(t), target.CodeNoDaemon, "vibespace-window serve"},
		{fmt.Errorf("the daemon did not answer browser.open in time: %w", context.DeadlineExceeded), target.CodeTimeout, "in time"},
		{errors.New("the daemon speaks protocol 2, this client 1: stop it and retry"), target.CodeInternal, "protocol 2"},
	} {
		res := failed(c.err, wire.Request{Verb: "snapshot"})
		st := res.StructuredContent.(map[string]any)
		if !res.IsError || st["code"] != c.code || !strings.HasPrefix(textOf(res), string(c.code)+": ") || !strings.Contains(textOf(res), c.says) {
			t.Errorf("%v: want %s saying %q, got %v %s", c.err, c.code, c.says, st, textOf(res))
		}
	}
}

// unreachableErr is Connect's error for a daemon program that is nowhere.
func unreachableErr(t *testing.T) error {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	_, err := daemoncall.Connect(t.Context(), daemoncall.Options{Executable: dir + "/vibespace-mcp",
		Getenv: func(k string) string {
			return map[string]string{"VIBESPACE_HOME": dir + "/home", "XDG_RUNTIME_DIR": dir}[k]
		}})
	if !daemoncall.Unreachable(err) {
		t.Fatalf("Connect without a daemon program: want an Unreachable error, got %v", err)
	}
	return err
}

// TestGroups reads --tools, and lists the tools of each group.
func TestGroups(t *testing.T) {
	for s, want := range map[string]Groups{"all": AllGroups, "window": groupWindow, "browser": groupBrowser, "window,browser": AllGroups} {
		if g, err := ParseGroups(s); err != nil || g != want {
			t.Errorf("ParseGroups(%q) = %v, %v", s, g, err)
		}
	}
	if _, err := ParseGroups("core"); err == nil || !strings.Contains(err.Error(), "window, browser and all") {
		t.Errorf("an unknown group: %v", err)
	}
	seen := map[string]bool{}
	for _, tl := range tools {
		if seen[tl.name] {
			t.Errorf("two tools named %s", tl.name)
		}
		seen[tl.name] = true
		switch {
		case strings.HasPrefix(tl.name, "window_") && tl.group != groupWindow,
			strings.HasPrefix(tl.name, "browser_") && tl.group != groupBrowser,
			!strings.Contains(tl.name, "_") && tl.group != groupBoth:
			t.Errorf("%s is in the wrong group", tl.name)
		}
	}
}

// TestParse reads the command line: the session from --session, else
// $VIBESPACE_SESSION, else "default"; the profile likewise; --help prints
// the help and exits 0; bad usage exits 2 saying why.
func TestParse(t *testing.T) {
	env := map[string]string{}
	o := daemoncall.Options{Getenv: func(k string) string { return env[k] }}
	var out, errout bytes.Buffer
	o.Stdout, o.Stderr = &out, &errout

	cfg, code := parse([]string{Name}, o)
	if code != -1 || cfg.Session != "default" || cfg.Groups != AllGroups || cfg.Profile != "" {
		t.Fatalf("no flags: %+v %d", cfg, code)
	}
	env["VIBESPACE_SESSION"], env["VIBESPACE_BROWSER"] = "from-env", "work"
	if cfg, _ := parse([]string{Name}, o); cfg.Session != "from-env" || cfg.Profile != "work" {
		t.Fatalf("the environment: %+v", cfg)
	}
	if cfg, _ := parse([]string{Name, "--session", "s1", "--tools", "window", "--profile", "shop"}, o); cfg.Session != "s1" || cfg.Groups != groupWindow || cfg.Profile != "shop" {
		t.Fatalf("the flags: %+v", cfg)
	}
	if cfg, _ := parse([]string{Name, "--profile", ""}, o); cfg.Profile != "" {
		t.Fatalf(`--profile "" names none, whatever $VIBESPACE_BROWSER says: %+v`, cfg)
	}
	if _, code := parse([]string{Name, "--help"}, o); code != 0 || !strings.Contains(out.String(), `"mcpServers"`) {
		t.Fatalf("--help: exit %d\n%s", code, out.String())
	}
	env["VIBESPACE_HOME"] = t.TempDir()
	if cfg, code := parse([]string{Name, "--host", "ssh://me@build-box:2222"}, o); code != -1 || cfg.Host != "ssh://me@build-box:2222" {
		t.Fatalf("--host: %+v %d", cfg, code)
	}
	for _, bad := range [][]string{{Name, "--tools", "core"}, {Name, "s1"}, {Name, "--nope"}, {Name, "--host", "ftp://build-box"}, {Name, "--host", "me@"}} {
		errout.Reset()
		if _, code := parse(bad, o); code != daemoncall.ExitUsage || !strings.Contains(errout.String(), Name+": ") {
			t.Errorf("%v: exit %d, %q", bad, code, errout.String())
		}
	}
}
