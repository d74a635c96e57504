package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{"vibespace-window"}, args...), Options{
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
	})
	return code, out.String(), errb.String()
}

func TestReorder(t *testing.T) {
	a := New(Options{})
	for _, tc := range []struct{ in, want string }{
		{"x click win:1 --at 5,6", "x click --at 5,6 -- win:1"},
		{"x click win:1 @e3", "x click -- win:1 @e3"},
		{"x --json click win:1 --at=5,6", "x --json click --at=5,6 -- win:1"},
		{"x type win:1 -- -dash", "x type -- win:1 -dash"},
		{"x type win:1 -5", "x type -- win:1 -5"},
		{"x open gedit -- --new-window", "x open -- gedit --new-window"},
		{"x scroll win:1 down --by 4 --json", "x scroll --by 4 --json -- win:1 down"},
		{"x status", "x status"},
		{"x snapshot --help", "x snapshot --help"},
		{"x click win:1 -h", "x click -h -- win:1"},
		{"x nosuch a --b", "x nosuch a --b"},
	} {
		got := strings.Join(reorder(a, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("reorder(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHelpNamesEveryVerbAndTheRules(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, w := range []string{"list", "open", "attach", "detach", "snapshot", "screenshot", "click", "type", "key", "scroll",
		"share", "status", "doctor", "takeover", "handback", "serve", "VIBESPACE_SESSION", "NOT A SECURITY", "no_action",
		"window_paused", "refused: <sentence> [<code>]", "--json", "pixel of that"} {
		if !strings.Contains(out, w) {
			t.Errorf("help does not mention %q", w)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	env := map[string]string{"VIBESPACE_HOME": t.TempDir()}
	for _, args := range [][]string{
		{"click", "win:1"},
		{"click", "win:1", "@e1", "--at", "1,2"},
		{"click", "win:1", "--at", "nope"},
		{"type", "win:1"},
		{"key", "win:1"},
		{"scroll", "win:1"},
		{"snapshot"},
		{"frobnicate"},
		{"share", "win:1"},
	} {
		code, _, errs := run(t, env, args...)
		if code != ExitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestParsePoint(t *testing.T) {
	p, err := parsePoint("12, 34")
	if err != nil || p.X != 12 || p.Y != 34 {
		t.Fatal(p, err)
	}
	for _, s := range []string{"", "1", "a,b", "1;2"} {
		if _, err := parsePoint(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}
