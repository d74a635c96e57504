package main_test

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// fill through the command line: a field holding text ("Untitled 1",
// typed first, as a Save dialog's name field holds one) ends holding the
// text filled alone, as the fixture's own log says; the answer says so
// without the text, and the audit never holds it; a node with no
// EditableText is refused no_editable_text, reaching nothing.
func TestFillCommand(t *testing.T) {
	e := newEnv(t)
	id, log, _ := e.OpenFixture("s1")
	snap := e.Snapshot("s1", id)
	entry := snap.Root.Find(func(n *target.Node) bool { return n.Role == "text" && n.Name == "Name" && n.Ref != "" })
	if entry == nil {
		t.Fatalf("no entry Name:\n%s", snap.Text())
	}
	from := log.Len()
	e.OK("s1", "type", id, entry.Ref, "Untitled 1")
	wait(t, log, from, "the typed name", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "entry" && ev.Text == "Untitled 1"
	})
	const name = "quarterly-report.odt"
	from = log.Len()
	out := e.OK("s1", "fill", id, entry.Ref, name)
	if !strings.Contains(out, "filled "+entry.Ref) || !strings.Contains(out, "read back") || strings.Contains(out, name) {
		t.Errorf("fill's answer: %q", out)
	}
	wait(t, log, from, "the filled name", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "entry" && ev.Text == name
	})

	alpha := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" && n.Ref != "" })
	if alpha == nil {
		t.Fatalf("no push button Alpha:\n%s", snap.Text())
	}
	from = log.Len()
	e.Refused("no_editable_text", "s1", "fill", id, alpha.Ref, "x")
	if evs, _ := log.Events(); len(evs) > from {
		t.Errorf("a refused fill reached the application: %+v", evs[from:])
	}
	e.CheckAudit(t, name, "Untitled 1")
}
