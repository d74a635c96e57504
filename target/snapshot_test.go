package target

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sample is a small window as a backend would hand it over.
func sample() *Snapshot {
	off := &Rect{X: math.MinInt32, Y: math.MinInt32, W: 874, H: 21}
	root := &Node{Key: "k1", Role: "frame", Name: "vibespace fixture", States: []string{"active", "showing"}, Interfaces: []string{"Accessible", "Component"},
		Bounds: &Rect{0, 0, 900, 700}, Children: []*Node{
			{Key: "k2", Role: "filler", Interfaces: []string{"Accessible", "Component"}, Bounds: &Rect{12, 12, 876, 34}, Children: []*Node{
				{Key: "k3", Role: "push button", Name: "Alpha", States: []string{"sensitive", "focusable", "showing"}, Interfaces: []string{"Accessible", "Action", "Component"}, Actions: []string{"click"}, Bounds: &Rect{12, 12, 71, 34}},
				{Key: "k4", Role: "push button", Name: "Off", States: []string{"focusable", "showing"}, Interfaces: []string{"Accessible", "Action", "Component"}, Actions: []string{"click"}, Bounds: &Rect{91, 12, 64, 34}},
				{Key: "k5", Role: "icon", Name: "unnamed action", States: []string{"sensitive", "showing"}, Interfaces: []string{"Accessible", "Action"}, Actions: []string{""}},
			}},
			{Key: "k6", Role: "check box", Name: "Check \"me\"", States: []string{"sensitive", "focusable", "checked", "showing"}, Interfaces: []string{"Accessible", "Action"}, Actions: []string{"click"}},
			{Key: "k7", Role: "label", Name: "Name:"},
			{Key: "k8", Role: "text", States: []string{"sensitive", "focusable", "focused", "editable", "showing"}, Interfaces: []string{"Accessible", "Text", "EditableText"}, Actions: []string{"activate"}, Text: "hello wo", TextLen: 30},
			{Key: "k9", Role: "list item", Name: "Row 11", Bounds: off, Children: []*Node{{Key: "k10", Role: "label", Name: "Row 11", Interfaces: []string{"Text"}, Text: "Row 11", TextLen: 6}}},
			{Key: "k11", Role: "combo box", States: []string{"sensitive", "expandable", "showing"}, Interfaces: []string{"Action"}, Actions: []string{"press"}, Children: []*Node{
				{Key: "k13", Role: "menu item", Name: "Hidden choice", States: []string{"sensitive", "visible"}, Interfaces: []string{"Action"}, Actions: []string{"click"}},
			}},
			{Key: "k12", Role: "panel", Unreadable: "no answer within 1s"},
		}}
	s := &Snapshot{Target: "win:0x600003", Title: "vibespace fixture", Root: root}
	s.Census = root.Count()
	return s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update if the change is meant):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestSnapshotText(t *testing.T) {
	s := sample()
	NewRefTable().Assign(s)
	golden(t, "snapshot.txt", s.Text())
	golden(t, "snapshot-interactive.txt", s.InteractiveView().Text())
}

func TestCensus(t *testing.T) {
	c := sample().Census
	want := Census{Nodes: 13, Action: 6, Editable: 1, Unreadable: 1}
	if c != want {
		t.Errorf("census %+v, want %+v", c, want)
	}
}

func TestInteractiveKeepsTree(t *testing.T) {
	s := sample()
	v := s.InteractiveView()
	if v.Census != s.Census {
		t.Errorf("the view's census %+v is not the tree's %+v", v.Census, s.Census)
	}
	// The view is a copy: the original keeps its intermediate nodes.
	if len(s.Root.Children) != 7 || s.Root.Children[0].Role != "filler" {
		t.Errorf("InteractiveView changed the snapshot it was taken from")
	}
	if v.Hidden != 1 {
		t.Errorf("hidden %d, want 1 (the closed menu's item)", v.Hidden)
	}
	var roles []string
	v.Root.Walk(func(n *Node, _ int) bool { roles = append(roles, n.Role); return true })
	want := "frame,push button,push button,icon,check box,label,text,combo box,panel"
	if got := strings.Join(roles, ","); got != want {
		t.Errorf("interactive nodes %s, want %s", got, want)
	}
}

func TestSnapshotJSON(t *testing.T) {
	s := sample()
	NewRefTable().Assign(s)
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `"k1"`) {
		t.Errorf("the backend key leaked into the JSON")
	}
	var back Snapshot
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.Root.Count() != s.Census || back.Root.Children[0].Children[0].Ref != "@e3" {
		t.Errorf("JSON round trip lost the tree: %+v", back.Root.Count())
	}
	golden(t, "snapshot.json", string(out)+"\n")
}

func TestDisabled(t *testing.T) {
	for _, c := range []struct {
		n    Node
		want bool
	}{
		{Node{Interfaces: []string{"Action"}, Actions: []string{"click"}}, true},
		{Node{Interfaces: []string{"Action"}, Actions: []string{"click"}, States: []string{"sensitive"}}, false},
		{Node{Role: "label"}, false},
		{Node{States: []string{"focusable"}}, true},
		{Node{Interfaces: []string{"EditableText"}, States: []string{"sensitive", "editable"}}, false},
		// ENABLED alone says it as SENSITIVE does.
		{Node{Interfaces: []string{"Action"}, Actions: []string{"click"}, States: []string{"enabled"}}, false},
		// A greyed-out entry (GTK's, Qt's): a widget, editable and
		// focusable, neither sensitive nor enabled.
		{Node{Role: "text", Interfaces: []string{"EditableText"}, States: []string{"editable", "focusable"}}, true},
		// An office document's paragraph: content, on which its toolkit
		// sets neither; editable, so it takes text.
		{Node{Role: "paragraph", Interfaces: []string{"EditableText", "Text"}, States: []string{"editable", "focusable", "multi-line"}}, false},
		{Node{Role: "heading", Interfaces: []string{"EditableText"}, States: []string{"editable"}}, false},
		// Content that is not editable is judged as any node.
		{Node{Role: "paragraph", Interfaces: []string{"Action"}, Actions: []string{"click"}, States: []string{"focusable"}}, true},
		// The focus: no toolkit focuses a greyed-out widget.
		{Node{Role: "text", Interfaces: []string{"EditableText"}, States: []string{"editable", "focusable", "focused"}}, false},
	} {
		if got := c.n.Disabled(); got != c.want {
			t.Errorf("%+v: Disabled %v, want %v", c.n, got, c.want)
		}
	}
}

// tabSample is a small page as the CDP backend hands it over: Compact.
func tabSample() *Snapshot {
	on := []string{"sensitive", "showing"}
	root := &Node{Role: "document web", Name: "Sign up", States: []string{"sensitive", "showing", "focused"}, Children: []*Node{
		{Key: "h1", Role: "heading", Name: "Sign up", Level: 1, States: on},
		{Key: "f", Role: "form", States: on, Children: []*Node{
			{Key: "e", Role: "entry", Name: "Name", States: []string{"sensitive", "showing", "focusable", "editable"}, Interfaces: []string{"EditableText", "Text"}},
			{Key: "ro", Role: "entry", Name: "Code", States: []string{"sensitive", "showing", "read-only"}, Interfaces: []string{"Action"}, Actions: []string{"click"}},
			{Key: "c", Role: "check box", Name: "I agree", States: []string{"sensitive", "showing", "checkable"}, Interfaces: []string{"Action"}, Actions: []string{"click"}},
			{Key: "b", Role: "push button", Name: "Save", States: on, Interfaces: []string{"Action"}, Actions: []string{"click", "press"}},
			{Key: "d", Role: "push button", Name: "Off", States: []string{"showing"}, Interfaces: []string{"Action"}, Actions: []string{"click"}},
		}},
		{Key: "h2", Role: "heading", Name: "Folded", Level: 2, States: []string{"sensitive"}},
		{Role: "heading", Name: "No key", Level: 2, States: on},
		{Key: "p", Role: "paragraph", States: on, Children: []*Node{{Role: "static", Name: "Some text"}}},
	}}
	s := &Snapshot{Target: "tab:3", Title: "Sign up", Root: root, Compact: true}
	s.Census = root.Count()
	return s
}

// A Compact snapshot leaves out what the role says, zero counts and the
// document's own line; its interactive view keeps the headings on screen
// that have a ref, with their level.
func TestCompactText(t *testing.T) {
	s := tabSample()
	NewRefTable().Assign(s)
	const wantFull = `# tab:3 "Sign up": 12 nodes, 4 action, 1 editable
heading "Sign up" @e1 h1
form @e2
  entry "Name" @e3
  entry "Code" @e4 readonly
  check box "I agree" @e5 unchecked
  push button "Save" @e6 [click press]
  push button "Off" @e7 disabled
heading "Folded" @e8 h2 hidden
heading "No key" h2
paragraph @e9
  static "Some text"
`
	if got := s.Text(); got != wantFull {
		t.Errorf("compact text:\n%s\nwant:\n%s", got, wantFull)
	}
	const wantView = `# tab:3 "Sign up": 12 nodes, 4 action, 1 editable; interactive
heading "Sign up" @e1 h1
entry "Name" @e3
entry "Code" @e4 readonly
check box "I agree" @e5 unchecked
push button "Save" @e6 [click press]
push button "Off" @e7 disabled
`
	if got := s.InteractiveView().Text(); got != wantView {
		t.Errorf("compact interactive view:\n%s\nwant:\n%s", got, wantView)
	}
	// The same tree, not Compact (a window's), keeps every field and no
	// heading in its interactive view.
	s.Compact = false
	v := s.InteractiveView().Text()
	for _, w := range []string{"(interactive view; 0 hidden not shown)\ndocument web \"Sign up\" focused\n", `  entry "Name" @e3 editable`, `  check box "I agree" @e5 unchecked [click]`} {
		if !strings.Contains(v, w) {
			t.Errorf("window interactive view lacks %q:\n%s", w, v)
		}
	}
	if strings.Contains(v, "heading") {
		t.Errorf("a window's interactive view keeps a heading:\n%s", v)
	}
}

// A mixed check box says both facts: its checked bit and that it is mixed,
// so a click that flips the bit alone shows in the text as in the JSON.
func TestMixedCheckBox(t *testing.T) {
	for _, c := range []struct {
		states []string
		want   string
	}{
		{[]string{"sensitive", "showing", "indeterminate"}, `check box "Maybe" unchecked mixed [click]`},
		{[]string{"sensitive", "showing", "checked", "indeterminate"}, `check box "Maybe" checked mixed [click]`}, // Qt's partial state
		{[]string{"sensitive", "showing", "checked"}, `check box "Maybe" checked [click]`},
		{[]string{"sensitive", "showing"}, `check box "Maybe" unchecked [click]`},
	} {
		n := &Node{Role: "check box", Name: "Maybe", States: c.states, Interfaces: []string{"Action"}, Actions: []string{"click"}}
		s := &Snapshot{Root: n, Census: n.Count()}
		lines := strings.Split(s.Text(), "\n")
		if lines[1] != c.want {
			t.Errorf("states %v print %q, want %q", c.states, lines[1], c.want)
		}
	}
}

// A node whose only actions are GTK 4's action-group commands is not
// something a click acts on: it stays out of the interactive view, unless
// it is a control by its role.
func TestGroupActionsAreNotClicks(t *testing.T) {
	for _, c := range []struct {
		actions []string
		want    int
	}{
		{[]string{"click"}, 0},
		{[]string{"SetFocus", "Press"}, 1},
		{[]string{""}, 0},
		{[]string{"expand or contract"}, 0},
		{[]string{"window.close", "window.minimize", "default.activate"}, -1},
		{[]string{"clipboard.copy", "selection.delete", "menu.popup"}, -1},
		{[]string{"clipboard.copy", "Click"}, 1},
		{nil, -1},
	} {
		if got := ClickAction(c.actions); got != c.want {
			t.Errorf("%q: ClickAction %d, want %d", c.actions, got, c.want)
		}
	}
	label := &Node{Role: "label", Name: "Maybe", States: []string{"showing"}, Interfaces: []string{"Action", "Text"}, Actions: []string{"clipboard.copy", "menu.popup"}}
	button := &Node{Role: "push button", Name: "Press me", States: []string{"showing", "sensitive"}, Interfaces: []string{"Action"}, Actions: []string{"Click"}, Children: []*Node{
		{Role: "label", Name: "Press me", States: []string{"showing"}, Interfaces: []string{"Action", "Text"}, Actions: []string{"clipboard.copy"}},
	}}
	// GTK 4.8's check button: the Action interface, no action in it. The
	// view keeps it (an agent sees it, and where it is); its label goes.
	check := &Node{Role: "check box", Name: "Maybe", States: []string{"showing", "sensitive", "indeterminate"}, Interfaces: []string{"Action", "Component"}, Children: []*Node{label}}
	root := &Node{Role: "frame", Name: "w", States: []string{"showing"}, Interfaces: []string{"Action"}, Actions: []string{"window.close"}, Children: []*Node{button, check}}
	s := &Snapshot{Root: root, Census: root.Count()}
	var roles []string
	s.InteractiveView().Root.Walk(func(n *Node, _ int) bool { roles = append(roles, n.Role); return true })
	if got := strings.Join(roles, ","); got != "frame,push button,check box" {
		t.Errorf("interactive nodes %s, want frame,push button,check box", got)
	}
}

// The interactive view keeps a notebook's page tabs, the range controls
// with their values, a list box with a Selection (what select takes), and
// a named table row as the context line of the
// button inside it — not a cell that only repeats its button, nor a row
// with nothing kept inside.
func TestInteractiveKeepsTabsRangesAndRows(t *testing.T) {
	on := []string{"sensitive", "showing"}
	btn := func(key, name string) *Node {
		return &Node{Key: key, Role: "push button", Name: name, States: on, Interfaces: []string{"Action"}, Actions: []string{"click"}}
	}
	root := &Node{Key: "r", Role: "frame", Name: "w", States: on, Children: []*Node{
		{Key: "tl", Role: "page tab list", States: on, Interfaces: []string{"Selection"}, Children: []*Node{
			{Key: "t1", Role: "page tab", Name: "First", States: append([]string{"selected"}, on...)},
			{Key: "t2", Role: "page tab", Name: "Second", States: on},
		}},
		{Key: "f", Role: "filler", States: on, Children: []*Node{
			{Key: "s", Role: "slider", Name: "Volume", States: on, Interfaces: []string{"Value"}, Value: &Value{Current: 42, Max: 100}},
			{Key: "p", Role: "progress bar", States: on, Interfaces: []string{"Value"}, Value: &Value{Current: 0.3, Max: 1}},
			{Key: "sb", Role: "scroll bar", States: on, Interfaces: []string{"Value"}, Value: &Value{Max: 379}},
		}},
		{Key: "lb", Role: "list box", Name: "Rows", States: on, Interfaces: []string{"Selection"}, Children: []*Node{
			{Key: "li", Role: "list item", Name: "Row 1", States: on},
		}},
		{Key: "tb", Role: "table", States: on, Children: []*Node{
			{Key: "row1", Role: "table row", Name: "Ada Lovelace 1815 Delete", States: on, Children: []*Node{
				{Key: "c1", Role: "table cell", Name: "Ada Lovelace", States: on},
				{Key: "c2", Role: "table cell", Name: "Delete", States: on, Children: []*Node{btn("b1", "Delete")}},
			}},
			{Key: "row2", Role: "table row", Name: "Alan Turing 1912", States: on, Children: []*Node{
				{Key: "c3", Role: "table cell", Name: "Alan Turing", States: on},
			}},
			// A page's <tr> has no name: its first cell that is not the
			// button's names it.
			{Key: "row3", Role: "table row", States: on, Children: []*Node{
				{Key: "c4", Role: "table cell", Name: "Grace Hopper", States: on},
				{Key: "c5", Role: "table cell", Name: "Delete", States: on, Children: []*Node{btn("b2", "Delete")}},
			}},
		}},
	}}
	s := &Snapshot{Root: root, Census: root.Count()}
	NewRefTable().Assign(s)
	got := s.InteractiveView().Text()
	want := `frame "w" @e1
  page tab "First" @e3 selected
  page tab "Second" @e4
  slider "Volume" @e6 =42 (0–100)
  progress bar @e7 =0.3 (0–1)
  list box "Rows" @e9
  table row "Ada Lovelace 1815 Delete" @e12
    push button "Delete" @e15 [click]
  table row "Grace Hopper" @e18
    push button "Delete" @e21 [click]
`
	if _, body, _ := strings.Cut(got, "\n"); body != want {
		t.Errorf("interactive view:\n%s\nwant:\n%s", body, want)
	}
}

// A spin button shows its text once and the bounds of its value.
func TestValueLine(t *testing.T) {
	n := &Node{Role: "spin button", Text: "50", TextLen: 2, Value: &Value{Current: 50, Min: 1, Max: 1000}}
	if got := string(appendLine(nil, n, 0, false)); got != "spin button =\"50\" (1–1000)\n" {
		t.Errorf("%q", got)
	}
	n = &Node{Role: "spin button", Value: &Value{}}
	if got := string(appendLine(nil, n, 0, false)); got != "spin button =0\n" {
		t.Errorf("a value without a range: %q", got)
	}
}
