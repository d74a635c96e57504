package cdp

import (
	"strings"
	"testing"
	"unicode"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// Every role of the table, by either of its names, is an AT-SPI-style
// name in lower case; a role the table lacks is spelled in words.
func TestRoleNames(t *testing.T) {
	for _, r := range roleTable {
		for _, name := range append([]string{r.internal}, r.aria...) {
			if got := roleName(name); got != r.atspi || strings.IndexFunc(got, unicode.IsUpper) >= 0 {
				t.Errorf("roleName(%q) = %q, want %q in lower case", name, got, r.atspi)
			}
		}
	}
	for in, want := range map[string]string{
		"LayoutTableCell": "table cell", "ColorWell": "color chooser", "InputTime": "date editor",
		"MathMLOperator": "math", "FooBarBaz": "foo bar baz", "SVGRoot": "svg root", "doc-newthing": "doc newthing",
	} {
		if got := roleName(in); got != want {
			t.Errorf("roleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func ax(id, role, name string, backend int64, kids ...string) *axNode {
	return &axNode{NodeID: id, Role: role, Name: name, BackendID: backend, ChildIDs: kids}
}

// A page's tree with a frame grafted under its iframe: the frame's keys
// name the frame; a script-clickable generic is named by its text and
// clickable; white-space text goes; an unnamed label keeps its two
// children but no key; a field's text that repeats its value goes.
func TestBuildPage(t *testing.T) {
	field := ax("7", "textbox", "Name", 7, "8")
	field.Value, field.Props.editable = "Ada", axOther
	main := &axPage{
		nodes: []*axNode{
			ax("1", "RootWebArea", "Top", 1, "2", "4", "5", "6", "10"),
			ax("2", "generic", "", 2, "3"),
			ax("3", "StaticText", "Load more", 3),
			ax("4", "StaticText", "\n  ", 4),
			ax("5", "Iframe", "Inner", 5),
			ax("6", "LabelText", "", 6, "9", "7"),
			field,
			ax("8", "StaticText", "Ada", 8),
			ax("9", "StaticText", "Name ", 9),
			ax("10", "generic", "", 10, "11"),
			ax("11", "StaticText", "plain", 11),
		},
		clickable: map[int64]bool{2: true},
	}
	sub := &axPage{
		frame: &frameRec{id: "F1"},
		nodes: []*axNode{
			ax("1", "RootWebArea", "Inner doc", 1, "2"),
			ax("2", "button", "Go", 2),
		},
	}
	main.graft(5, sub)
	s := buildPage(main, 3)
	const want = `# "Top": 8 nodes, 2 action, 1 editable
section "Load more"
internal frame "Inner"
  push button "Go"
label
  static "Name "
  entry "Name" ="Ada"
static "plain"
`
	if got := s.Text(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	keys := map[string]string{}
	s.Root.Walk(func(n *target.Node, _ int) bool {
		keys[n.Role+" "+n.Name] = n.Key
		return true
	})
	for node, key := range map[string]string{
		`section Load more`: "3:2", `internal frame Inner`: "3:5", `push button Go`: "3:2@F1",
		`entry Name`: "3:7", `label `: "", `static plain`: "",
	} {
		if keys[node] != key {
			t.Errorf("%s: key %q, want %q", node, keys[node], key)
		}
	}
	if n := s.Root.Find(func(n *target.Node) bool { return n.Name == "Load more" }); n == nil || !n.Actionable() {
		t.Errorf("the script-clickable generic is not actionable")
	}
}

// A capture says which elements have click listeners, which set a pointer
// cursor of their own (not one inherited from their parent), and which
// document is in which iframe.
func TestDOMFacts(t *testing.T) {
	// #document, HTML, BODY (listener: not a control), DIV onclick, DIV
	// pointer, SPAN inheriting the pointer, IFRAME holding document 1.
	const capture = `{"documents":[{"frameId":0,"nodes":{
 "parentIndex":[-1,0,1,2,2,4,2],"nodeType":[9,1,1,1,1,1,1],"nodeName":[1,2,3,4,4,5,6],
 "backendNodeId":[10,11,12,13,14,15,16],
 "contentDocumentIndex":{"index":[6],"value":[1]},"isClickable":{"index":[2,3]}},
 "layout":{"nodeIndex":[1,2,3,4,5,6],"styles":[[7],[7],[7],[8],[8],[7]]}},
 {"frameId":9,"nodes":{"parentIndex":[-1],"nodeType":[9],"nodeName":[1],"backendNodeId":[20]},"layout":{"nodeIndex":[],"styles":[]}}],
 "strings":["main","#document","HTML","BODY","DIV","SPAN","IFRAME","auto","pointer","frame-1"]}`
	var c domCapture
	if err := jsonv2.Unmarshal([]byte(capture), &c); err != nil {
		t.Fatal(err)
	}
	f := c.facts()
	if len(f.clickable) != 2 || !f.clickable[13] || !f.clickable[14] {
		t.Errorf("clickable %v, want the onclick div (13) and the pointer div (14) only", f.clickable)
	}
	if len(f.frames) != 1 || f.frames[16] != "frame-1" {
		t.Errorf("frames %v, want iframe 16 holding frame-1", f.frames)
	}
}
