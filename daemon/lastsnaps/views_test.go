package lastsnaps

import (
	"testing"

	"github.com/vibespace/vibespace/target"
)

// TestBaselinesPerView: a view's --diff is against the newest snapshot
// that showed at least that view; a scoped, interactive or cut snapshot
// never moves the whole tree's baseline, and a whole snapshot moves every
// view's. (Before, every snapshot moved the one baseline: after an -i
// --diff, the next whole --diff said "unchanged" and what only the whole
// tree shows was never seen.)
func TestBaselinesPerView(t *testing.T) {
	var l Book
	tree := func(title string) *target.Snapshot { return &target.Snapshot{Title: title} }
	whole, inter := View{}, View{Interactive: true}
	scope, scopeI := View{Scope: "k7"}, View{Scope: "k7", Interactive: true}
	cut := View{Depth: 2}
	kept := func(v View, title string) *target.Snapshot {
		t.Helper()
		s := tree(title)
		return l.KeepView("s", v, s, Size(s))
	}
	title := func(s *target.Snapshot) string {
		if s == nil {
			return "none"
		}
		return s.Title
	}
	step := func(v View, now, wantPrev string) {
		t.Helper()
		if got := title(kept(v, now)); got != wantPrev {
			t.Fatalf("%s (%+v): diffed against %s, want %s", now, v, got, wantPrev)
		}
	}
	step(whole, "w1", "none")
	step(inter, "i1", "w1")  // -i --diff: against the whole snapshot
	step(inter, "i2", "i1")  // the next -i --diff: against the last -i
	step(whole, "w2", "w1")  // the whole --diff: the -i snapshots moved nothing
	step(inter, "i3", "w2")  // a whole snapshot moved every view's
	step(scopeI, "si", "i3") // the whole -i view covers a scope's
	step(scope, "s1", "w2")  // a scope's whole: only a whole snapshot covers it
	step(scopeI, "si2", "s1")
	step(cut, "c1", "w2")
	step(View{Depth: 1}, "c2", "c1") // two levels cover one
	step(View{Depth: 3}, "c3", "w2") // not three
	if got := title(l.Baseline("s", whole)); got != "w2" {
		t.Fatalf("the whole tree's baseline after scoped, -i and cut snapshots: %s, want w2", got)
	}
	if l.Baseline("other", whole) != nil {
		t.Fatal("another session's snapshots are a baseline")
	}
	// A session with no whole snapshot yet: its plain --diff is against
	// its newest of any view (what changed since, not the whole tree).
	other := tree("o1")
	l.KeepView("other", scope, other, Size(other))
	other = tree("o2")
	l.KeepView("other", inter, other, Size(other))
	if got := title(l.Baseline("other", whole)); got != "o2" {
		t.Fatalf("the whole view with no whole snapshot: against %s, want o2 (the newest)", got)
	}
	l.Forget("other")
	step(whole, "w3", "w2")
	if l.Len() != 1 {
		t.Fatalf("a whole snapshot leaves %d kept, want 1 (it covers every view)", l.Len())
	}
	kept(inter, "i4")
	l.Forget("s")
	if l.Len() != 0 || l.bytes != 0 || l.Baseline("s", inter) != nil {
		t.Fatalf("after Forget: %d kept, %d bytes", l.Len(), l.bytes)
	}
}
