package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHandoffCommand, through the command lines and the program as users
// run it: handoff win:N waits, and the live view's own API marks the
// window "needs you" with the reason (the program wires the stage's desk
// into its live view); a person at another command line (a session it
// was shared with) takes it over and hands it back, and the agent's
// handoff answers that it came back through that person, after how long,
// with what changed since (nothing, here). With nobody, --wait ends it
// refused handoff_timeout, and the mark is gone.
func TestHandoffCommand(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, _, _ := e.OpenFixture("s1")
	e.OK("s1", "share", id, "--with", "op1")
	watch := strings.TrimSpace(e.OK("s1", "watch"))
	u, err := url.Parse(watch[strings.Index(watch, "http://"):])
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(u.Fragment)
	needs := func() string { // the live view's mark of id: its reason, or ""
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+u.Host+"/api/targets", nil)
		req.Header.Set("Authorization", "Bearer "+q.Get("token"))
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var ts struct {
			Targets []struct {
				ID    string
				Needs *struct{ Reason, Session string }
			}
		}
		if err := json.Unmarshal(b, &ts); err != nil {
			t.Fatalf("targets: %v: %s", err, b)
		}
		for _, tg := range ts.Targets {
			if tg.ID == id && tg.Needs != nil {
				return tg.Needs.Reason + " (" + tg.Needs.Session + ")"
			}
		}
		return ""
	}
	asked := func(n int) { // the audit's nth handoff.ask row is written
		deadline := time.Now().Add(time.Minute)
		for {
			b, _ := os.ReadFile(filepath.Join(e.Home, "audit.jsonl"))
			if strings.Count(string(b), `"verb":"handoff.ask"`) >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no handoff.ask row %d in the audit", n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	done := make(chan result, 1)
	go func() { done <- e.CLI("s1", "handoff", id, "--reason", "open the file for me", "--wait", "90s") }()
	asked(1)
	if got := needs(); got != "open the file for me (s1)" {
		t.Fatalf("the live view's mark: %q", got)
	}
	e.OK("op1", "takeover", id, "--as", "ada")
	e.OK("op1", "handback", id, "--as", "ada")
	r := <-done
	if r.Code != 0 || !strings.Contains(r.Out, "came back through a person (ada) after ") || !strings.Contains(r.Out, "since the hand-off: 0 changed, 0 added, 0 removed") {
		t.Fatalf("handoff: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Out, r.Errout)
	}
	if got := needs(); got != "" {
		t.Fatalf("the mark stayed after the handback: %q", got)
	}

	rf := e.Refused("handoff_timeout", "s1", "handoff", id, "--reason", "nobody comes", "--wait", "1s")
	if !strings.Contains(rf.Errout, "withdrawn") {
		t.Fatalf("the timeout's words: %s", rf.Errout)
	}
	if got := needs(); got != "" {
		t.Fatalf("the mark stayed after the bound: %q", got)
	}
	e.Refused("bad_request", "s1", "handoff", id)
}
