package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
)

// TestRestartTellsOfACutVerb: a type in flight is recorded under the state
// directory; a daemon killed then (its record left behind) is followed by
// one whose next answer on that window says, once, that the type was cut by
// a restart and its effect is unknown (issue 11 item 6). The integration
// test (cmd/vibespace-window) kills a real daemon; here the record a kill
// leaves is put back by hand.
func TestRestartTellsOfACutVerb(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	id := string(td.open(t, "a"))
	gate := b.Display().GateTyping()
	typed := make(chan Response, 1)
	go func() {
		typed <- td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Text: "hello"}))
	}()
	var rec []byte
	deadline := time.Now().Add(10 * time.Second)
	for rec == nil {
		ents, _ := os.ReadDir(filepath.Join(dir, flightDir))
		for _, en := range ents {
			rec, _ = os.ReadFile(filepath.Join(dir, flightDir, en.Name()))
		}
		if time.Now().After(deadline) {
			t.Fatal("no record of the type in flight")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(gate)
	wantCode(t, <-typed, "")
	if ents, _ := os.ReadDir(filepath.Join(dir, flightDir)); len(ents) != 0 {
		t.Fatalf("the record outlived its answer: %v", ents)
	}
	td.Detach()
	<-td.done
	// What a kill -9 during the type leaves.
	if err := os.WriteFile(filepath.Join(dir, flightDir, "1.json"), rec, 0o600); err != nil {
		t.Fatal(err)
	}
	td2 := startDaemon(t, b, dir)
	other := td2.open(t, "a")
	if resp := td2.call(t, Request{Verb: "key", Session: "a", Target: string(other)}.With(args.Key{Chord: "a"})); resp.Note != "" {
		t.Fatalf("told on another window: %q", resp.Note)
	}
	resp := td2.call(t, Request{Verb: "key", Session: "a", Target: id}.With(args.Key{Chord: "a"}))
	wantCode(t, resp, "")
	if !strings.Contains(resp.Note, "type by a at ") || !strings.Contains(resp.Note, "was cut by a daemon restart; its effect is unknown") {
		t.Fatalf("the first answer on %s after the restart: note %q", id, resp.Note)
	}
	// (The same key again with no visible change is told the reach
	// ladder's next rung: not the restart's note.)
	if again := td2.call(t, Request{Verb: "key", Session: "a", Target: id}.With(args.Key{Chord: "a"})); strings.Contains(again.Note, "daemon restart") {
		t.Fatalf("told twice: %q", again.Note)
	}
	audit, _ := os.ReadFile(filepath.Join(dir, auditFile))
	if !strings.Contains(string(audit), `"verb":"type","ok":false,"code":"outcome_unknown"`) {
		t.Fatalf("the cut type is not audited:\n%s", audit)
	}
}
