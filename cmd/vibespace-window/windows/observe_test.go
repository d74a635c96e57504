package windows_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// diffLines are the change lines of a text --diff answer (or "unchanged").
func diffLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l == "unchanged" || strings.HasPrefix(l, "~ ") || strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ") {
			ls = append(ls, l)
		}
	}
	return ls
}

// onlyFocus reports whether a diff line says nothing but that focus came
// or went.
func onlyFocus(l string) bool {
	_, what, ok := strings.Cut(l, ": ")
	return ok && (what == "+focused" || what == "-focused")
}

// TestObserveLessOnAWindow: on the fixture, snapshot @ref is that subtree
// with the same refs; --depth 1 cuts and says how many; --diff after a
// click on the check box (the fixture logs the toggle) is that change, then
// "unchanged"; a removed button's ref is stale_ref; find answers refs
// with context, capped.
func TestObserveLessOnAWindow(t *testing.T) {
	e := newEnv(t)
	id, log, _ := e.OpenFixture("s1")
	full := e.Snapshot("s1", id)

	// The header says the window and title once: in the target line.
	out := e.OK("s1", "snapshot", id)
	head, _, _ := strings.Cut(snapBody(t, out), "\n")
	if !strings.Contains(out, id+` "vibespace fixture"`) || strings.Contains(head, "vibespace fixture") || strings.Contains(head, id) ||
		!strings.HasPrefix(head, "# "+strconv.Itoa(full.Census.Nodes)+" nodes, ") {
		t.Fatalf("the header repeats the target or lost its counts: %q\n%s", head, out)
	}

	// snapshot @ref: the list's subtree, with the whole tree's refs.
	list := node(t, full, "list box", "Rows")
	scoped := e.Answer("s1", "snapshot", id, list.Ref).Snapshot
	if scoped == nil || scoped.Root.Ref != list.Ref || scoped.Census.Nodes != list.Count().Nodes {
		t.Fatalf("snapshot %s: %+v", list.Ref, scoped)
	}
	byRef := map[string]*target.Node{}
	full.Root.Walk(func(n *target.Node, _ int) bool { byRef[n.Ref] = n; return true })
	scoped.Root.Walk(func(n *target.Node, _ int) bool {
		if f := byRef[n.Ref]; n.Ref != "" && (f == nil || f.Role != n.Role || f.Name != n.Name) {
			t.Errorf("%s is %s %q in the scope, %+v in the whole tree", n.Ref, n.Role, n.Name, f)
		}
		return true
	})
	text := snapBody(t, e.OK("s1", "snapshot", id, list.Ref))
	if !strings.HasPrefix(text, "# "+list.Ref+": ") || !strings.Contains(text, `"Row 60"`) || strings.Contains(text, "Check me") {
		t.Fatalf("snapshot %s:\n%s", list.Ref, text)
	}

	// --depth 1: the frame and its children, and how many nodes were cut.
	text = snapBody(t, e.OK("s1", "snapshot", id, "--depth", "1"))
	m := regexp.MustCompile(`; depth 1: (\d+) nodes below not shown \(snapshot (@e\d+) shows what is below it\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("--depth 1 does not say what it cut:\n%s", text)
	}
	cut, _ := strconv.Atoi(m[1])
	if kept := strings.Count(text, "\n") - 1; kept+cut != full.Census.Nodes || strings.Contains(text, "\n    ") {
		t.Errorf("--depth 1 kept %d lines and cut %d of %d nodes:\n%s", kept, cut, full.Census.Nodes, text)
	}
	if !strings.Contains(text, m[2]+" ") || !strings.Contains(text, " below\n") {
		t.Errorf("the node the cut names (%s) is not marked:\n%s", m[2], text)
	}
	if text := snapBody(t, e.OK("s1", "snapshot", id, "-i", "--depth", "1")); !strings.Contains(text, "interactive view") || strings.Contains(text, "\n    ") {
		t.Errorf("-i --depth 1:\n%s", text)
	}

	// --diff after a click on the check box is that click; again, unchanged.
	check := node(t, full, "check box", "Check me")
	e.OK("s1", "snapshot", id, "--diff")
	from := log.Len()
	e.OK("s1", "click", id, check.Ref)
	if ev := wait(t, log, from, "the toggle", func(ev testenv.Event) bool { return ev.Type == "toggled" && ev.Widget == "check" }); !ev.Active {
		t.Fatalf("the fixture says the box is not active: %+v", ev)
	}
	lines := diffLines(e.OK("s1", "snapshot", id, "--diff"))
	want := `~ check box "Check me" ` + check.Ref + ": unchecked → checked"
	found := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, want):
			found = true
		case onlyFocus(l):
		default:
			t.Errorf("the diff after one click has %q", l)
		}
	}
	if !found {
		t.Fatalf("the diff after the click lacks %q: %q", want, lines)
	}
	if lines := diffLines(e.OK("s1", "snapshot", id, "--diff")); len(lines) != 1 || lines[0] != "unchanged" {
		t.Fatalf("a second --diff with nothing done: %q", lines)
	}

	// A removed button: its diff line, then stale_ref, its ref never reused.
	doomed := node(t, full, "push button", "Remove me")
	from = log.Len()
	e.OK("s1", "click", id, doomed.Ref)
	wait(t, log, from, "the removal", func(ev testenv.Event) bool { return ev.Type == "removed" && ev.Widget == "doomed" })
	lines = diffLines(e.OK("s1", "snapshot", id, "--diff"))
	if !slices.Contains(lines, `- push button "Remove me" `+doomed.Ref) {
		t.Fatalf("the diff after the removal: %q", lines)
	}
	e.Snapshot("s1", id).Root.Walk(func(n *target.Node, _ int) bool {
		if n.Ref == doomed.Ref {
			t.Errorf("%s names %s %q now", doomed.Ref, n.Role, n.Name)
		}
		return true
	})
	e.Refused("stale_ref", "s1", "snapshot", id, doomed.Ref)
	e.Refused("stale_ref", "s1", "click", id, doomed.Ref)
	e.Refused("bad_ref", "s1", "snapshot", id, "@e99999")

	// get text @ref: the entry's text, as the fixture logged it.
	entry := node(t, full, "text", "Name")
	from = log.Len()
	e.OK("s1", "type", id, entry.Ref, "Ada L")
	ev := wait(t, log, from, "the typed text", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "entry" && ev.Text == "Ada L" })
	if got := clitest.LastLine(e.OK("s1", "get", id, "text", entry.Ref)); got != ev.Text {
		t.Fatalf("get text %s = %q, the fixture has %q", entry.Ref, got, ev.Text)
	}
	e.Refused("bad_ref", "s1", "get", id, "text", "@e99999")
	e.Refused("stale_ref", "s1", "get", id, "text", doomed.Ref)

	// find: refs with their context, and the cap.
	row7 := node(t, full, "list item", "Row 7")
	out = e.OK("s1", "find", id, "row 7")
	if !strings.Contains(out, `list item "Row 7" `+row7.Ref+` in list box "Rows" `+list.Ref) {
		t.Fatalf("find row 7:\n%s", out)
	}
	out = e.OK("s1", "find", id, "ROW")
	if got := strings.Count(out, `list item "Row `); got != 25 || !strings.Contains(out, "… 35 more matches not shown") {
		t.Fatalf("find row: %d lines\n%s", got, out)
	}
	if r := e.CLI("s1", "find", id, "zebra"); r.Code != 0 || !strings.Contains(r.Out, `no match for "zebra" among `+strconv.Itoa(e.Snapshot("s1", id).Census.Nodes)+" nodes") {
		t.Fatalf("find zebra: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
}

// TestObserveLessOnWidgetFactory: on a real tree of some hundreds of nodes,
// -i --depth 1 cuts and says how many, a scope is its subtree with the same
// refs, find answers a ref with context, and a --diff with nothing done is
// "unchanged" (no churn reads as a change).
func TestObserveLessOnWidgetFactory(t *testing.T) {
	testenv.NeedIntegration(t, "gtk3-widget-factory")
	e := newEnv(t)
	e.StartServe()
	resp := e.Answer("s1", "open", "gtk3-widget-factory")
	if !resp.OK {
		t.Fatalf("open: %+v", resp)
	}
	e.ReadDesk()
	id := string(resp.Target.ID)
	full := e.Snapshot("s1", id)
	if full.Census.Nodes < 200 {
		t.Fatalf("a small tree: %+v", full.Census)
	}
	text := snapBody(t, e.OK("s1", "snapshot", id, "-i", "--depth", "1"))
	m := regexp.MustCompile(`; depth 1: (\d+) nodes below not shown \(snapshot (@e\d+) shows what is below it\)`).FindStringSubmatch(text)
	if m == nil || strings.Contains(text, "\n    ") {
		t.Fatalf("-i --depth 1:\n%s", text)
	}
	// The scope the cut names: its subtree, with the refs of the whole.
	scoped := e.Answer("s1", "snapshot", id, m[2]).Snapshot
	at := full.Root.Find(func(n *target.Node) bool { return n.Ref == m[2] })
	if scoped == nil || at == nil || scoped.Root.Ref != m[2] || scoped.Census.Nodes != at.Count().Nodes {
		t.Fatalf("snapshot %s: %+v (in the whole tree: %+v)", m[2], scoped, at)
	}
	close := node(t, full, "push button", "Close")
	if out := e.OK("s1", "find", id, "close"); !strings.Contains(out, `push button "Close" `+close.Ref) {
		t.Fatalf("find close:\n%s", out)
	}
	e.OK("s1", "snapshot", id)
	if lines := diffLines(e.OK("s1", "snapshot", id, "--diff")); len(lines) != 1 || lines[0] != "unchanged" {
		t.Fatalf("a --diff with nothing done: %q", lines)
	}
}
