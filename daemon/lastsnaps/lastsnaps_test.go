package lastsnaps

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// keep keeps snap as session's last snapshot in l, as the core does
// (sized first), and answers the one it replaces.
func keep(l *Book, session string, snap *target.Snapshot) *target.Snapshot {
	return l.Keep(session, snap, Size(snap))
}

// TestLastSnapshotsBounded: a target keeps one snapshot per session, for
// at most MaxSessions sessions, forgetting the oldest.
func TestLastSnapshotsBounded(t *testing.T) {
	var l Book
	s1 := &target.Snapshot{Title: "one"}
	if prev := keep(&l, "s0", s1); prev != nil {
		t.Fatal("a first snapshot replaced one")
	}
	if prev := keep(&l, "s0", &target.Snapshot{}); prev != s1 {
		t.Fatal("the second snapshot did not answer the first")
	}
	for i := range MaxSessions {
		keep(&l, "t"+string(rune('a'+i)), &target.Snapshot{})
	}
	if len(l.by) != MaxSessions || len(l.order) != MaxSessions {
		t.Fatalf("%d snapshots kept (%d in order), want %d", len(l.by), len(l.order), MaxSessions)
	}
	if _, ok := l.by["s0"]; ok {
		t.Fatal("the oldest session's snapshot was kept past the bound")
	}
}

// bigTree is a snapshot of n nodes, each named with 1000 characters.
func bigTree(n int) *target.Snapshot {
	root := &target.Node{Role: "frame", Key: "root"}
	for i := range n {
		root.Children = append(root.Children, &target.Node{Role: "label", Key: fmt.Sprint(i), Name: strings.Repeat("x", 1000)})
	}
	return &target.Snapshot{Root: root}
}

// TestLastSnapshotsBoundedInBytes: what a target keeps for --diff is
// bounded in bytes across its sessions (the oldest forgotten first; a tree
// too big alone is not kept), and a session's tree goes when it detaches.
func TestLastSnapshotsBoundedInBytes(t *testing.T) {
	var l Book
	third := MaxBytes / 3 / 1300 // nodes of about a third of the bound
	for _, s := range []string{"a", "b", "c", "d"} {
		keep(&l, s, bigTree(third))
	}
	if l.bytes > MaxBytes || len(l.by) != 3 {
		t.Fatalf("%d bytes kept in %d trees, bound %d", l.bytes, len(l.by), MaxBytes)
	}
	if _, ok := l.by["a"]; ok {
		t.Fatal("the oldest was kept past the bound in bytes")
	}
	keep(&l, "huge", bigTree(MaxBytes/1000))
	if _, ok := l.by["huge"]; ok || len(l.by) != 3 {
		t.Fatalf("a tree larger than the bound was kept (%d trees)", len(l.by))
	}
}

// TestNamedFromTheNewestSnapshot: a node is named as the session's newest
// kept snapshot that shows it named it, never from another session's, and
// not at all when none shows it (the act then reads it).
func TestNamedFromTheNewestSnapshot(t *testing.T) {
	var l Book
	tree := func(name string, keys ...string) *target.Snapshot {
		root := &target.Node{Role: "document web", Key: "root"}
		for _, k := range keys {
			root.Children = append(root.Children, &target.Node{Role: "push button", Name: name, Key: k})
		}
		return &target.Snapshot{Root: root}
	}
	l.KeepView("a", View{}, tree("Old", "1", "2"), 1)
	l.KeepView("a", View{Interactive: true}, tree("New", "2"), 1)
	l.KeepView("b", View{}, tree("Theirs", "3"), 1)
	l.KeepView("c", View{}, &target.Snapshot{}, 1) // a tree with no root
	for _, c := range []struct {
		session, key, want string
	}{
		{"a", "2", "New"}, // the newest that shows it
		{"a", "1", "Old"}, // an older one, where the newest does not show it
		{"a", "3", ""},    // only another session's shows it
		{"b", "3", "Theirs"},
		{"a", "", ""},  // no key names no node
		{"c", "1", ""}, // none of its trees shows it
		{"nobody", "1", ""},
	} {
		got := l.Named(c.session, c.key)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("Named(%q, %q) = %+v, want none", c.session, c.key, *got)
		case c.want != "" && (got == nil || got.Name != c.want || got.Role != "push button"):
			t.Errorf("Named(%q, %q) = %+v, want push button %q", c.session, c.key, got, c.want)
		}
	}
}
