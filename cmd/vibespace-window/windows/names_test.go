package windows_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestNamesInEveryAnswer drives the names fixture (names4.py: GTK 4 keys
// with mnemonic labels, an icon button with a tooltip, an empty text view)
// through the CLI as an agent does, and reads the names in each answer: the
// interactive snapshot names the keys once and no node by its class, and
// says a tooltip name is one; click's answer names the key once; get text
// of the empty view is empty, and type's answer does not call it
// "GtkTextView". Each act's effect is read back from the fixture's own
// log.
func TestNamesInEveryAnswer(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	logPath := filepath.Join(e.Dir, "names4.jsonl")
	resp := e.Answer("s1", append([]string{"open"}, pythonFixture("names4")(t, e, logPath)...)...)
	if !resp.OK || resp.Target == nil {
		t.Fatalf("open: %+v", resp)
	}
	e.ReadDesk()
	id := string(resp.Target.ID)
	log := testenv.OpenFixtureLog(logPath)
	wait(t, log, 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	// A loaded machine can map the window before the application is on
	// the accessibility bus, and open stops waiting for it after a grace:
	// the test waits for the tree (as TestActRoundTrips does).
	for ready := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		r := e.Answer("s1", "snapshot", id)
		if r.OK {
			break
		}
		if r.Code != target.CodeNoTree || time.Now().After(ready) {
			t.Fatalf("snapshot: refused %s: %s", r.Code, r.Message)
		}
	}

	inter := e.OK("s1", "snapshot", id, "-i")
	for _, want := range []string{`push button "1" @e`, `push button "=" @e`, `push button "1 1" @e`, `push button "Undo last step" (tooltip) @e`} {
		if !strings.Contains(inter, want) {
			t.Errorf("snapshot -i lacks %s:\n%s", want, inter)
		}
	}
	for _, bad := range []string{`"Gtk`, `"= ="`, `"2 2"`, `"_`} {
		if strings.Contains(inter, bad) {
			t.Errorf("snapshot -i has %s:\n%s", bad, inter)
		}
	}

	snap := e.Snapshot("s1", id)
	one := node(t, snap, "push button", "1")
	from := log.Len()
	if out := e.OK("s1", "click", id, one.Ref); !strings.Contains(out, `(push button "1")`) {
		t.Errorf("click's answer does not name the key once: %s", out)
	}
	wait(t, log, from, "the click on key 1", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "display" && ev.Text == "1" })

	view := snap.Root.Find(func(n *target.Node) bool { return n.Role == "text" && n.Implements("EditableText") })
	if view == nil || view.Ref == "" || view.Name != "" {
		t.Fatalf("the empty text view: %+v", view)
	}
	if got := e.Answer("s1", "get", id, "text", view.Ref); !got.OK || got.Text != "" {
		t.Errorf("get text of the empty view: %+v", got)
	}
	from = log.Len()
	if out := e.OK("s1", "type", id, view.Ref, "x"); strings.Contains(out, "Gtk") {
		t.Errorf("type's answer names the view by its class: %s", out)
	}
	wait(t, log, from, "x in the view", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "view" && ev.Text == "x" })
	if got := e.Answer("s1", "get", id, "text", view.Ref); !got.OK || got.Text != "x" {
		t.Errorf("get text after typing x: %+v", got)
	}
}
