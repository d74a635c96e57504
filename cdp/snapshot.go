package cdp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// SnapshotBudget is the most nodes a snapshot keeps; past it the snapshot is
// marked Truncated.
const SnapshotBudget = 20000

// textCap is how many characters of a node's value a snapshot carries.
const textCap = 200

// nameCap is how many characters of its text name a node Chromium gave no
// name (a clickable <div>): enough to tell it, short enough for -i.
const nameCap = 100

// axNode is the part of an Accessibility.AXNode a snapshot reads, its
// values already strings (axScan.value). A reply is decoded by hand
// (axTree): one pass over its bytes, without reflection, that skips what a
// snapshot never reads (names' "sources", "chromeRole", ignored reasons):
// the reply of a 650-node page is ~0.5 MB, mostly those.
type axNode struct {
	NodeID    string
	Ignored   bool
	Role      string
	Name      string
	Desc      string
	Value     string
	Props     axProps
	ChildIDs  []string
	BackendID int64
	Handle    int64 // the page road's name for the element (pagewalk.go); 0 on the AX road
	Scripted  bool  // the page road found a script made it clickable
	Unread    bool  // an <iframe> whose frame the page road's bounds left unread
}

// axProps are the AX properties a snapshot reads, by name, as the words it
// tells apart; a property the node did not list is axNone. Of a name
// listed twice the last value counts.
type axProps struct {
	disabled, focusable, focused, modal, required, multiline, multiselectable axWord
	hidden, checked, pressed, selected, expanded, readonly, invalid, editable axWord
	hasExpanded                                                               bool        // "expanded" was listed
	level                                                                     string      // a heading's
	clickable                                                                 bool        // the page road's: a script made it clickable
	flow                                                                      target.Flow // the page road's: how its text sits against the text before it
}

// axWord is a property's value as far as a snapshot reads it.
type axWord uint8

const (
	axNone  axWord = iota // not listed, or ""
	axTrue                // "true"
	axFalse               // "false"
	axMixed               // "mixed"
	axOther               // any other value
)

func word(v string) axWord {
	switch v {
	case "":
		return axNone
	case "true":
		return axTrue
	case "false":
		return axFalse
	case "mixed":
		return axMixed
	}
	return axOther
}

// set records property name's value; other names are not read.
func (p *axProps) set(name, v string) {
	switch name {
	case "disabled":
		p.disabled = word(v)
	case "focusable":
		p.focusable = word(v)
	case "focused":
		p.focused = word(v)
	case "modal":
		p.modal = word(v)
	case "required":
		p.required = word(v)
	case "multiline":
		p.multiline = word(v)
	case "multiselectable":
		p.multiselectable = word(v)
	case "hidden":
		p.hidden = word(v)
	case "checked":
		p.checked = word(v)
	case "pressed":
		p.pressed = word(v)
	case "selected":
		p.selected = word(v)
	case "expanded":
		p.expanded, p.hasExpanded = word(v), true
	case "readonly":
		p.readonly = word(v)
	case "invalid":
		p.invalid = word(v)
	case "editable":
		p.editable = word(v)
	case "level":
		p.level = v
	}
}

// Snapshot reads the tab's accessibility tree (Accessibility.getFullAXTree)
// and returns it in the shared snapshot shape, every element node keyed by
// its document generation and backend node id (a key names the node as
// long as its DOM node lives), a node inside a frame also by its frame
// (frames.go). The trees of the page's frames, same-process and
// out-of-process, are grafted under their iframe nodes; elements a script
// made clickable get the click action (clickable.go). With refs, the refs
// are minted there (AssignRefs); with interactive, it returns the
// interactive view (what an agent can act on).
func (t *Tab) Snapshot(ctx context.Context, refs *target.RefTable, interactive bool) (*target.Snapshot, error) {
	return t.snapshot(ctx, refs, interactive, roadPageOrAX, "")
}

// Road is how a tab's snapshot reads the page.
type Road uint8

const (
	// RoadPage computes the tree in the page (pagewalk.go): one pass over
	// the DOM in an isolated world, roles and names by the ARIA and
	// accname rules as Chromium applies them; its cost is linear in the
	// page and it serialises only what a snapshot prints.
	RoadPage Road = iota
	// RoadAX reads Chromium's accessibility tree (getFullAXTree): the
	// oracle RoadPage is held equal to, and its fallback.
	RoadAX

	// roadPageOrAX is RoadPage, and RoadAX where the page walk fails in
	// the page: Snapshot's road.
	roadPageOrAX
)

// SnapshotRoad is Snapshot read by the given road.
func (t *Tab) SnapshotRoad(ctx context.Context, refs *target.RefTable, interactive bool, road Road) (*target.Snapshot, error) {
	return t.snapshot(ctx, refs, interactive, road, "")
}

// SnapshotAfter is the snapshot of what follows the node key names in
// document order (its descendants, then every later node), under the
// document: how a page is read on past a snapshot its budget cut
// (target.Snapshot.After). It reads by the page road.
func (t *Tab) SnapshotAfter(ctx context.Context, refs *target.RefTable, interactive bool, key string) (*target.Snapshot, error) {
	if key == "" {
		return nil, target.Refuse(target.CodeBadRequest, "snapshot --after needs the ref of a node of the page")
	}
	return t.snapshot(ctx, refs, interactive, RoadPage, key)
}

func (t *Tab) snapshot(ctx context.Context, refs *target.RefTable, interactive bool, road Road, after string) (*target.Snapshot, error) {
	var root *axPage
	// A navigation while the tree was read leaves it unclear which document
	// it is of: read it again.
	var gen int64
	for try := 0; ; try++ {
		gen = t.gen.Load()
		var err error
		switch road {
		case RoadPage:
			root, err = t.readPageRoad(ctx, gen, after)
		case roadPageOrAX:
			if root, err = t.readPageRoad(ctx, gen, ""); err != nil && pageRoadFailed(ctx, err) {
				root, err = t.readPage(ctx, gen)
			}
		default:
			root, err = t.readPage(ctx, gen)
		}
		if err != nil {
			if t.gen.Load() != gen && try < 2 && ctx.Err() == nil {
				continue // the page navigated while it was read
			}
			return nil, t.fail(err)
		}
		if t.gen.Load() == gen || try == 2 {
			break
		}
	}
	s, holes := buildPageCut(root, gen)
	if refs != nil {
		AssignRefs(refs, s)
		if s.Truncated {
			s.After = firstHole(s.Root, holes, refs)
		}
	}
	if interactive {
		return s.InteractiveView(), nil
	}
	return s, nil
}

// pageRoadFailed reports whether err is the page road failing where the
// AX road may still answer: not the caller's deadline, not a refusal (a
// stale ref is one for either road), not the tab going.
func pageRoadFailed(ctx context.Context, err error) bool {
	var r *target.Refusal
	return ctx.Err() == nil && !errors.As(err, &r) && !errors.Is(err, ErrSessionGone)
}

// firstHole is the ref to read on from past a cut snapshot: of the first
// node, in document order, after which something was left out (holes),
// else of the last node with a ref.
func firstHole(root *target.Node, holes map[*target.Node]string, refs *target.RefTable) string {
	first, last := "", ""
	if root != nil {
		root.Walk(func(n *target.Node, _ int) bool {
			if n.Ref != "" {
				last = n.Ref
				if on, ok := holes[n]; ok && first == "" {
					first = n.Ref
					if on != "" {
						first = refs.Ref(on) // the element read last, printed or not
					}
				}
			}
			return first == ""
		})
	}
	if first != "" {
		return first
	}
	if on := holes[nil]; on != "" {
		return refs.Ref(on) // a cut in a document with no ref of its own
	}
	return last
}

// AssignRefs sets the refs of a page snapshot's nodes from refs, the tab's
// table. What the interactive view shows gets its refs first, so an agent
// reading a fresh page sees short refs (@e1…) on the nodes it acts on. A
// node without a key (the document, text, unnamed wrappers) gets no ref.
func AssignRefs(refs *target.RefTable, s *target.Snapshot) {
	if s.Root != nil {
		s.Root.Walk(func(n *target.Node, _ int) bool {
			if n.Key != "" && (n.Actionable() || n.Role == "heading") {
				refs.Ref(n.Key)
			}
			return true
		})
	}
	refs.Assign(s)
}

// axPage is the accessibility tree of one document of the tab: the main
// frame's, or a frame's (frame names it), with the trees of the frames it
// holds by their owner element's backend node id.
type axPage struct {
	frame     *frameRec // nil: the main frame
	nodes     []*axNode
	clickable map[int64]bool    // elements a script made clickable (clickable.go), of the page's process
	frames    map[int64]*axPage // by the backend node id of the <iframe>
	left      int               // nodes the page road's budget left out
	owner     *target.Node      // the snapshot node of its <iframe>, as the builder made it
	world     int64             // the page road's world its handles are of (worldRec.serial)
	cut       int64             // the handle of the last element its walk emitted, when its budget cut it
	// Of a walk read by another browser's driver (BuildWalkTree): the
	// frames by the handle of their <iframe>, and why a frame was not read.
	byHandle   map[int64]*axPage
	unreadable map[int64]string
}

// buildSnapshot turns one flat AX node list (a document with no frames and
// nothing script-clickable) into the snapshot tree.
func buildSnapshot(nodes []*axNode, gen int64) *target.Snapshot {
	return buildPage(&axPage{nodes: nodes}, gen)
}

// buildPage turns the page's AX trees into the snapshot tree: ignored
// and layout-only nodes are dropped (their children move up), roles and
// states are mapped to the AT-SPI vocabulary, every element node that can
// be acted on or named gets its key (document generation, backend node id,
// frame), and each frame's tree hangs under its iframe node. The snapshot
// is Compact: every ref of a tab is acted on through its DOM node.
func buildPage(page *axPage, gen int64) *target.Snapshot {
	s, _ := buildPageCut(page, gen)
	return s
}

// buildPageCut is buildPage, and the nodes after which it left something
// out (shared.holes).
func buildPageCut(page *axPage, gen int64) (*target.Snapshot, map[*target.Node]string) {
	s := &target.Snapshot{Compact: true}
	if page == nil || len(page.nodes) == 0 {
		return s, nil
	}
	sh := &shared{gen: gen}
	out := sh.tree(page)
	if len(out) == 0 {
		out = nil
	}
	if len(out) == 1 && out[0].Role == "document web" {
		s.Root = out[0]
	} else {
		s.Root = &target.Node{Role: "document web", Children: out}
	}
	s.Title = s.Root.Name
	s.Truncated = sh.truncated || sh.omitted > 0 || len(sh.holes) > 0
	s.Omitted = sh.omitted
	s.Census = s.Root.Count()
	return s, sh.holes
}

// shared is what the builders of one snapshot's trees share: the budget.
type shared struct {
	gen       int64 // the document generation keys carry
	count     int
	truncated bool
	omitted   int // nodes the budgets left out: the builder's and the page walk's
	// keyed is the nodes given a key, in document order; holes are those
	// after which something of the page was left out (a document its
	// walk cut, a frame not read): the first in document order is where a
	// snapshot reads on (Snapshot.After).
	keyed []*target.Node
	holes map[*target.Node]string
	// lastRaw is the key of the last node converted that names a DOM
	// node, printed or not: where the builder's own budget stopped.
	lastRaw string
}

// hole marks n as a node after which the snapshot left something out, and
// key as where to read on (the key of the last element read before the
// cut, which may be a node the snapshot does not print; "": n's own).
func (sh *shared) hole(n *target.Node, key string) {
	if n == nil && key == "" {
		return
	}
	if sh.holes == nil {
		sh.holes = map[*target.Node]string{}
	}
	if _, ok := sh.holes[n]; !ok {
		sh.holes[n] = key
	}
}

// lastKeyed is the last node given a key since the keyed list held from
// of them that still has its key (folding takes a wrapper's), or nil.
func (sh *shared) lastKeyed(from int) *target.Node {
	for i := len(sh.keyed) - 1; i >= from; i-- {
		if sh.keyed[i].Key != "" {
			return sh.keyed[i]
		}
	}
	return nil
}

// tree converts one document's AX tree.
func (sh *shared) tree(page *axPage) []*target.Node {
	nodes := page.nodes
	// A node id names the last node listed with it; seen is by that index.
	byID := make(map[string]int32, len(nodes))
	for i, n := range nodes {
		byID[n.NodeID] = int32(i)
	}
	root := nodes[0] // the RootWebArea comes first
	b := builder{shared: sh, page: page, nodes: nodes, byID: byID, seen: make([]bool, len(nodes))}
	if page.frame != nil {
		b.suffix = "@" + page.frame.id
	}
	from := len(sh.keyed)
	out := b.convert(root, byID[root.NodeID], nil)
	sh.omitted += page.left
	if page.left > 0 {
		// The walk of this document stopped at its budget: what follows
		// its last element was not read (a frame's with no node of its
		// own: the frame itself, from its <iframe> node on).
		on := b.keyOf(0, page.cut)
		if last := sh.lastKeyed(from); last != nil {
			sh.hole(last, on)
		} else {
			sh.hole(page.owner, on) // the main document's owner is nil: a hole at no node
		}
	}
	if sh.truncated {
		// What the builder's budget left unread, less what no snapshot
		// shows (ignored nodes, inline text boxes).
		for i, n := range nodes {
			if !b.seen[i] && !n.Ignored && n.Role != "InlineTextBox" {
				sh.omitted++
			}
		}
	}
	return out
}

type builder struct {
	*shared
	page   *axPage
	suffix string // of keys: "" in the main frame, "@frameId" in a frame
	nodes  []*axNode
	byID   map[string]int32 // index in nodes
	seen   []bool           // by index in nodes
}

// convert appends to out the snapshot nodes for n (at index i of the node
// list): one node, or n's children's nodes when n itself is dropped.
func (b *builder) convert(n *axNode, i int32, out []*target.Node) []*target.Node {
	if b.seen[i] {
		return out
	}
	b.seen[i] = true
	role, name := n.Role, n.Name
	if n.Ignored || role == "InlineTextBox" {
		return b.children(n, "", "", out)
	}
	// A list item's bullet or number is drawn by the page's style, not
	// content: it would print as a line of its own and prefix the item's
	// text ("• Apple") in diffs and finds.
	if role == "ListMarker" {
		return out
	}
	// Text that is only white space (a line break too) is layout, not
	// content.
	if (role == "StaticText" || role == "LineBreak") && strings.TrimSpace(name) == "" {
		return out
	}
	// A script's click listener (or a pointer cursor) on an element makes
	// it something a person clicks, whatever its role; so does a tabindex
	// (Chromium marks it focusable).
	scripted := (n.Scripted || n.BackendID != 0 && b.page.clickable[n.BackendID]) && !clickRoles[role]
	focusable := n.Props.focusable == axTrue && role != "RootWebArea" && role != "WebArea"
	if droppedRoles[role] && name == "" && !scripted && !focusable {
		return b.children(n, "", "", out)
	}
	b.count++
	node := &target.Node{Role: roleName(role), Name: name, Description: n.Desc, Flow: n.Props.flow}
	node.States, node.Interfaces, node.Actions = traits(role, &n.Props)
	if scripted && node.Actions == nil && n.Props.editable == axNone {
		node.Interfaces = append(node.Interfaces, "Action")
		node.Actions = []string{"click"}
	}
	if role == "heading" {
		node.Level, _ = strconv.Atoi(n.Props.level)
	}
	if v := n.Value; v != "" && v != name {
		node.TextLen = utf8.RuneCountInString(v)
		node.Text = capRunes(v, textCap)
	}
	if k := b.keyOf(n.BackendID, n.Handle); k != "" {
		b.lastRaw = k
		if !keylessRoles[role] {
			node.Key = k
			b.keyed = append(b.keyed, node)
		}
	}
	if n.Unread {
		b.hole(node, "") // a frame the walk's bounds left unread: read on from its <iframe>
	}
	// A text field's value is printed on its line: text inside it that
	// repeats the value says nothing.
	value := ""
	if n.Props.editable != axNone {
		value = n.Value
	}
	kids := b.children(n, name, value, nil)
	sub := b.page.frames[n.BackendID]
	if sub == nil && n.BackendID == 0 && n.Handle != 0 {
		sub = b.page.byHandle[n.Handle]
		if why := b.page.unreadable[n.Handle]; why != "" && role == "Iframe" {
			node.Unreadable = why
		}
	}
	if sub != nil && (role == "Iframe" || role == "IframePresentational") {
		kids = append(kids, b.frame(node, sub)...)
	}
	if len(kids) > 0 {
		node.Children = kids
	}
	if scripted || (focusable && droppedRoles[role]) {
		promoted(node)
	}
	if foldable(role, node) {
		node.Key = ""
		switch len(node.Children) {
		case 0:
			b.count--
			return out
		case 1:
			b.count--
			return append(out, node.Children[0])
		}
	}
	return append(out, node)
}

// keyOf is the key of the DOM node of this document a backend node id
// (the AX road's, or a frame owner's) or a handle (the page road's) names;
// "" for neither.
func (b *builder) keyOf(backend, handle int64) string {
	switch {
	case backend != 0:
		return nodeKey(b.gen, backend) + b.suffix
	case handle != 0:
		return handleKey(b.gen, handle, b.page.world) + b.suffix
	}
	return ""
}

// frame converts the tree of a frame whose iframe is node: its document's
// nodes, without a line for the document itself (the iframe's line names
// it).
func (b *builder) frame(node *target.Node, sub *axPage) []*target.Node {
	if len(sub.nodes) == 0 {
		return nil
	}
	sub.owner = node
	out := b.shared.tree(sub)
	if len(out) == 1 && out[0].Role == "document web" {
		doc := out[0]
		if node.Name == "" {
			node.Name = doc.Name
		}
		b.count--
		return doc.Children
	}
	return out
}

// promoted finishes a node kept because a script made it clickable or it
// is focusable while its role alone would have dropped it: Chromium gives
// such a node (a generic <div>) no name, so it is named by its text, and
// text children that only spell that name go. Such a node that holds
// other things to act on is a container, not a control (a framework's
// root listening for every click below it, a region made focusable with
// tabindex="-1" for focus management): it loses the click it was given.
func promoted(node *target.Node) {
	inner := false
	for _, k := range node.Children {
		k.Walk(func(n *target.Node, _ int) bool {
			if n.Actionable() {
				inner = true
			}
			return !inner
		})
	}
	if inner {
		node.Actions = nil
		node.Interfaces = slices.DeleteFunc(node.Interfaces, func(s string) bool { return s == "Action" })
		return
	}
	if node.Name != "" {
		return
	}
	var parts []string
	onlyText := true
	for _, k := range node.Children {
		k.Walk(func(n *target.Node, _ int) bool {
			if n.Role == "static" && n.Name != "" {
				parts = append(parts, strings.TrimSpace(n.Name))
			} else {
				onlyText = false
			}
			return true
		})
	}
	node.Name = capRunes(strings.Join(strings.Fields(strings.Join(parts, " ")), " "), nameCap)
	if onlyText && node.Name != "" {
		node.Children = nil
	}
}

// foldable reports whether node, of Chromium role role, is a wrapper that
// says nothing of its own: unnamed, undescribed, no value, nothing to act
// on, nothing to edit.
// Such a node carries no key (no ref to waste an agent's attention on);
// with one node inside or none it folds away (a level that adds nothing),
// with more it stays as structure, since grouping is information.
func foldable(role string, node *target.Node) bool {
	// Unnamed text structure (ruby with its annotation as description)
	// is text, whatever it describes.
	described := node.Description != "" && node.Role != "static"
	return (wrapperRoles[role] || wrapperNames[node.Role]) && node.Name == "" && !described && node.Text == "" &&
		!node.Actionable() && !node.Implements("EditableText")
}

// children appends to kids the snapshot nodes of n's children, less a text
// child that only repeats parentName or (in a text field) the field's
// value.
func (b *builder) children(n *axNode, parentName, value string, kids []*target.Node) []*target.Node {
	for _, id := range n.ChildIDs {
		if b.count >= SnapshotBudget {
			if !b.truncated {
				b.hole(b.lastKeyed(0), b.lastRaw)
			}
			b.truncated = true
			return kids
		}
		i, ok := b.byID[id]
		if !ok {
			continue
		}
		from := len(kids)
		kids = b.convert(b.nodes[i], i, kids)
		if parentName == "" && value == "" {
			continue
		}
		// A text child that only repeats its parent's name says nothing.
		keep := kids[:from]
		for _, k := range kids[from:] {
			if k.Role == "static" && len(k.Children) == 0 &&
				((parentName != "" && k.Name == parentName) || (value != "" && strings.Contains(value, k.Name))) {
				b.count-- // the budget counts the nodes a snapshot keeps
				continue
			}
			keep = append(keep, k)
		}
		kids = keep
	}
	return kids
}

// traits maps AX properties to AT-SPI states, interfaces and actions.
func traits(role string, p *axProps) (states, ifaces, actions []string) {
	states = make([]string, 0, 8)
	add := func(s string) { states = append(states, s) }
	if p.disabled != axTrue {
		add("sensitive")
		add("enabled")
	}
	for _, v := range [...]struct {
		name string
		w    axWord
	}{
		{"focusable", p.focusable}, {"focused", p.focused}, {"modal", p.modal},
		{"required", p.required}, {"multiline", p.multiline}, {"multiselectable", p.multiselectable},
	} {
		if v.w == axTrue {
			add(v.name)
		}
	}
	// The tree has no hidden node but one marked hidden; what is below the
	// fold is still "showing": an action scrolls it into view.
	if p.hidden != axTrue {
		add("visible")
		add("showing")
	}
	switch p.checked {
	case axTrue:
		add("checkable")
		add("checked")
	case axFalse:
		add("checkable")
	case axMixed:
		add("checkable")
		add("indeterminate")
	}
	switch p.pressed {
	case axTrue:
		add("pressed")
	case axMixed:
		add("indeterminate")
	}
	if p.selected == axTrue {
		add("selected")
	}
	if p.hasExpanded {
		add("expandable")
		if p.expanded == axTrue {
			add("expanded")
		}
	}
	if p.readonly == axTrue {
		add("read-only")
	}
	if inv := p.invalid; inv != axNone && inv != axFalse {
		add("invalid-entry")
	}
	editable := p.editable != axNone && p.readonly != axTrue
	if editable {
		add("editable")
		ifaces = append(ifaces, "EditableText", "Text")
	}
	if clickRoles[role] || (!editable && p.focusable == axTrue && role != "RootWebArea" && role != "WebArea") {
		ifaces = append(ifaces, "Action")
		actions = []string{"click"}
	}
	if len(states) == 0 {
		states = nil
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

// axTree is an Accessibility.getFullAXTree result.
type axTree struct{ nodes []*axNode }

// UnmarshalJSON decodes {"nodes": [AXNode…]} keeping what axNode holds.
func (t *axTree) UnmarshalJSON(data []byte) error {
	t.nodes = nil
	s := axScan{b: data}
	s.members(func(key []byte) {
		if string(key) != "nodes" {
			s.skip()
			return
		}
		// Nodes are allocated a slab at a time: a node list that grew
		// would be copied.
		var slab []axNode
		s.elements(func() {
			if len(slab) == cap(slab) {
				slab = make([]axNode, 0, 256)
			}
			slab = append(slab, axNode{})
			n := &slab[len(slab)-1]
			s.node(n)
			t.nodes = append(t.nodes, n)
		})
	})
	return s.end()
}

// decodeChecked is UnmarshalJSON on a reply the connection has already
// checked (see checkedDecoder).
func (t *axTree) decodeChecked(data []byte) error { return t.UnmarshalJSON(data) }

// UnmarshalJSON decodes one AXNode.
func (n *axNode) UnmarshalJSON(data []byte) error {
	*n = axNode{}
	s := axScan{b: data}
	s.node(n)
	return s.end()
}

// axScan reads the JSON of an AX tree. cdproto's JSON package hands an
// UnmarshalJSON method only a whole value it has checked, so axScan does
// not check it again: it reads what it needs, skips the rest, and stops at
// the first thing it does not expect.
type axScan struct {
	b   []byte
	i   int
	err error
}

func (s *axScan) fail(what string) {
	if s.err == nil {
		s.err = fmt.Errorf("cdp: decoding the AX tree: %s at offset %d", what, s.i)
	}
	s.i = len(s.b)
}

// end reports the first error, or trailing bytes after the value.
func (s *axScan) end() error {
	if s.err == nil && s.peek() != 0 {
		s.fail("unexpected data after the value")
	}
	return s.err
}

// peek skips white space and returns the next byte, 0 at the end.
func (s *axScan) peek() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// null consumes a null, reporting whether there was one.
func (s *axScan) null() bool {
	if s.peek() == 'n' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// rawString consumes a string and returns it with its quotes, and whether
// it holds an escape.
func (s *axScan) rawString() (raw []byte, escaped bool) {
	if s.peek() != '"' {
		s.fail("want a string")
		return nil, false
	}
	start := s.i
	for j := s.i + 1; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			s.i = j + 1
			return s.b[start:s.i], escaped
		}
	}
	s.fail("unterminated string")
	return nil, false
}

// unquote is the string a raw JSON string stands for; one that does not
// decode stays as it was written.
func unquote(raw []byte, escaped bool) string {
	if len(raw) < 2 {
		return ""
	}
	if !escaped && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var out string
	if jsonv2.Unmarshal(raw, &out) == nil {
		return out
	}
	return string(raw)
}

// str consumes a string (or null: "").
func (s *axScan) str() string {
	if s.null() {
		return ""
	}
	return unquote(s.rawString())
}

// skip consumes one value of any kind and returns its bytes.
func (s *axScan) skip() []byte {
	c := s.peek()
	start := s.i
	switch c {
	case '"':
		s.rawString()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				s.rawString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return s.b[start:s.i]
				}
			}
			s.i++
		}
		s.fail("unterminated value")
	case 0, ',', ':', '}', ']':
		s.fail("want a value")
	default: // a number, true, false or null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.b[start:s.i]
			}
			s.i++
		}
	}
	if s.err != nil {
		return nil
	}
	return s.b[start:s.i]
}

// members consumes an object (or null), calling f with each member's name
// positioned at its value; f must consume the value.
func (s *axScan) members(f func(key []byte)) {
	if s.null() {
		return
	}
	if s.peek() != '{' {
		s.fail("want an object")
		return
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return
	}
	for s.err == nil {
		raw, escaped := s.rawString()
		if s.err != nil {
			return
		}
		key := raw[1 : len(raw)-1]
		if escaped {
			key = []byte(unquote(raw, true))
		}
		if s.peek() != ':' {
			s.fail("want ':'")
			return
		}
		s.i++
		f(key)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.fail("want ',' or '}'")
		}
	}
}

// elements consumes an array (or null), calling f positioned at each
// element; f must consume it.
func (s *axScan) elements(f func()) {
	if s.null() {
		return
	}
	if s.peek() != '[' {
		s.fail("want an array")
		return
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return
	}
	for s.err == nil {
		f()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.fail("want ',' or ']'")
		}
	}
}

// value consumes an AXValue and returns its "value" member as a string: a
// string as itself, a number or boolean (or anything else) in its JSON
// spelling, "" when there is none.
func (s *axScan) value() string {
	var v string
	s.members(func(key []byte) {
		if string(key) != "value" {
			s.skip()
			return
		}
		if s.peek() == '"' {
			v = unquote(s.rawString())
			return
		}
		v = string(s.skip())
	})
	return v
}

// node consumes one AXNode into n.
func (s *axScan) node(n *axNode) {
	s.members(func(key []byte) {
		switch string(key) {
		case "nodeId":
			n.NodeID = s.str()
		case "ignored":
			switch v := s.skip(); string(v) {
			case "true":
				n.Ignored = true
			case "false", "null":
				n.Ignored = false
			default:
				s.fail("want a boolean")
			}
		case "role":
			n.Role = s.value()
		case "name":
			n.Name = s.value()
		case "description":
			n.Desc = s.value()
		case "value":
			n.Value = s.value()
		case "properties":
			n.Props = axProps{}
			s.elements(func() {
				var name, v string
				s.members(func(key []byte) {
					switch string(key) {
					case "name":
						name = s.str()
					case "value":
						v = s.value()
					default:
						s.skip()
					}
				})
				n.Props.set(name, v)
			})
		case "childIds":
			n.ChildIDs = nil
			s.elements(func() { n.ChildIDs = append(n.ChildIDs, s.str()) })
		case "backendDOMNodeId":
			if s.null() {
				n.BackendID = 0
				return
			}
			id, err := strconv.ParseInt(string(s.skip()), 10, 64)
			if err != nil {
				s.fail("want an integer")
			}
			n.BackendID = id
		default:
			s.skip()
		}
	})
}
