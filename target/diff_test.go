package target

import (
	"strings"
	"testing"
)

// clone copies a tree deeply, so a test can change one snapshot of it.
func clone(n *Node) *Node {
	c := *n
	c.States = append([]string(nil), n.States...)
	c.Children = nil
	for _, k := range n.Children {
		c.Children = append(c.Children, clone(k))
	}
	return &c
}

func again(s *Snapshot) *Snapshot {
	c := *s
	c.Root = clone(s.Root)
	return &c
}

func TestDiffUnchanged(t *testing.T) {
	s := people()
	d := DiffSnapshots(s, again(s))
	if !d.Unchanged() || d.Text() != "unchanged\n" {
		t.Fatalf("diff of the same tree: %+v", d)
	}
	// Bounds are not compared.
	b := again(s)
	b.Root.Children[1].Bounds = &Rect{X: 5, Y: 5, W: 10, H: 10}
	if d := DiffSnapshots(s, b); !d.Unchanged() {
		t.Fatalf("a move is a change: %s", d.Text())
	}
}

func TestDiffStatesNameText(t *testing.T) {
	s := people()
	n := again(s)
	dark := n.Root.Find(func(x *Node) bool { return x.Key == "dark" })
	dark.States = append(dark.States, "checked", "focused")
	q := n.Root.Find(func(x *Node) bool { return x.Key == "q" })
	q.Text = "ada l"
	cell := n.Root.Find(func(x *Node) bool { return x.Key == "cell2" })
	cell.Children[0].Name = "Alan M. Turing" // a text run without a key: its cell's text
	d := DiffSnapshots(s, n)
	want := `~ entry "Query" ` + refOf(t, s, "q") + `: text "ada" → "ada l"` + "\n" +
		`~ check box "Dark" ` + refOf(t, s, "dark") + ": unchecked → checked; +focused\n" +
		"~ cell " + refOf(t, s, "cell2") + `: text "Alan Turing" → "Alan M. Turing"` + "\n"
	if d.Text() != want || d.Changed != 3 || d.Added+d.Removed != 0 {
		t.Fatalf("diff:\n%s\nwant:\n%s(%+v)", d.Text(), want, d)
	}
}

func TestDiffAddedRemovedFolded(t *testing.T) {
	s := people()
	n := again(s)
	table := n.Root.Children[2]
	table.Children = table.Children[:1] // row 2 removed, with the 4 nodes with a key below it
	n.Root.Children = append(n.Root.Children, &Node{Role: "dialog", Name: "About", Key: "about", Children: []*Node{
		{Role: "push button", Name: "Close", Key: "close"}, {Role: "label", Name: "v1", Key: "v1"},
	}})
	refs := NewRefTable()
	refs.Assign(s) // the same order: s's refs again
	refs.Assign(n) // the new nodes get new refs
	d := DiffSnapshots(s, n)
	want := `+ dialog "About" ` + refOf(t, n, "about") + " +2 below\n" +
		`- row "Alan Turing" ` + refOf(t, s, "row2") + " +4 below\n"
	if d.Text() != want || d.Added != 3 || d.Removed != 5 || d.Changed != 0 {
		t.Fatalf("diff:\n%s\nwant:\n%s(%+v)", d.Text(), want, d)
	}
	// The first snapshot: everything is added.
	// A node without a name says its text.
	m := again(s)
	m.Root.Children = append(m.Root.Children, &Node{Role: "list item", Key: "li", Ref: "@e99", Children: []*Node{{Role: "static", Name: "Fresh 1"}}})
	if got := DiffSnapshots(s, m).Text(); got != `+ list item @e99 ="Fresh 1"`+"\n" {
		t.Fatalf("an unnamed node added: %q", got)
	}
	if d := DiffSnapshots(nil, s); d.Added != 16 || len(d.Changes) != 1 {
		t.Fatalf("diff from nothing: %+v", d)
	}
}

func TestFindWithContext(t *testing.T) {
	s := people()
	f := s.FindText("edit", 10)
	want := `link "Edit" ` + refOf(t, s, "edit1") + ` in row "Ada Lovelace" ` + refOf(t, s, "row1") + `, table "People" ` + refOf(t, s, "table") + "\n" +
		`link "Edit" ` + refOf(t, s, "edit2") + ` in row "Alan Turing" ` + refOf(t, s, "row2") + `, table "People" ` + refOf(t, s, "table") + "\n"
	if f.Text() != want || f.Searched != 18 {
		t.Fatalf("find:\n%s\nwant:\n%s(searched %d)", f.Text(), want, f.Searched)
	}
	// A text run without a ref counts as its cell, and the row its words
	// name stands for both, once; a value matches.
	if got := s.FindText("LOVELACE", 10).Text(); got != `row "Ada Lovelace" `+refOf(t, s, "row1")+` in table "People" `+refOf(t, s, "table")+"\n" {
		t.Fatalf("find lovelace:\n%s", got)
	}
	if got := s.FindText("ada", 10).Text(); !strings.Contains(got, `entry "Query" `+refOf(t, s, "q")+` ="ada" in form "Search" `+refOf(t, s, "form")+"\n") {
		t.Fatalf("find by value:\n%s", got)
	}
	// An unnamed row is named by its first words.
	u := again(s)
	u.Root.Children[2].Children[0].Name = ""
	if got := u.FindText("edit", 1).Text(); !strings.HasPrefix(got, `link "Edit" `+refOf(t, s, "edit1")+` in row "Ada Lovelace" `) {
		t.Fatalf("an unnamed row as context:\n%s", got)
	}
	// The cap, and no match.
	if f := s.FindText("e", 2); len(f.Matches) != 2 || f.More == 0 || !strings.Contains(f.Text(), "more matches not shown") {
		t.Fatalf("cap: %+v", f)
	}
	if got := s.FindText("zebra", 10).Text(); got != `no match for "zebra" among 18 nodes`+"\n" {
		t.Fatalf("no match: %q", got)
	}
}

// A long text that changed past its first 80 characters (a page's status
// line) says where it changed, in the line and in the JSON's From/To.
func TestDiffLongTextClippedAroundTheChange(t *testing.T) {
	page := strings.Repeat("Welcome to the shop, browse the aisles below. ", 4)
	old := &Snapshot{Root: &Node{Role: "document web", Children: []*Node{{Role: "static", Name: page + "Saved 3 items. " + page}}}}
	new := again(old)
	new.Root.Children[0].Name = page + "Saved 4 items. " + page
	d := DiffSnapshots(old, new)
	if len(d.Changes) != 1 || len(d.Changes[0].What) != 1 {
		t.Fatalf("diff: %+v", d)
	}
	f := d.Changes[0].What[0]
	if !strings.Contains(f.From, "Saved 3 items") || !strings.Contains(f.To, "Saved 4 items") || !strings.HasPrefix(f.From, "…") {
		t.Fatalf("the change is not shown: %q → %q", f.From, f.To)
	}
	if n := len([]rune(f.From)); n > diffClip+2 {
		t.Fatalf("from is %d characters: %q", n, f.From)
	}
	if line := d.Text(); !strings.Contains(line, "Saved 3 items") || !strings.Contains(line, "Saved 4 items") {
		t.Fatalf("line: %s", line)
	}
}

// A range value that moved is a change (a slider dragged).
func TestDiffValue(t *testing.T) {
	old := &Snapshot{Root: &Node{Role: "frame", Key: "w", Children: []*Node{
		{Role: "slider", Name: "Volume", Key: "vol", Ref: "@e12", Value: &Value{Current: 42, Min: 0, Max: 100}}}}}
	new := again(old)
	new.Root.Children[0].Value = &Value{Current: 60, Min: 0, Max: 100}
	if got := DiffSnapshots(old, new).Text(); got != `~ slider "Volume" @e12: =42 → =60`+"\n" {
		t.Fatalf("slider moved: %q", got)
	}
	new.Root.Children[0].Value = &Value{Current: 42, Min: 0, Max: 50}
	if got := DiffSnapshots(old, new).Text(); got != `~ slider "Volume" @e12: =42 (0–100) → =42 (0–50)`+"\n" {
		t.Fatalf("bounds changed: %q", got)
	}
}

// An unnamed row is named one way by find and by -i: its first text that
// is not a control's — not the check box "Select" in its first cell.
func TestUnnamedRowNamedAlikeByFindAndInteractive(t *testing.T) {
	s := people()
	row := s.Root.Children[2].Children[0]
	row.Name = ""
	pick := &Node{Role: "check box", Name: "Select", Key: "pick1", Interfaces: []string{"Action"}, Actions: []string{"click"}, States: []string{"sensitive", "showing"}}
	row.Children = append([]*Node{{Role: "cell", Key: "pickcell1", Children: []*Node{pick}}}, row.Children...)
	NewRefTable().Assign(s)
	found := s.FindText("edit", 1).Text()
	if !strings.Contains(found, ` in row "Ada Lovelace" `) {
		t.Fatalf("find names the row otherwise:\n%s", found)
	}
	view := s.InteractiveView().Text()
	if !strings.Contains(view, `row "Ada Lovelace"`) || strings.Contains(view, `row "Select"`) {
		t.Fatalf("-i names the row otherwise:\n%s", view)
	}
}
