package main_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// slowComboApp is a window of one combo box whose "changed" handler logs
// the pick, then blocks the GTK main loop for a few seconds: the
// Selection.SelectChild that a select sends it is answered only after
// that, so the select is still in flight when the test has seen the pick
// logged.
const slowComboApp = `
import os, signal, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from fixturelog import Log
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk

log = Log(sys.argv[2])
win = Gtk.Window(title="slow combo")
win.set_default_size(320, 120)
combo = Gtk.ComboBoxText()
for c in ("Red", "Green", "Blue"):
    combo.append_text(c)
combo.set_active(0)

def changed(w):
    log.event("select", widget="colour", text=w.get_active_text() or "")
    time.sleep(4)  # deliberately blocks the GTK main loop, and the select's answer
    log.event("select-done", widget="colour")

combo.connect("changed", changed)
win.add(combo)
ready = []
def mapped(*_):
    if not ready:
        ready.append(1)
        log.event("ready", pid=os.getpid())
    return False
win.connect("map-event", mapped)
win.connect("destroy", Gtk.main_quit)
for sig in (signal.SIGTERM, signal.SIGINT):
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, lambda *_: Gtk.main_quit() or GLib.SOURCE_REMOVE)
win.show_all()
Gtk.main()
`

// TestSelectCutByKill9: a daemon killed with -9 while a select on a
// window is under way (the application has the pick and has not answered
// yet). The CLI says outcome_unknown; the daemon it starts next says,
// once, on the next answer on that window, that the select was cut by a
// restart; the audit records it. select is an acting verb
// (daemon/verb): the in-flight record covers it.
func TestSelectCutByKill9(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	script := filepath.Join(e.Dir, "slowcombo.py")
	if err := os.WriteFile(script, []byte(slowComboApp), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(e.Dir, "slowcombo.jsonl")
	resp := e.Answer("s1", "open", testenv.FixturePython, script, filepath.Dir(e.FixtureSrc), logPath)
	if !resp.OK {
		t.Fatalf("open the slow combo app: %+v", resp)
	}
	id := string(resp.Target.ID)
	e.ReadDesk()
	log := testenv.OpenFixtureLog(logPath)
	wait(t, log, 0, "the app to be ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	snap := e.Snapshot("s1", id)
	combo := snap.Root.Find(func(n *target.Node) bool { return n.Role == "combo box" })
	if combo == nil {
		t.Fatalf("no combo box:\n%s", snap.Text())
	}

	from := log.Len()
	selected := make(chan result, 1)
	go func() { selected <- e.CLI("s1", "select", id, combo.Ref, "Blue") }()
	wait(t, log, from, "the pick to reach the app", func(ev testenv.Event) bool {
		return ev.Type == "select" && ev.Widget == "colour" && ev.Text == "Blue"
	})
	e.Kill9()
	// The daemon is gone: the app had not answered the select yet.
	if evs, _ := log.Events(); slices.ContainsFunc(evs[from:], func(ev testenv.Event) bool { return ev.Type == "select-done" }) {
		t.Fatalf("the app answered the select before the kill landed: %+v", evs[from:])
	}
	// Should the test stop early, a daemon re-attaches the display so that
	// the cleanup stops it with its applications (runs before clitest's).
	t.Cleanup(func() {
		if e.DaemonPID() == 0 {
			e.CLI("s1", "status")
		}
	})
	r := <-selected
	if r.Code != 2 || !strings.Contains(r.Errout, "unanswered: ") || !strings.Contains(r.Errout, "[outcome_unknown]") {
		t.Fatalf("the select the daemon died in: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	// The CLI starts a daemon by itself; its first answer on the window
	// says what was cut, and only once.
	first := e.OK("s1", "snapshot", id)
	if !strings.Contains(first, "note: select by s1 at ") || !strings.Contains(first, "was cut by a daemon restart; its effect is unknown") {
		t.Fatalf("the first answer on %s after the restart:\n%s", id, first)
	}
	if second := e.OK("s1", "snapshot", id); strings.Contains(second, "cut by a daemon restart") {
		t.Fatalf("told twice:\n%s", second)
	}
	if b, _ := os.ReadFile(filepath.Join(e.Home, "audit.jsonl")); !strings.Contains(string(b), `"verb":"select","ok":false,"code":"outcome_unknown"`) {
		t.Fatalf("the audit does not record the cut select:\n%s", b)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool { return ev.Type == "select-done" }); err != nil {
		t.Fatalf("the app did not come back from the pick: %v", err)
	}
}
