package displays_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

// TestRemoteTakeover: over VIBESPACE_HOST=ssh://… takeover and handback
// work as locally (TestTakeover). A person takes the remote fixture window
// over from a session of their own; the agent's click by ref is refused
// window_paused (naming who) and the fixture's own log shows no click;
// after the handback the agent is told once that control came back and its
// click lands in the fixture's log. The remote daemon's audit has the
// takeover and handback rows naming the user, every answer names the host,
// and the fixture is alive at the end.
func TestRemoteTakeover(t *testing.T) {
	e, h, _ := remoteEnv(t)
	hostName := h.Name
	namesHost := func(what, out string) {
		t.Helper()
		if !strings.Contains(out, "host: "+hostName) {
			t.Fatalf("%s does not name the host %s:\n%s", what, hostName, out)
		}
	}

	logPath := filepath.Join(h.Logs, "fixture-takeover.jsonl")
	open := e.Answer("s1", "open", testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), "--log", logPath)
	if !open.OK || open.Facts["host"] != hostName || open.Target == nil || open.Target.PID == 0 {
		t.Fatalf("open over ssh: %+v", open)
	}
	id, pid := string(open.Target.ID), open.Target.PID
	log := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	alpha := node(t, e.Snapshot("s1", id), "push button", "Alpha")
	// The person's own session sees the window (a session takes over only
	// what it sees).
	namesHost("share", e.OK("s1", "share", id, "--with", "operator"))

	took := e.Answer("operator", "takeover", id, "--as", "you")
	if !took.OK || took.Facts["host"] != hostName {
		t.Fatalf("takeover over ssh: %+v", took)
	}
	from := log.Len()
	r := e.Refused("window_paused", "s1", "click", id, alpha.Ref)
	if !strings.Contains(r.Errout, "user=you") || !strings.Contains(r.Errout, "host="+hostName) {
		t.Fatalf("window_paused over ssh names neither who nor the host:\n%s", r.Errout)
	}
	// The paused agent cannot hand back a takeover made from another
	// session.
	if r := e.Refused("window_paused", "s1", "handback", id, "--as", "you"); !strings.Contains(r.Errout, "host="+hostName) {
		t.Fatalf("the paused agent's handback does not name the host:\n%s", r.Errout)
	}
	namesHost("handback", e.OK("operator", "handback", id, "--as", "you"))

	// The first answer after the handback says so, once; the click lands.
	first := e.OK("s1", "click", id, alpha.Ref)
	namesHost("the click after the handback", first)
	if strings.Count(first, "control came back") != 1 {
		t.Fatalf("the first answer after the handback:\n%s", first)
	}
	wait(t, log, from, "the click after the handback", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	second := e.Answer("s1", "snapshot", id)
	if !second.OK || second.Facts["host"] != hostName || second.Note != "" {
		t.Fatalf("the second answer after the handback (told twice?): ok=%v host=%v note=%q", second.OK, second.Facts["host"], second.Note)
	}
	// The refused click never reached the app: from before it, the log
	// holds one click, the one after the handback (the app handles events
	// in order, so a click the refusal let through would be logged first).
	evs, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	var clicks int
	for _, ev := range evs[from:] {
		if ev.Type == "click" {
			clicks++
		}
	}
	if clicks != 1 {
		t.Fatalf("%d clicks in the fixture's log since the refused one, want only the one after the handback: %+v", clicks, evs[from:])
	}

	// The remote daemon's audit, in the remote user's state directory.
	b, err := os.ReadFile(filepath.Join(h.Dir, "home", ".local", "state", "vibespace", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Session, Verb, Target, User, Code string
			OK                                bool
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		switch m.Verb {
		case "takeover", "handback", "click":
			rows = append(rows, strings.Join([]string{m.Verb, m.Session, m.Target, m.User, strconv.FormatBool(m.OK), m.Code}, " "))
		}
	}
	want := []string{
		"takeover operator " + id + " you true ",
		"click s1 " + id + "  false window_paused",
		"handback s1 " + id + " you false window_paused",
		"handback operator " + id + " you true ",
		"click s1 " + id + "  true ",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the remote audit's rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	// The fixture is alive at the end, and still listed.
	stat, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if i := strings.LastIndexByte(string(stat), ')'); err != nil || i < 0 || len(stat) < i+3 || stat[i+2] == 'Z' {
		t.Fatalf("the fixture (pid %d) is gone: %v %q", pid, err, stat)
	}
	if out := e.OK("s1", "list"); !strings.Contains(out, id) {
		t.Fatalf("the fixture is not listed at the end:\n%s", out)
	}
}
