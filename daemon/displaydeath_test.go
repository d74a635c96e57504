package daemon

import (
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestDisplayDeathSeenAtOnce: a display whose server dies is seen dying by
// its watcher, with no verb asking: its window is lost (recorded in the
// state file), its holder alone is told once, a verb on it is refused
// window_gone saying when and why — also by a restarted daemon — and
// watch --xpra no_attach.
func TestDisplayDeathSeenAtOnce(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	id := td.open(t, "a")
	td.call(t, Request{Verb: "share", Session: "a", Target: string(id)}.With(args.Share{With: "b"}))
	b.Display().Die("killed by signal 9 (SIGKILL)")

	// Seen with no verb: the state file records the loss.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(lostInState(t, dir), string(id)) {
		if time.Now().After(deadline) {
			t.Fatalf("the loss never reached the state file: %s", lostInState(t, dir))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := td.call(t, Request{Verb: "list", Session: "b"}); len(got.Targets) != 0 || got.Note != "" {
		t.Fatalf("list for a session it was shared with: %+v", got)
	}
	got := td.call(t, Request{Verb: "list", Session: "a"})
	if len(got.Targets) != 0 || !strings.Contains(got.Note, string(id)+" was lost at ") || !strings.Contains(got.Note, "killed by signal 9") {
		t.Fatalf("list for its holder: %+v", got)
	}
	if again := td.call(t, Request{Verb: "list", Session: "a"}); again.Note != "" {
		t.Fatalf("told twice: %q", again.Note)
	}
	resp := td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(id)})
	wantCode(t, resp, target.CodeWindowGone)
	if !strings.Contains(resp.Message, "fake server pid 4242) died — killed by signal 9") {
		t.Fatalf("snapshot of the lost window: %s", resp.Message)
	}
	wantCode(t, td.call(t, Request{Verb: "watch", Session: "a", Target: string(id)}.With(args.Watch{Xpra: true})), target.CodeNoAttach)

	// A restarted daemon still knows the handle was lost.
	td.Close()
	<-td.done
	td2 := startDaemon(t, b, dir)
	resp = td2.call(t, Request{Verb: "key", Session: "a", Target: string(id)}.With(args.Key{Chord: "Return"}))
	wantCode(t, resp, target.CodeWindowGone)
	if !strings.Contains(resp.Message, string(id)+" was lost at ") {
		t.Fatalf("after a restart: %s", resp.Message)
	}
	if n := td2.open(t, "a"); n == id {
		t.Fatalf("the lost handle was given again: %s", n)
	}
}

// lostInState is the state file's record of the lost handles.
func lostInState(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return ""
	}
	var st struct {
		Backends map[string]json.RawMessage `json:"backends"`
	}
	json.Unmarshal(b, &st)
	return string(st.Backends[displays.LostKey])
}

// TestDisplayGoneBeforeRestart: a display that died while no daemon ran
// (the daemon killed, then its display) loses its window with a word too:
// the restarted daemon refuses the handle window_gone saying so, never
// unknown_target, and tells its holder once.
func TestDisplayGoneBeforeRestart(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	id := td.open(t, "a")
	td.Detach()
	<-td.done
	b.Display().Close()
	td2 := startDaemon(t, b, dir)
	got := td2.call(t, Request{Verb: "list", Session: "a"})
	if len(got.Targets) != 0 || !strings.Contains(got.Note, string(id)+" was lost at ") || !strings.Contains(got.Note, "while no daemon ran") {
		t.Fatalf("list after the restart: %+v", got)
	}
	resp := td2.call(t, Request{Verb: "snapshot", Session: "a", Target: string(id)})
	wantCode(t, resp, target.CodeWindowGone)
	if !strings.Contains(resp.Message, "while no daemon ran") {
		t.Fatalf("snapshot: %s", resp.Message)
	}
}
