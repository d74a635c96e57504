package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhoMayTakeOver, through the command line: a session takes over and
// hands back only a window it sees; a second takeover is refused
// taken_over unless --force, whose answer names whom it replaced, and that
// user is told once; the paused agent hands back a person's takeover not
// even with --force; the audit rows say the user, the session, force, and
// for share, with whom.
func TestWhoMayTakeOver(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, _, _ := e.OpenFixture("s1")
	e.OK("s1", "snapshot", id)

	e.Refused("not_exposed", "stranger", "takeover", id, "--as", "mallory")
	e.Refused("not_exposed", "stranger", "handback", id, "--force")
	e.OK("s1", "snapshot", id) // not paused

	e.OK("s1", "share", id, "--with", "op1")
	e.OK("s1", "share", id, "--with", "op2")
	e.OK("op1", "takeover", id, "--as", "alice")
	e.Refused("window_paused", "s1", "handback", id, "--as", "alice", "--force")
	e.Refused("window_paused", "s1", "takeover", id, "--as", "agent-person", "--force")
	r := e.Refused("taken_over", "op2", "takeover", id, "--as", "bob")
	if !strings.Contains(r.Errout, "alice") {
		t.Fatalf("taken_over names who drives: %s", r.Errout)
	}
	out := e.OK("op2", "takeover", id, "--as", "bob", "--force")
	if !strings.Contains(out, "in place of alice") {
		t.Fatalf("the forced takeover's answer: %s", out)
	}
	r = e.Refused("window_paused", "op1", "handback", id, "--as", "alice")
	if !strings.Contains(r.Out+r.Errout, "replaced") || !strings.Contains(r.Out+r.Errout, "bob") {
		t.Fatalf("alice is not told she was replaced:\nstdout: %s\nstderr: %s", r.Out, r.Errout)
	}
	e.OK("op2", "handback", id, "--as", "bob")
	e.OK("s1", "snapshot", id)

	b, err := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Session, Verb, User, Replaced, With, Code string
			Force, OK                                 bool
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		switch m.Verb {
		case "takeover", "handback", "share":
			rows = append(rows, strings.Join([]string{m.Verb, m.Session, m.User, bs(m.Force), m.Replaced, m.With, bs(m.OK), m.Code}, " "))
		}
	}
	want := []string{
		"takeover stranger mallory false   false not_exposed",
		"handback stranger user true   false not_exposed",
		"share s1  false  op1 true ",
		"share s1  false  op2 true ",
		"takeover op1 alice false   true ",
		"handback s1 alice true   false window_paused",
		"takeover s1 agent-person true   false window_paused",
		"takeover op2 bob false   false taken_over",
		"takeover op2 bob true alice  true ",
		"handback op1 alice false   false window_paused",
		"handback op2 bob false   true ",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

func bs(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
