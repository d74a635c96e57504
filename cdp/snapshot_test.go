package cdp_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// openPage opens the test page in a fresh context's tab.
func openPage(t *testing.T) *cdp.Tab {
	t.Helper()
	c := newContext(t)
	srv := server(t)
	tab, err := c.NewTab(ctxT(t), srv.URL+"/page")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// refTables keeps each tab's ref table, as the daemon keeps a target's.
var refTables sync.Map // *cdp.Tab → *target.RefTable

func refsOf(tab *cdp.Tab) *target.RefTable {
	r, _ := refTables.LoadOrStore(tab, target.NewRefTable())
	return r.(*target.RefTable)
}

// nr is the node a ref of tab's table names, as the daemon hands it to the
// tab; a ref the table never minted names no node (no key), which the tab
// refuses stale_ref.
func nr(tab *cdp.Tab, ref string) cdp.NodeRef {
	key, _ := refsOf(tab).Key(ref)
	return cdp.NodeRef{Ref: ref, Key: key}
}

// typeInto focuses the text field of ref (none: the focused element) and
// types text into it, as the daemon's type @ref does.
func typeInto(ctx context.Context, tab *cdp.Tab, ref, text string) error {
	if ref != "" {
		if err := tab.Focus(ctx, nr(tab, ref)); err != nil {
			return err
		}
	}
	return tab.Type(ctx, text)
}

func snapshot(t *testing.T, tab *cdp.Tab, interactive bool) *target.Snapshot {
	t.Helper()
	s, err := tab.Snapshot(ctxT(t), refsOf(tab), interactive)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// find returns the node with role and name, failing the test without one.
func find(t *testing.T, s *target.Snapshot, role, name string) *target.Node {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil {
		t.Fatalf("no %s %q in the snapshot:\n%s", role, name, s.Text())
	}
	return n
}

// The test page's snapshot has the roles, names, states and refs an agent
// needs, in the shared shape.
func TestSnapshotShape(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	s := snapshot(t, tab, false)
	t.Logf("snapshot:\n%s", s.Text())
	// The target's handle is the daemon's to name, not this package's.
	if s.Title != "Anchor test page" || s.Target != "" {
		t.Errorf("title %q target %q", s.Title, s.Target)
	}
	if s.Root.Role != "document web" {
		t.Errorf("root role %q", s.Root.Role)
	}
	for _, w := range []struct{ role, name string }{
		{"heading", "Anchor test page"},
		{"entry", "Name"},
		{"check box", "I agree"},
		{"push button", "Increment"},
		{"push button", "Disabled button"},
		{"link", "Other page"},
		{"entry", "Notes"},
	} {
		n := find(t, s, w.role, w.name)
		if !strings.HasPrefix(n.Ref, "@e") {
			t.Errorf("%s %q has no ref", w.role, w.name)
		}
	}
	if n := find(t, s, "push button", "Increment"); !n.Actionable() || n.Disabled() {
		t.Errorf("Increment: actionable %v disabled %v", n.Actionable(), n.Disabled())
	}
	if n := find(t, s, "push button", "Disabled button"); !n.Disabled() {
		t.Errorf("Disabled button not disabled: %v", n.States)
	}
	if n := find(t, s, "entry", "Name"); !n.Implements("EditableText") {
		t.Errorf("Name entry interfaces %v", n.Interfaces)
	}
	if n := find(t, s, "check box", "I agree"); n.Has("checked") || !n.Has("checkable") {
		t.Errorf("check box states %v", n.States)
	}
	if s.Census.Nodes == 0 || s.Census.Action == 0 || s.Census.Editable < 2 {
		t.Errorf("census %+v", s.Census)
	}

	iv := snapshot(t, tab, true)
	t.Logf("interactive:\n%s", iv.Text())
	if !iv.Interactive {
		t.Error("interactive view not marked")
	}
	// Headings stay in a tab's interactive view, with their refs and level.
	h := find(t, iv, "heading", "Anchor test page")
	if h.Ref != find(t, s, "heading", "Anchor test page").Ref || h.Level != 1 {
		t.Errorf("heading in the interactive view: ref %q level %d", h.Ref, h.Level)
	}
	if !strings.Contains(iv.Text(), "\nheading \"Anchor test page\" "+h.Ref+" h1\n") {
		t.Errorf("the heading's line is not role, name, ref, level:\n%s", iv.Text())
	}
	find(t, iv, "push button", "Increment")
	find(t, iv, "entry", "Name")
	find(t, iv, "link", "Other page")
}

// A heading's ref is clicked like any other: through its DOM node (scrolled
// into view, checked, clicked at its centre); the page's own listener sees
// the click.
func TestClickHeading(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	ref := find(t, snapshot(t, tab, true), "heading", "Anchor test page").Ref
	if _, err := tab.Eval(ctx, `document.querySelector('h1').addEventListener('click', e => { window.headingClicks = (window.headingClicks || 0) + 1; window.headingTarget = e.target.tagName })`); err != nil {
		t.Fatal(err)
	}
	if err := tab.Click(ctx, nr(tab, ref)); err != nil {
		t.Fatalf("click %s: %v", ref, err)
	}
	var got struct {
		N   int    `json:"n"`
		Tag string `json:"tag"`
	}
	if err := tab.EvalInto(ctx, `({n: window.headingClicks || 0, tag: window.headingTarget || ''})`, &got); err != nil {
		t.Fatal(err)
	}
	if got.N != 1 || got.Tag != "H1" {
		t.Fatalf("the heading saw %d clicks (target %q), want 1 on H1", got.N, got.Tag)
	}
}

// On a fresh page the nodes the interactive view shows get the first refs,
// in document order, so an agent reads short refs.
func TestInteractiveRefsFirst(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	iv := snapshot(t, tab, true)
	n := 0
	iv.Root.Walk(func(x *target.Node, _ int) bool {
		if x.Ref == "" {
			return true
		}
		n++
		if want := "@e" + strconv.Itoa(n); x.Ref != want {
			t.Errorf("%s %q has %s, want %s (interactive nodes first, in order)", x.Role, x.Name, x.Ref, want)
		}
		return true
	})
	if n == 0 {
		t.Fatalf("no refs in the interactive view:\n%s", iv.Text())
	}
}

// Refs are stable across two snapshots of an unchanged page, and a ref whose
// node was removed is stale_ref.
func TestRefsStableThenStale(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	s1 := snapshot(t, tab, false)
	s2 := snapshot(t, tab, false)
	if a, b := s1.Text(), s2.Text(); a != b {
		t.Fatalf("two snapshots of an unchanged page differ:\n%s\n---\n%s", a, b)
	}
	ref := find(t, s1, "push button", "Remove me").Ref
	if _, err := tab.Eval(ctx, `document.getElementById('doomed').remove()`); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tab.Click(ctx, nr(tab, ref)), target.CodeStaleRef)
	// Even once the node is collected, and after another snapshot.
	if _, err := tab.Eval(ctx, `new Promise(r => setTimeout(r, 0))`); err != nil {
		t.Fatal(err)
	}
	s3 := snapshot(t, tab, false)
	if s3.Root.Find(func(n *target.Node) bool { return n.Ref == ref }) != nil {
		t.Fatalf("%s still in the snapshot after its node was removed", ref)
	}
	wantCode(t, tab.Click(ctx, nr(tab, ref)), target.CodeStaleRef)
	// Others keep theirs.
	if got := find(t, s3, "push button", "Increment").Ref; got != find(t, s1, "push button", "Increment").Ref {
		t.Fatalf("Increment's ref changed from %s to %s", find(t, s1, "push button", "Increment").Ref, got)
	}
	// A ref the tab's table never minted, or no ref at all, names nothing
	// (the table refuses it before the tab is asked).
	for _, bad := range []string{"@e99999", "e1x"} {
		_, err := refsOf(tab).Key(bad)
		wantCode(t, err, target.CodeBadRef)
	}

	// A navigation makes every old ref stale.
	url, err := tab.URL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inc := find(t, s3, "push button", "Increment").Ref
	if err := tab.Navigate(ctx, strings.Replace(url, "/page", "/other", 1)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tab.Click(ctx, nr(tab, inc)), target.CodeStaleRef)
}
