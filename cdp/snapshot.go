package cdp

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// SnapshotBudget is the most nodes a snapshot keeps; past it the snapshot is
// marked Truncated.
const SnapshotBudget = 20000

// textCap is how many characters of a node's value a snapshot carries.
const textCap = 200

// axNode is the part of an Accessibility.AXNode a snapshot reads; decoding
// only these members keeps a big tree cheap (names' "sources" are skipped).
type axNode struct {
	NodeID     string       `json:"nodeId"`
	Ignored    bool         `json:"ignored"`
	Role       *axValue     `json:"role"`
	Name       *axValue     `json:"name"`
	Desc       *axValue     `json:"description"`
	Value      *axValue     `json:"value"`
	Properties []axProperty `json:"properties"`
	ChildIDs   []string     `json:"childIds"`
	BackendID  int64        `json:"backendDOMNodeId"`
}

type axValue struct {
	Value jsonv2.Value `json:"value"`
}

type axProperty struct {
	Name  string   `json:"name"`
	Value *axValue `json:"value"`
}

// str is the value as a string ("" for none); numbers and booleans keep
// their JSON spelling.
func (v *axValue) str() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	if v.Value[0] == '"' {
		var s string
		if jsonv2.Unmarshal(v.Value, &s) == nil {
			return s
		}
	}
	return string(v.Value)
}

// Snapshot reads the tab's accessibility tree (Accessibility.getFullAXTree)
// and returns it in the shared snapshot shape, with refs minted by the
// tab's ref table: a node keeps its ref as long as its DOM node lives. With
// interactive, it returns the interactive view (what an agent can act on).
func (t *Tab) Snapshot(ctx context.Context, interactive bool) (*target.Snapshot, error) {
	var res struct {
		Nodes []*axNode `json:"nodes"`
	}
	// A navigation while the tree was read leaves it unclear which document
	// it is of: read it again.
	var gen int64
	for try := 0; ; try++ {
		gen = t.gen.Load()
		if err := t.sess.Call(ctx, accessibility.CommandGetFullAXTree, &accessibility.GetFullAXTreeParams{}, &res); err != nil {
			return nil, t.fail(err)
		}
		if t.gen.Load() == gen || try == 2 {
			break
		}
	}
	s := buildSnapshot(res.Nodes, gen)
	s.Target = "tab:" + t.ID()
	// What the interactive view shows gets its refs first, so an agent
	// reading a fresh page sees short refs (@e1…) on the nodes it acts on.
	if s.Root != nil {
		s.Root.Walk(func(n *target.Node, _ int) bool {
			if n.Key != "" && (n.Actionable() || n.Role == "heading") {
				t.refs.Ref(n.Key)
			}
			return true
		})
	}
	t.refs.Assign(s)
	if interactive {
		return s.InteractiveView(), nil
	}
	return s, nil
}

// buildSnapshot turns the flat AX node list into the snapshot tree: ignored
// and layout-only nodes are dropped (their children move up), roles and
// states are mapped to the AT-SPI vocabulary, and every element node gets
// its document generation and backend node id as Key. The snapshot is
// Compact: every ref of a tab is acted on through its DOM node.
func buildSnapshot(nodes []*axNode, gen int64) *target.Snapshot {
	s := &target.Snapshot{Compact: true}
	if len(nodes) == 0 {
		return s
	}
	byID := make(map[string]*axNode, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	root := nodes[0] // the RootWebArea comes first
	b := builder{byID: byID, seen: make(map[string]bool, len(nodes)), gen: gen}
	out := b.convert(root)
	if len(out) == 1 {
		s.Root = out[0]
	} else {
		s.Root = &target.Node{Role: "document web", Children: out}
	}
	s.Title = s.Root.Name
	s.Truncated = b.truncated
	s.Census = s.Root.Count()
	return s
}

type builder struct {
	gen       int64 // the document generation keys carry
	byID      map[string]*axNode
	seen      map[string]bool
	count     int
	truncated bool
}

// convert returns the snapshot nodes for n: one node, or n's children's
// nodes when n itself is dropped.
func (b *builder) convert(n *axNode) []*target.Node {
	if n == nil || b.seen[n.NodeID] {
		return nil
	}
	b.seen[n.NodeID] = true
	var kids []*target.Node
	childrenOf := func(parentName string) {
		for _, id := range n.ChildIDs {
			if b.count >= SnapshotBudget {
				b.truncated = true
				return
			}
			for _, k := range b.convert(b.byID[id]) {
				// A text child that only repeats its parent's name says nothing.
				if k.Role == "static" && k.Name == parentName && parentName != "" && len(k.Children) == 0 {
					continue
				}
				kids = append(kids, k)
			}
		}
	}
	role := n.Role.str()
	name := n.Name.str()
	if n.Ignored || role == "InlineTextBox" || (droppedRoles[role] && name == "") {
		childrenOf("")
		return kids
	}
	b.count++
	node := &target.Node{Role: roleName(role), Name: name, Description: n.Desc.str()}
	props := make(map[string]string, len(n.Properties))
	for _, p := range n.Properties {
		props[p.Name] = p.Value.str()
	}
	node.States, node.Interfaces, node.Actions = traits(role, props)
	if role == "heading" {
		node.Level, _ = strconv.Atoi(props["level"])
	}
	if v := n.Value.str(); v != "" && v != name {
		node.TextLen = utf8.RuneCountInString(v)
		node.Text = capRunes(v, textCap)
	}
	if n.BackendID != 0 && role != "StaticText" && role != "RootWebArea" {
		node.Key = nodeKey(b.gen, n.BackendID)
	}
	childrenOf(name)
	node.Children = kids
	return []*target.Node{node}
}

// traits maps AX properties to AT-SPI states, interfaces and actions.
func traits(role string, p map[string]string) (states, ifaces, actions []string) {
	add := func(s string) { states = append(states, s) }
	_, disabled := p["disabled"]
	if p["disabled"] != "true" {
		disabled = false
	}
	if !disabled {
		add("sensitive")
		add("enabled")
	}
	for _, k := range [...]string{"focusable", "focused", "modal", "required", "multiline", "multiselectable"} {
		if p[k] == "true" {
			add(k)
		}
	}
	// The tree has no hidden node but one marked hidden; what is below the
	// fold is still "showing": an action scrolls it into view.
	if p["hidden"] != "true" {
		add("visible")
		add("showing")
	}
	switch p["checked"] {
	case "true":
		add("checkable")
		add("checked")
	case "false":
		add("checkable")
	case "mixed":
		add("checkable")
		add("indeterminate")
	}
	switch p["pressed"] {
	case "true":
		add("pressed")
	case "mixed":
		add("indeterminate")
	}
	if p["selected"] == "true" {
		add("selected")
	}
	if e, ok := p["expanded"]; ok {
		add("expandable")
		if e == "true" {
			add("expanded")
		}
	}
	if p["readonly"] == "true" {
		add("read-only")
	}
	if inv := p["invalid"]; inv != "" && inv != "false" {
		add("invalid-entry")
	}
	editable := p["editable"] != "" && p["readonly"] != "true"
	if editable {
		add("editable")
		ifaces = append(ifaces, "EditableText", "Text")
	}
	if clickRoles[role] || (!editable && p["focusable"] == "true" && role != "RootWebArea" && role != "WebArea") {
		ifaces = append(ifaces, "Action")
		actions = []string{"click"}
	}
	return states, ifaces, actions
}

func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
