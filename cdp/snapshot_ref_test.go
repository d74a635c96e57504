package cdp

import (
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// refSnapshot is how a snapshot was built from a getFullAXTree reply before
// the reply was decoded by hand: cdproto's JSON package into plain structs,
// properties into a map. Tests hold the new path to it.
func refSnapshot(raw []byte, gen int64) (*target.Snapshot, error) {
	var res struct {
		Nodes []*refAXNode `json:"nodes"`
	}
	if err := jsonv2.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return refBuild(res.Nodes, gen), nil
}

// refBuild is buildSnapshot as it was.
func refBuild(nodes []*refAXNode, gen int64) *target.Snapshot {
	s := &target.Snapshot{Compact: true}
	if len(nodes) == 0 {
		return s
	}
	byID := make(map[string]*refAXNode, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	b := refBuilder{byID: byID, seen: make(map[string]bool, len(nodes)), gen: gen}
	out := b.convert(nodes[0])
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

type refBuilder struct {
	gen       int64
	byID      map[string]*refAXNode
	seen      map[string]bool
	count     int
	truncated bool
}

func (b *refBuilder) convert(n *refAXNode) []*target.Node {
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
	node.States, node.Interfaces, node.Actions = refTraits(role, props)
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

func refTraits(role string, p map[string]string) (states, ifaces, actions []string) {
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

// sameSnapshot builds the snapshot of a raw reply both ways and says where
// they differ (nil when they are equal, keys and all).
func sameSnapshot(raw []byte, gen int64) error {
	want, err := refSnapshot(raw, gen)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	var tree axTree
	if err := jsonv2.Unmarshal(raw, &tree); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	got := buildSnapshot(tree.nodes, gen)
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("snapshots differ:\n got %s\nwant %s", got.Text(), want.Text())
	}
	if got.Root == nil || got.Census.Nodes == 0 {
		return fmt.Errorf("empty snapshot")
	}
	return nil
}
