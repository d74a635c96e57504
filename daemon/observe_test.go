package daemon

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// TestSnapshotDiffPerSession: --diff is against the caller's own last
// snapshot of the target: a session that took none gets the whole tree,
// said so; one that did, "unchanged".
func TestSnapshotDiffPerSession(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	if got := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id, Diff: true}); got.Text != "unchanged\n" {
		t.Fatalf("a's second look: %q (did %q)", got.Text, got.Did)
	}
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: id, With: "b"}), "")
	wantCode(t, td.call(t, Request{Verb: "detach", Session: "a", Target: id}), "")
	first := td.call(t, Request{Verb: "snapshot", Session: "b", Target: id, Diff: true})
	wantCode(t, first, "")
	if !strings.Contains(first.Did, "no earlier snapshot") || !strings.HasPrefix(first.Text, "# ") {
		t.Fatalf("b's first --diff: did %q\n%s", first.Did, first.Text)
	}
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "b", Target: id, Depth: -1}), target.CodeBadRequest)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "b", Target: id, Depth: 1, Diff: true}), target.CodeBadRequest)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "b", Target: id, Ref: "@e999"}), target.CodeBadRef)
	wantCode(t, td.call(t, Request{Verb: "find", Session: "b", Target: id, Text: " "}), target.CodeBadRequest)
}

// TestLastSnapshotsBounded: a target keeps one snapshot per session, for
// at most maxLastSessions sessions, forgetting the oldest.
func TestLastSnapshotsBounded(t *testing.T) {
	d := &Daemon{}
	e := newEntry(target.Target{ID: "win:1"}, nil, nil)
	s1 := &target.Snapshot{Title: "one"}
	if prev := d.keepLast(e, "s0", s1); prev != nil {
		t.Fatal("a first snapshot replaced one")
	}
	if prev := d.keepLast(e, "s0", &target.Snapshot{}); prev != s1 {
		t.Fatal("the second snapshot did not answer the first")
	}
	for i := range maxLastSessions {
		d.keepLast(e, "t"+string(rune('a'+i)), &target.Snapshot{})
	}
	if len(e.last.by) != maxLastSessions || len(e.last.order) != maxLastSessions {
		t.Fatalf("%d snapshots kept (%d in order), want %d", len(e.last.by), len(e.last.order), maxLastSessions)
	}
	if _, ok := e.last.by["s0"]; ok {
		t.Fatal("the oldest session's snapshot was kept past the bound")
	}
}
