package windows_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/testenv"
)

// TestDiffBaselinesPerViewOnAWindow: on the fixture, a -i --diff after a
// click is that click, and it does not move the baseline of the whole
// tree's --diff: after a second change (a button removed), the plain --diff
// says both, against the whole snapshot before them, while the next -i
// --diff says only the second. The fixture's log is the oracle of each
// change.
func TestDiffBaselinesPerViewOnAWindow(t *testing.T) {
	e := newEnv(t)
	id, log, _ := e.OpenFixture("s1")
	full := e.Snapshot("s1", id) // the whole tree: the plain --diff's baseline
	check := node(t, full, "check box", "Check me")
	doomed := node(t, full, "push button", "Remove me")
	e.OK("s1", "snapshot", id, "-i") // the -i view's baseline

	from := log.Len()
	e.OK("s1", "click", id, check.Ref)
	if ev := wait(t, log, from, "the toggle", func(ev testenv.Event) bool { return ev.Type == "toggled" && ev.Widget == "check" }); !ev.Active {
		t.Fatalf("the fixture says the box is not active: %+v", ev)
	}
	toggled := `~ check box "Check me" ` + check.Ref + ": unchecked → checked"
	has := func(lines []string, prefix string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
	}
	if lines := diffLines(e.OK("s1", "snapshot", id, "-i", "--diff")); !has(lines, toggled) {
		t.Fatalf("-i --diff after the click lacks %q: %q", toggled, lines)
	}

	from = log.Len()
	e.OK("s1", "click", id, doomed.Ref)
	wait(t, log, from, "the removal", func(ev testenv.Event) bool { return ev.Type == "removed" && ev.Widget == "doomed" })
	removed := `- push button "Remove me" ` + doomed.Ref
	if lines := diffLines(e.OK("s1", "snapshot", id, "-i", "--diff")); !has(lines, removed) || has(lines, toggled) {
		t.Fatalf("the second -i --diff: want %q alone of the two changes (against the first -i --diff): %q", removed, lines)
	}
	if lines := diffLines(e.OK("s1", "snapshot", id, "--diff")); !has(lines, removed) || !has(lines, toggled) {
		t.Fatalf("the plain --diff: want both changes since the whole snapshot (the -i diffs moved nothing of it): %q", lines)
	}
	if lines := diffLines(e.OK("s1", "snapshot", id, "--diff")); len(lines) != 1 || lines[0] != "unchanged" {
		t.Fatalf("a second plain --diff: %q", lines)
	}
}
