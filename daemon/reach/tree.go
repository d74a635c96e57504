package reach

// Rungs 2 and 4 read a page through its accessibility tree (a tab's, or a
// headed browser's window's): what in it says the tree cannot serve.

import (
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// tree is what the ladder reads of a snapshot.
type tree struct {
	text     string // every node's name and text, a node a line
	words    int
	canvas   int // canvas nodes with no name and nothing under them
	unnamed  []string
	password bool
}

// controls are the roles of nodes an agent acts on, which a name tells
// apart.
var controls = map[string]bool{"push button": true, "toggle button": true, "link": true, "check box": true,
	"radio button": true, "combo box": true, "menu item": true, "slider": true, "spin button": true, "switch": true}

// readTree reads snap.
func readTree(snap *target.Snapshot) tree {
	var t tree
	var b strings.Builder
	var walk func(n *target.Node)
	walk = func(n *target.Node) {
		if n == nil {
			return
		}
		for _, s := range []string{n.Name, n.Text} {
			if s = strings.TrimSpace(s); s != "" {
				b.WriteString(s + "\n")
			}
		}
		switch {
		case n.Role == "canvas" && n.Name == "" && len(n.Children) == 0:
			t.canvas++
		case controls[n.Role] && strings.TrimSpace(n.Name) == "" && !hasText(n):
			t.unnamed = append(t.unnamed, strings.TrimSpace(n.Role+" "+n.Ref))
		case n.Role == "password text", n.Role == "entry" && strings.Contains(strings.ToLower(n.Name), "password"):
			t.password = true
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if snap != nil {
		walk(page(snap.Root))
	}
	t.text = lines(b.String())
	t.words = len(strings.Fields(t.text))
	return t
}

// page is the page's part of a tree: its first "document web" node (a
// headed browser's window holds its own controls around it), else root.
func page(root *target.Node) *target.Node {
	var doc *target.Node
	var walk func(n *target.Node)
	walk = func(n *target.Node) {
		if n == nil || doc != nil {
			return
		}
		if n.Role == "document web" {
			doc = n
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	if doc == nil {
		return root
	}
	return doc
}

// hasText reports whether anything under n says something.
func hasText(n *target.Node) bool {
	for _, c := range n.Children {
		if strings.TrimSpace(c.Name) != "" || strings.TrimSpace(c.Text) != "" || hasText(c) {
			return true
		}
	}
	return false
}

// signals are what the tree says rung r (a tree's) cannot serve.
func (t tree) signals(r Rung, title string) []wire.ReachSignal {
	var out []wire.ReachSignal
	if phrase := botPhrase(strings.ToLower(title+"\n"+t.text), ""); phrase != "" {
		out = append(out, saw(r, BotCheck, "the page is a check that a person is there (%q)", phrase))
	}
	if t.password && t.words < loginWords {
		out = append(out, saw(r, LoginPage, "a password field on a page of %d words", t.words))
	}
	if t.canvas > 0 {
		out = append(out, saw(r, Canvas, "%d canvas node(s) with no name and nothing under them: the tree cannot say what they show", t.canvas))
	}
	if n := len(t.unnamed); n > 0 {
		out = append(out, saw(r, UnnamedControls, "%d control(s) with no name: %s", n, strings.Join(first(t.unnamed, 5), ", ")))
	}
	if t.words == 0 && t.canvas == 0 {
		out = append(out, saw(r, EmptyContent, "the tree holds no text"))
	}
	return out
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("%d more", len(s)-n))
}

// findControl is the node of snap an agent would click for name (its
// name contains it, any case; an exact name first), or nil.
func findControl(snap *target.Snapshot, name string) *target.Node {
	want := strings.ToLower(strings.TrimSpace(name))
	var exact, part *target.Node
	var walk func(n *target.Node)
	walk = func(n *target.Node) {
		if n == nil || exact != nil {
			return
		}
		if n.Ref != "" && controls[n.Role] {
			got := strings.ToLower(strings.TrimSpace(n.Name))
			switch {
			case got == want:
				exact = n
			case part == nil && want != "" && strings.Contains(got, want):
				part = n
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if snap != nil {
		walk(page(snap.Root))
	}
	if exact != nil {
		return exact
	}
	return part
}
