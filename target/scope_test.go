package target

import (
	"strings"
	"testing"
)

// people is a small page: a form and a table of rows, each with an Edit
// link and a Delete button; text runs without a key, as a tab has them.
func people() *Snapshot {
	act := func(role, name, key string) *Node {
		return &Node{Role: role, Name: name, Key: key, Interfaces: []string{"Action"}, Actions: []string{"click"}, States: []string{"sensitive", "showing"}}
	}
	row := func(i, name string) *Node {
		return &Node{Role: "row", Name: name, Key: "row" + i, Children: []*Node{
			{Role: "cell", Key: "cell" + i, Children: []*Node{{Role: "static", Name: name}}},
			{Role: "cell", Key: "act" + i, Children: []*Node{act("link", "Edit", "edit"+i), act("push button", "Delete", "del"+i)}},
		}}
	}
	s := &Snapshot{Target: "tab:1", Title: "People", Compact: true, Root: &Node{Role: "document web", Name: "People", Children: []*Node{
		{Role: "heading", Name: "People", Key: "h1", Level: 1},
		{Role: "form", Name: "Search", Key: "form", Children: []*Node{
			{Role: "entry", Name: "Query", Key: "q", Interfaces: []string{"EditableText"}, States: []string{"editable", "sensitive", "showing"}, Text: "ada"},
			{Role: "check box", Name: "Dark", Key: "dark", Interfaces: []string{"Action"}, Actions: []string{"click"}, States: []string{"sensitive", "showing"}},
		}},
		{Role: "table", Name: "People", Key: "table", Children: []*Node{row("1", "Ada Lovelace"), row("2", "Alan Turing")}},
	}}}
	NewRefTable().Assign(s)
	s.Census = s.Root.Count()
	return s
}

func refOf(t *testing.T, s *Snapshot, key string) string {
	t.Helper()
	n := s.Root.Find(func(n *Node) bool { return n.Key == key })
	if n == nil || n.Ref == "" {
		t.Fatalf("no node %s", key)
	}
	return n.Ref
}

func TestScopeKeepsTheSubtreeAndItsRefs(t *testing.T) {
	s := people()
	sub, ok := s.Scope("row1")
	if !ok {
		t.Fatal("row1 not found")
	}
	if sub.Root.Ref != refOf(t, s, "row1") || sub.Census.Nodes != 6 {
		t.Fatalf("scope root %s census %+v", sub.Root.Ref, sub.Census)
	}
	text := sub.AnswerText(Framing{Scope: sub.Root.Ref})
	want := "# " + refOf(t, s, "row1") + ": 6 nodes, 2 action, 0 editable\n" +
		`row "Ada Lovelace" ` + refOf(t, s, "row1") + "\n" +
		"  cell " + refOf(t, s, "cell1") + "\n" +
		`    static "Ada Lovelace"` + "\n" +
		"  cell " + refOf(t, s, "act1") + "\n" +
		`    link "Edit" ` + refOf(t, s, "edit1") + "\n" +
		`    push button "Delete" ` + refOf(t, s, "del1") + "\n"
	if text != want {
		t.Fatalf("scoped text:\n%s\nwant:\n%s", text, want)
	}
	if strings.Contains(text, "Alan") || strings.Contains(text, "Query") {
		t.Fatal("the scope shows nodes outside it")
	}
	if _, ok := s.Scope("nope"); ok {
		t.Fatal("a key not in the tree was found")
	}
}

func TestAnswerHeaderKeepsCountsOnly(t *testing.T) {
	s := people()
	text := s.AnswerText(Framing{})
	head, _, _ := strings.Cut(text, "\n")
	if head != "# 18 nodes, 5 action, 1 editable" {
		t.Fatalf("header %q", head)
	}
	// The body is WriteText's, line for line.
	_, body, _ := strings.Cut(s.Text(), "\n")
	if _, got, _ := strings.Cut(text, "\n"); got != body {
		t.Fatalf("body differs from WriteText's:\n%s\nwant\n%s", got, body)
	}
	w := &Snapshot{Target: "win:1", Title: "Fixture", Census: Census{Nodes: 3, Action: 1}, Root: &Node{Role: "frame", Name: "Fixture"}}
	if head, _, _ := strings.Cut(w.AnswerText(Framing{}), "\n"); head != "# 3 nodes, 1 action, 0 editable, 0 unreadable" {
		t.Fatalf("window header %q", head)
	}
}

func TestCutDepthSaysWhatItCut(t *testing.T) {
	s := people()
	cut, c := s.CutDepth(1)
	// The document is not printed: depth 1 is its children.
	if c.Nodes != 14 || len(c.At) != 2 {
		t.Fatalf("cut %+v", c)
	}
	if c.At[0].Ref != refOf(t, s, "form") || c.At[0].Below != 2 || c.At[1].Ref != refOf(t, s, "table") || c.At[1].Below != 12 {
		t.Fatalf("cut points %+v", c.At)
	}
	text := cut.AnswerText(Framing{Cut: c})
	for _, want := range []string{
		"; depth 1: 14 nodes below not shown (snapshot " + refOf(t, s, "form") + " shows what is below it)\n",
		`form "Search" ` + refOf(t, s, "form") + " +2 below\n",
		`table "People" ` + refOf(t, s, "table") + " +12 below\n",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("no %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Query") || strings.Count(text, "\n") != 4 {
		t.Fatalf("depth 1 shows more:\n%s", text)
	}
	// The original is untouched.
	if len(s.Root.Children[2].Children) != 2 {
		t.Fatal("CutDepth changed the snapshot it cut")
	}
	if same, c3 := s.CutDepth(0); same != s || c3.Nodes != 0 {
		t.Fatal("depth 0 cut something")
	}
}

func TestNodeText(t *testing.T) {
	s := people()
	row, _ := s.Scope("row1")
	if got, _ := NodeText(row.Root); got != "Ada Lovelace Edit Delete" {
		t.Fatalf("row text %q", got)
	}
	q, _ := s.Scope("q")
	if got, _ := NodeText(q.Root); got != "ada" {
		t.Fatalf("entry text %q", got)
	}
	if got, cut := NodeText(&Node{Text: "abc", TextLen: 10}); got != "abc" || !cut {
		t.Fatalf("a cut value: %q %v", got, cut)
	}
}

// A page's pieces of text are joined as the page lays them out: inline
// pieces run on ("json." "dumps" "(" read "json.dumps("), a space where the
// page has one, a new line after a block; a toolkit's (no flow said) with
// a space between.
func TestNodeTextFlow(t *testing.T) {
	sig := &Node{Role: "term", Children: []*Node{
		{Role: "static", Name: "json.", Flow: FlowLine},
		{Role: "static", Name: "dumps", Flow: FlowRun},
		{Role: "static", Name: "(", Flow: FlowRun},
		{Role: "emphasis", Flow: FlowRun, Children: []*Node{{Role: "static", Name: "obj", Flow: FlowRun}}},
		{Role: "static", Name: ", ", Flow: FlowRun},
		{Role: "link", Name: "skipkeys", Flow: FlowRun},
		{Role: "static", Name: "=False", Flow: FlowRun},
		{Role: "static", Name: "and", Flow: FlowSpace},
		{Role: "paragraph", Flow: FlowLine, Children: []*Node{{Role: "static", Name: "Serialize obj.", Flow: FlowLine}}},
		{Role: "cell", Flow: FlowCell, Children: []*Node{{Role: "static", Name: "x", Flow: FlowCell}}},
	}}
	if got, _ := NodeText(sig); got != "json.dumps(obj, skipkeys=False and\nSerialize obj. x" {
		t.Fatalf("%q", got)
	}
}

// An empty field's text is empty: not its name (its label's words, or a
// toolkit's class name).
func TestNodeTextEmptyField(t *testing.T) {
	for _, n := range []*Node{
		{Role: "text", Name: "Name", Interfaces: []string{"EditableText", "Text"}},
		{Role: "entry", Name: "Email", Interfaces: []string{"EditableText", "Text"}},
	} {
		if got, cut := NodeText(n); got != "" || cut {
			t.Errorf("%s %q: %q", n.Role, n.Name, got)
		}
	}
	if got, _ := NodeText(&Node{Role: "label", Name: "Total", Interfaces: []string{"Text"}}); got != "Total" {
		t.Errorf("a label's text: %q", got)
	}
}
