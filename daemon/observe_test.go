package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
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
	if got := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}.With(args.Snapshot{Observe: args.Observe{Diff: true}})); got.Text != "unchanged\n" {
		t.Fatalf("a's second look: %q (did %q)", got.Text, got.Did)
	}
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: id}.With(args.Share{With: "b"})), "")
	wantCode(t, td.call(t, Request{Verb: "detach", Session: "a", Target: id}), "")
	first := td.call(t, Request{Verb: "snapshot", Session: "b", Target: id}.With(args.Snapshot{Observe: args.Observe{Diff: true}}))
	wantCode(t, first, "")
	if !strings.Contains(first.Did, "no earlier snapshot") || !strings.HasPrefix(first.Text, "# ") {
		t.Fatalf("b's first --diff: did %q\n%s", first.Did, first.Text)
	}
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "b", Target: id}.With(args.Snapshot{Observe: args.Observe{Depth: -1}})), target.CodeBadRequest)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "b", Target: id}.With(args.Snapshot{Observe: args.Observe{Depth: 1, Diff: true}})), target.CodeBadRequest)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "b", Target: id}.With(args.Snapshot{Observe: args.Observe{Ref: "@e999"}})), target.CodeBadRef)
	wantCode(t, td.call(t, Request{Verb: "find", Session: "b", Target: id}.With(args.Find{Text: " "})), target.CodeBadRequest)
}

// TestDiffForgottenOnDetach: a session that detached from a target and
// attaches again gets a whole snapshot from its next --diff.
func TestDiffForgottenOnDetach(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	e := td.entryOf(target.ID(id))
	kept := func() int { td.mu.Lock(); defer td.mu.Unlock(); return e.last.Len() }
	if kept() != 1 {
		t.Fatalf("trees kept: %d", kept())
	}
	wantCode(t, td.call(t, Request{Verb: "detach", Session: "a", Target: id}), "")
	if kept() != 0 {
		t.Fatalf("the detached session's tree is kept")
	}
	wantCode(t, td.call(t, Request{Verb: "attach", Session: "a", Target: id}), "")
	again := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}.With(args.Snapshot{Observe: args.Observe{Diff: true}}))
	if !strings.Contains(again.Did, "no earlier snapshot") {
		t.Fatalf("--diff after a detach: did %q\n%s", again.Did, again.Text)
	}
}

// TestSnapshotAfter: snapshot --after reads what follows a node of a tab's
// page, seen as any snapshot is (-i, --depth, --json), and is not kept as
// the session's last snapshot (the next --diff is against the whole
// read). A window's snapshot does not page; --after with a scope or with
// --diff makes no sense; each is refused bad_request, saying why.
func TestSnapshotAfter(t *testing.T) {
	br := kindtest.NewBrowser()
	td := startKinds(t, "", br, &kindtest.Provider{})
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})), "")
	whole := td.call(t, Request{Verb: "browser.snapshot", Session: "a", JSON: true})
	wantCode(t, whole, "")
	refs := map[string]string{} // by name
	whole.Snapshot.Root.Walk(func(n *target.Node, _ int) bool {
		refs[n.Name] = n.Ref
		return true
	})
	alpha := refs["Alpha"]
	if alpha == "" || refs["Name"] == "" {
		t.Fatalf("no refs in the whole snapshot: %v", refs)
	}

	page := td.call(t, Request{Verb: "browser.snapshot", Session: "a"}.With(args.Snapshot{After: alpha}))
	wantCode(t, page, "")
	if strings.Contains(page.Text, "Alpha") || !strings.Contains(page.Text, "Press area") || !strings.Contains(page.Text, refs["Name"]) {
		t.Fatalf("the page after %s:\n%s", alpha, page.Text)
	}
	if !strings.Contains(page.Did, "after "+alpha) {
		t.Fatalf("the page after %s says %q", alpha, page.Did)
	}
	// The ref may be given without its @, as everywhere.
	seen := td.call(t, Request{Verb: "browser.snapshot", Session: "a", JSON: true}.With(args.Snapshot{Observe: args.Observe{Interactive: true, Depth: 1}, After: strings.TrimPrefix(alpha, "@")}))
	wantCode(t, seen, "")
	if seen.Snapshot == nil || !seen.Snapshot.Interactive || seen.Snapshot.Root.Find(func(n *target.Node) bool { return n.Name == "Alpha" }) != nil {
		t.Fatalf("the -i --json page after %s: %+v", alpha, seen.Snapshot)
	}
	if seen.Snapshot.Root.Find(func(n *target.Node) bool { return n.Name == "Name" }) == nil || !strings.Contains(seen.Did, "after "+alpha+": ") {
		t.Fatalf("the -i --json page after %s lost the entry: %+v (did %q)", alpha, seen.Snapshot, seen.Did)
	}
	// The pages were not kept for --diff: the whole read still is.
	if got := td.call(t, Request{Verb: "browser.snapshot", Session: "a"}.With(args.Snapshot{Observe: args.Observe{Diff: true}})); got.Text != "unchanged\n" {
		t.Fatalf("--diff after reading pages: %q (did %q)", got.Text, got.Did)
	}

	for _, c := range []struct {
		req  args.Snapshot
		code target.Code
		says string
	}{
		{args.Snapshot{Observe: args.Observe{Ref: refs["Name"]}, After: alpha}, target.CodeBadRequest, "snapshot @ref reads one part"},
		{args.Snapshot{Observe: args.Observe{Diff: true}, After: alpha}, target.CodeBadRequest, "--diff answers what changed since your last whole snapshot"},
		{args.Snapshot{After: "@e999"}, target.CodeBadRef, "never minted"},
		{args.Snapshot{After: "nine"}, target.CodeBadRef, "not a ref"},
	} {
		r := td.call(t, Request{Verb: "browser.snapshot", Session: "a"}.With(c.req))
		wantCode(t, r, c.code)
		if !strings.Contains(r.Message, c.says) {
			t.Fatalf("%+v: %q, want it to say %q", c.req, r.Message, c.says)
		}
	}

	win := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: win}), "")
	r := td.call(t, Request{Verb: "snapshot", Session: "a", Target: win}.With(args.Snapshot{After: "@e2"}))
	wantCode(t, r, target.CodeBadRequest)
	if !strings.Contains(r.Message, "--after pages a browser tab's snapshot") || !strings.Contains(r.Message, win) {
		t.Fatalf("--after on %s: %q", win, r.Message)
	}
}
