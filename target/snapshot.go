package target

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Snapshot is one target's accessibility tree at one moment, in the shape
// every backend emits (AT-SPI for windows, the CDP AX tree for tabs). Render
// it for an agent with WriteText, or marshal it with encoding/json for
// programs: both carry the same tree.
type Snapshot struct {
	Target string `json:"target,omitempty"` // "win:0x400007", "tab:3"
	Title  string `json:"title,omitempty"`
	Census Census `json:"census"`
	// Truncated is set when the walk stopped at its node budget; the nodes
	// not visited are absent (not marked unreadable).
	Truncated bool `json:"truncated,omitempty"`
	// Omitted is how many nodes of the target a truncated snapshot left
	// out, as far as its backend counted them (0: not counted); After is
	// the ref of the last node it holds, from which a backend that pages
	// reads on (snapshot --after): nothing after it was read.
	Omitted int    `json:"omitted,omitempty"`
	After   string `json:"after,omitempty"`
	// Interactive is set on the view InteractiveView returns; Hidden counts
	// the actionable nodes that view left out because they are not on
	// screen (a closed menu's items).
	Interactive bool `json:"interactive,omitempty"`
	Hidden      int  `json:"hidden,omitempty"`
	// Compact is set by a backend whose refs all work one way (a tab: every
	// node is acted on through its DOM node, and --at takes pixels of the
	// tab's screenshot, not of the screen). Its text form leaves out what
	// the role already says ("[click]" as the only action, "editable" on an
	// entry) and shortens the header, and its interactive view also keeps
	// the headings, the landmarks an agent reads a page by, with their refs.
	// Window snapshots leave it unset: their lines keep every field.
	Compact bool  `json:"compact,omitempty"`
	Root    *Node `json:"root"`
}

// Census counts a tree's nodes, so a reader can check the figures of one
// snapshot against another desktop's.
type Census struct {
	Nodes      int `json:"nodes"`
	Action     int `json:"action"`     // nodes exposing an action interface
	Editable   int `json:"editable"`   // nodes exposing editable text
	Unreadable int `json:"unreadable"` // subtrees the backend could not read
}

// Node is one element of a Snapshot. Field names are backend-neutral; the
// vocabularies are AT-SPI's, which a CDP backend maps onto:
//   - Role is a role name as libatspi spells it ("push button", "text",
//     "check box").
//   - States are state names ("focused", "checked", "sensitive",
//     "editable", "showing", …). A node that can be acted on but is not
//     Sensitive (its toolkit's meaning) is shown as disabled.
//   - Interfaces are short interface names ("Action", "Text",
//     "EditableText", "Component", …).
type Node struct {
	Ref  string `json:"ref,omitempty"` // "@e7", set by RefTable.Assign
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	// NameFrom says where a name the toolkit did not give came from
	// (NameFromTooltip); "" for the node's own name or its label's.
	NameFrom    string   `json:"name_from,omitempty"`
	Description string   `json:"description,omitempty"`
	States      []string `json:"states,omitempty"`
	Interfaces  []string `json:"interfaces,omitempty"`
	Actions     []string `json:"actions,omitempty"` // in the backend's index order; "" for an unnamed action
	// Level is a heading's level (1 for <h1>), 0 when the backend gave none.
	Level int `json:"level,omitempty"`
	// Text is the first characters of the node's text value; TextLen is its
	// full length in characters, so a reader knows when Text is cut short.
	Text    string `json:"text,omitempty"`
	TextLen int    `json:"text_len,omitempty"`
	// Value is a range control's value (a slider's, a progress bar's, a
	// spin button's: AT-SPI's Value interface), nil when it has none.
	Value  *Value `json:"value,omitempty"`
	Bounds *Rect  `json:"bounds,omitempty"` // screen coordinates
	// Unreadable, when set, says why this node's subtree could not be read
	// (the application stopped answering, the walk's deadline passed…); the
	// node's other fields are whatever was read before that.
	Unreadable string  `json:"unreadable,omitempty"`
	Children   []*Node `json:"children,omitempty"`
	// Flow is how the node's text sits against the text before it, where
	// the backend laid it out (a page's walk); get text joins pieces by it
	// (NodeText). Not shown to agents.
	Flow Flow `json:"-"`
	// Key is the backend's own identity of the object ("bus name + object
	// path" for AT-SPI, a backendNodeId for CDP). Refs map to it. It is not
	// shown to agents.
	Key string `json:"-"`
}

// NameFromTooltip is the NameFrom of a node named by its description (a
// toolkit's tooltip: GTK and Qt describe a widget by it) for want of a
// name of its own or a label's.
const NameFromTooltip = "tooltip"

// Value is where a range control stands between its bounds.
type Value struct {
	Current float64 `json:"current"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// Rect is a rectangle in screen pixels.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Offscreen reports whether r is the toolkit's "nowhere" position (GTK
// answers INT32_MIN for an object scrolled out of view or not mapped).
func (r Rect) Offscreen() bool { return r.X == math.MinInt32 || r.Y == math.MinInt32 }

// String formats r as an X geometry, "WxH+X+Y".
func (r Rect) String() string { return fmt.Sprintf("%dx%d%+d%+d", r.W, r.H, r.X, r.Y) }

// Has reports whether the node carries state s.
func (n *Node) Has(state string) bool { return slices.Contains(n.States, state) }

// Implements reports whether the node exposes interface iface.
func (n *Node) Implements(iface string) bool { return slices.Contains(n.Interfaces, iface) }

// Actionable reports whether an agent can act on the node through the tree:
// it exposes EditableText, or Action with an action a click does
// (ClickAction).
func (n *Node) Actionable() bool {
	return (n.Implements("Action") && ClickAction(n.Actions) >= 0) || n.Implements("EditableText")
}

// clickActions are the action names that mean "activate this", in the
// order a click prefers them.
var clickActions = [...]string{"click", "press", "activate", "toggle", "jump", "open"}

// ClickAction is the index among a node's actions of the one a click does,
// or -1: the first of click, press, activate, toggle, jump, open
// (case-insensitively), else action 0 — AT-SPI's default action, also when
// it has no name — unless action 0 is a command of the "group.action" kind
// (GTK 4 gives every window window.close first and every label
// clipboard.copy: a widget's commands, not its default action; a click
// must never close a window).
func ClickAction(actions []string) int {
	for _, c := range clickActions {
		if i := slices.IndexFunc(actions, func(s string) bool { return strings.EqualFold(s, c) }); i >= 0 {
			return i
		}
	}
	if len(actions) == 0 || groupAction(actions[0]) {
		return -1
	}
	return 0
}

// groupAction reports whether an action name is "group.action".
func groupAction(name string) bool {
	g, a, ok := strings.Cut(name, ".")
	return ok && g != "" && a != "" && !strings.ContainsAny(name, " ")
}

// Disabled reports whether the node is actionable or focusable but not
// sensitive (greyed out), as its toolkit means it (Sensitive).
func (n *Node) Disabled() bool {
	return (n.Actionable() || n.Has("focusable")) && !n.Sensitive()
}

// Sensitive reports whether the node takes input, read by its toolkit's
// own semantics rather than by one missing bit: it carries SENSITIVE or
// ENABLED; or it holds the focus (no toolkit focuses a greyed-out
// widget); or it is editable document content (contentRoles, EDITABLE),
// on which a toolkit sets neither — LibreOffice's paragraphs are focused,
// editable, with EditableText, and carry no SENSITIVE. A widget that
// lacks both is greyed out, editable or not: GTK's disabled entry stays
// EDITABLE and FOCUSABLE, and is not sensitive.
func (n *Node) Sensitive() bool {
	switch {
	case n.Has("sensitive"), n.Has("enabled"), n.Has("focused"):
		return true
	}
	return n.Has("editable") && contentRoles[n.Role]
}

// contentRoles are the roles of a document's content (an office suite's,
// an editable document's), not of a widget: their toolkits never set
// SENSITIVE or ENABLED on them.
var contentRoles = map[string]bool{
	"paragraph": true, "heading": true, "header": true, "footer": true, "caption": true,
	"section": true, "block quote": true, "comment": true, "footnote": true, "page": true,
	"document frame": true, "document text": true, "document web": true,
	"document spreadsheet": true, "document presentation": true, "document email": true,
}

// Walk calls f for n and every node below it, depth first in child order,
// with each node's depth (0 for n). It stops early when f returns false.
func (n *Node) Walk(f func(node *Node, depth int) bool) {
	n.walk(0, f)
}

func (n *Node) walk(depth int, f func(*Node, int) bool) bool {
	if !f(n, depth) {
		return false
	}
	for _, c := range n.Children {
		if !c.walk(depth+1, f) {
			return false
		}
	}
	return true
}

// Count computes the census of the tree below n (n included).
func (n *Node) Count() Census {
	var c Census
	if n == nil {
		return c
	}
	n.Walk(func(x *Node, _ int) bool {
		c.Nodes++
		if x.Implements("Action") {
			c.Action++
		}
		if x.Implements("EditableText") {
			c.Editable++
		}
		if x.Unreadable != "" {
			c.Unreadable++
		}
		return true
	})
	return c
}

// Find returns the first node (depth first) for which match is true, or nil.
func (n *Node) Find(match func(*Node) bool) *Node {
	var found *Node
	n.Walk(func(x *Node, _ int) bool {
		if match(x) {
			found = x
			return false
		}
		return true
	})
	return found
}

// WriteText renders the snapshot for an agent: a census header, then one
// node per line, indented two spaces a level:
//
//	# win:0x400007 "vibespace fixture": 87 nodes, 23 action, 2 editable, 0 unreadable
//	frame "vibespace fixture" @e1 900x700+0+0 active
//	  push button "Alpha" @e3 80x30+10+10 [click]
//	  text "Name" @e7 200x30+10+50 focused editable ="hello"
//	  check box "Check me" @e9 90x20+10+90 unchecked [click]
//	  panel @e12 !unreadable(app not answering)
//
// Only the states an agent acts on are shown (hidden — known states without
// "showing" —, focused, checked/unchecked and mixed, selected,
// expanded/collapsed, pressed, editable, disabled, modal…), a heading's level as "h2", the
// geometry only when it has an area ("offscreen" when the toolkit places
// it nowhere), the text value only when it says more than the name.
//
// A Compact snapshot (a tab's) is written shorter:
//
//	# tab:3 "Sign up": 41 nodes, 3 action, 1 editable; interactive
//	heading "Sign up" @e1 h1
//	entry "Name" @e2
//	check box "I agree" @e3 unchecked
//	push button "Save" @e4
//
// the header leaves out zero counts of unreadable and hidden nodes; a root
// without a ref (the document, named in the header) has no line of its own
// and its children start at the margin; a line leaves out "[click]" when
// click is the node's only action and "editable" on an entry (both say
// what the role says).
func (s *Snapshot) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# ")
	if s.Target != "" {
		bw.WriteString(s.Target)
		bw.WriteString(" ")
	}
	if s.Title != "" {
		bw.WriteString(strconv.Quote(s.Title))
	}
	bw.WriteString(": ")
	s.writeCounts(bw)
	bw.WriteString("\n")
	s.writeNodes(bw, nil)
	return bw.Flush()
}

// writeCounts writes the header's census, "87 nodes, 23 action, …", and
// what the view left out.
func (s *Snapshot) writeCounts(bw *bufio.Writer) {
	c := s.Census
	if s.Compact {
		fmt.Fprintf(bw, "%d nodes, %d action, %d editable", c.Nodes, c.Action, c.Editable)
		if c.Unreadable > 0 {
			fmt.Fprintf(bw, ", %d unreadable", c.Unreadable)
		}
		if s.Truncated {
			s.writeCut(bw)
		}
		if s.Interactive {
			bw.WriteString("; interactive")
			if s.Hidden > 0 {
				fmt.Fprintf(bw, ", %d hidden not shown", s.Hidden)
			}
		}
		return
	}
	fmt.Fprintf(bw, "%d nodes, %d action, %d editable, %d unreadable", c.Nodes, c.Action, c.Editable, c.Unreadable)
	if s.Truncated {
		s.writeCut(bw)
	}
	if s.Interactive {
		fmt.Fprintf(bw, " (interactive view; %d hidden not shown)", s.Hidden)
	}
}

// writeCut says where a truncated snapshot stopped, what it left out and
// how to read on.
func (s *Snapshot) writeCut(bw *bufio.Writer) {
	bw.WriteString(", truncated at budget")
	if s.Omitted > 0 {
		fmt.Fprintf(bw, ": ~%d more nodes not read", s.Omitted)
	}
	if s.After != "" {
		fmt.Fprintf(bw, "; read on with snapshot --after %s, or a part with snapshot @ref", s.After)
	}
}

// writeNodes writes one line a node; a node in below (what a depth cut
// left out under it) ends in "+N below".
func (s *Snapshot) writeNodes(bw *bufio.Writer, below map[*Node]int) {
	if s.Root == nil {
		return
	}
	var line []byte
	// A compact root without a ref (a tab's document) says nothing the
	// header does not: its children are written in its place.
	skipRoot := s.Compact && s.Root.Ref == "" && s.Root.Unreadable == ""
	s.Root.Walk(func(n *Node, depth int) bool {
		if skipRoot {
			if depth == 0 {
				return true
			}
			depth--
		}
		line = appendLine(line[:0], n, depth, s.Compact)
		if b, ok := below[n]; ok {
			line = fmt.Appendf(line[:len(line)-1], " +%d below\n", b)
		}
		bw.Write(line)
		return true
	})
}

// Text is WriteText into a string.
func (s *Snapshot) Text() string {
	var b strings.Builder
	_ = s.WriteText(&b)
	return b.String()
}

func appendLine(b []byte, n *Node, depth int, compact bool) []byte {
	for range depth {
		b = append(b, "  "...)
	}
	if n.Role == "" {
		b = append(b, "node"...) // unread: its role never came
	} else {
		b = append(b, n.Role...)
	}
	if n.Name != "" {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, n.Name)
		if n.NameFrom != "" {
			b = append(b, " ("...)
			b = append(b, n.NameFrom...)
			b = append(b, ')')
		}
	}
	if n.Ref != "" {
		b = append(b, ' ')
		b = append(b, n.Ref...)
	}
	if r := n.Bounds; r != nil && r.W > 0 && r.H > 0 {
		b = append(b, ' ')
		if r.Offscreen() {
			b = append(b, "offscreen"...)
		} else {
			b = append(b, r.String()...)
		}
	}
	if n.Level > 0 {
		if n.Role == "heading" {
			b = append(b, " h"...)
		} else {
			b = append(b, " level="...)
		}
		b = strconv.AppendInt(b, int64(n.Level), 10)
	}
	for _, st := range shownStates(n) {
		if compact && st == "editable" && n.Role == "entry" {
			continue
		}
		b = append(b, ' ')
		b = append(b, st...)
	}
	if n.Implements("Action") && len(n.Actions) > 0 && !(compact && len(n.Actions) == 1 && n.Actions[0] == "click") {
		b = append(b, " ["...)
		for i, a := range n.Actions {
			if i > 0 {
				b = append(b, ' ')
			}
			if a == "" {
				a = "#" + strconv.Itoa(i)
			}
			b = append(b, a...)
		}
		b = append(b, ']')
	}
	v := n.Value
	if v != nil && n.Text == "" {
		b = append(b, " ="...)
		b = strconv.AppendFloat(b, v.Current, 'f', -1, 64)
	}
	if n.Text != "" && n.Text != n.Name {
		b = append(b, " ="...)
		b = strconv.AppendQuote(b, n.Text)
		if n.TextLen > utf8.RuneCountInString(n.Text) {
			b = append(b, "…+"...)
			b = strconv.AppendInt(b, int64(n.TextLen-utf8.RuneCountInString(n.Text)), 10)
		}
	}
	if v != nil && v.Max > v.Min {
		// The bounds say what the value means: 42 of 0–100, 0.5 of 0–1.
		b = append(b, " ("...)
		b = strconv.AppendFloat(b, v.Min, 'f', -1, 64)
		b = append(b, "–"...)
		b = strconv.AppendFloat(b, v.Max, 'f', -1, 64)
		b = append(b, ')')
	}
	if n.Unreadable != "" {
		b = append(b, " !unreadable("...)
		b = append(b, n.Unreadable...)
		b = append(b, ')')
	}
	return append(b, '\n')
}

// shownStates is the part of a node's state set an agent decides with.
func shownStates(n *Node) []string {
	var out []string
	add := func(s string) { out = append(out, s) }
	if offScreen(n) {
		add("hidden")
	}
	if n.Has("focused") {
		add("focused")
	}
	if isCheckable(n) {
		// Both facts of a mixed box: toolkits keep the checked bit under
		// the mixed one (Qt's partial state is checked and mixed) and a
		// click may flip it alone.
		if n.Has("checked") {
			add("checked")
		} else {
			add("unchecked")
		}
		if n.Has("indeterminate") {
			add("mixed")
		}
	} else if n.Has("checked") {
		add("checked")
	}
	if n.Has("pressed") {
		add("pressed")
	}
	if n.Has("selected") {
		add("selected")
	}
	if n.Has("expanded") {
		add("expanded")
	} else if n.Has("expandable") {
		add("collapsed")
	}
	if n.Implements("EditableText") && n.Has("editable") {
		add("editable")
	}
	// Read-only as the law reads it (not_editable): READ_ONLY, or a field
	// with EditableText that is not EDITABLE (GTK's non-editable entry
	// sets no READ_ONLY).
	if n.Has("read-only") || (n.Implements("EditableText") && !n.Has("editable") && !n.Disabled()) {
		add("readonly")
	}
	if n.Disabled() {
		add("disabled")
	}
	for _, s := range [...]string{"modal", "required", "invalid-entry"} {
		if n.Has(s) {
			add(s)
		}
	}
	return out
}

func isCheckable(n *Node) bool {
	if n.Has("checkable") {
		return true
	}
	switch n.Role {
	case "check box", "radio button", "toggle button", "check menu item", "radio menu item", "switch":
		return true
	}
	return false
}

// InteractiveView returns a copy of the snapshot that keeps only what an
// agent can act on: the root, every actionable node on screen (and every
// control that declares Action with no action in it: emptyControl), every
// page tab (a notebook's, clicked through its parent's Selection), every
// list box or table with a Selection (the node select takes), every
// slider, progress bar and spin button with its value, every unreadable
// marker, the text that labels an unnamed actionable sibling (a label
// next to an entry that has no name of its own), and a named table row,
// cell or list item with kept nodes inside it, as their context; a Compact
// snapshot's view also keeps every heading on screen that has a ref. A node with
// states but without "showing" (a closed menu's item) is left out and
// counted in Hidden. Nodes in between are dropped and their kept
// descendants move up, so nesting is kept among the nodes shown. The census
// still counts the whole tree.
func (s *Snapshot) InteractiveView() *Snapshot {
	out := *s
	out.Interactive = true
	out.Hidden = 0
	if s.Root != nil {
		root := *s.Root
		root.Children = keptBelow(s.Root, &out.Hidden, s.Compact)
		out.Root = &root
	}
	return &out
}

// offScreen reports whether the backend said where the node is and it is
// not on screen.
func offScreen(n *Node) bool { return len(n.States) > 0 && !n.Has("showing") }

func keptBelow(n *Node, hidden *int, headings bool) []*Node {
	var kept []*Node
	unnamedAct := false
	for _, c := range n.Children {
		if c.Actionable() && c.Name == "" && !offScreen(c) {
			unnamedAct = true
		}
	}
	for _, c := range n.Children {
		below := keptBelow(c, hidden, headings)
		wanted := c.Actionable() || emptyControl(c) || rangeControl(c) || c.Role == "page tab" || choiceList(c)
		if wanted && offScreen(c) && c.Unreadable == "" {
			*hidden++
			kept = append(kept, below...)
			continue
		}
		heading := headings && c.Role == "heading" && c.Ref != "" && !offScreen(c)
		if wanted || c.Unreadable != "" || heading || (unnamedAct && isLabel(c) && !offScreen(c)) {
			cc := *c
			cc.Children = below
			kept = append(kept, &cc)
			continue
		}
		if say := contextName(c, below); say != "" {
			cc := *c
			cc.Name = say
			cc.Children = below
			kept = append(kept, &cc)
			continue
		}
		kept = append(kept, below...)
	}
	return kept
}

// emptyControl reports whether n is a control by its role that declares
// the Action interface but no action a click does (GTK 4.8's check button
// has the interface and nothing in it). The interactive view keeps it: an
// agent sees the control, its state and its bounds (for a click --at),
// and a click on its ref is refused no_action, naming its interfaces.
func emptyControl(n *Node) bool {
	if !n.Implements("Action") || n.Actionable() {
		return false
	}
	switch n.Role {
	case "push button", "toggle button", "check box", "radio button", "switch", "slider", "spin button",
		"combo box", "page tab", "menu item", "check menu item", "radio menu item", "link":
		return true
	}
	return false
}

// choiceList reports whether n is a list or table whose rows are chosen
// through its Selection (select @ref takes it): kept as one line, so an
// agent has its ref.
func choiceList(n *Node) bool {
	if !n.Implements("Selection") {
		return false
	}
	switch n.Role {
	case "list box", "list", "table", "tree table", "tree":
		return true
	}
	return false
}

// rangeControl reports whether n is a control whose value is a range an
// agent reads or sets (a slider, a progress bar, a spin button).
func rangeControl(n *Node) bool {
	if n.Value == nil {
		return false
	}
	switch n.Role {
	case "slider", "progress bar", "spin button":
		return true
	}
	return false
}

// contextName is the name under which n — a table's row or cell or a
// list's item that is not kept for itself — is kept as the line its kept
// descendants sit under (`push button "Delete"` inside `table row "Ada
// Lovelace"`), or "" when it is not. It is n's name or text; for one that
// has neither (a page's <tr>), its memberName. A cell that only repeats
// its one kept descendant ("Delete" around its button) adds nothing and is
// not kept.
func contextName(n *Node, below []*Node) string {
	if len(below) == 0 || offScreen(n) {
		return ""
	}
	switch n.Role {
	case "table row", "row", "table cell", "cell", "grid cell", "list item", "tree item":
	default:
		return ""
	}
	say := orText(n)
	if say == "" && memberRoles[n.Role] {
		say = memberName(n, below)
	}
	if say == "" || (len(below) == 1 && repeats(say, below)) {
		return ""
	}
	return say
}

// memberRoles are the roles of a collection's members that a toolkit often
// leaves unnamed, and that memberName names.
var memberRoles = map[string]bool{"table row": true, "row": true, "list item": true, "tree item": true}

// memberName is the name an unnamed row or item goes by, in -i's lines
// and in find's context alike: the first name or text below it, in tree
// order, of a node that is not actionable (a cell, a label — never a
// check box's "Select" or a link's "Edit", nor anything inside them), and
// that does not merely repeat one of the nodes shown (below).
func memberName(n *Node, below []*Node) string {
	for _, c := range n.Children {
		if c.Actionable() {
			continue
		}
		if say := strings.TrimSpace(orText(c)); say != "" && !repeats(say, below) {
			return say
		}
		if say := memberName(c, below); say != "" {
			return say
		}
	}
	return ""
}

// repeats reports whether s is the name or text of one of the nodes.
func repeats(s string, nodes []*Node) bool {
	for _, k := range nodes {
		if k.Name == s || k.Text == s {
			return true
		}
	}
	return false
}

// orText is a node's name, else its text.
func orText(n *Node) string {
	if n.Name != "" {
		return n.Name
	}
	return n.Text
}

func isLabel(n *Node) bool {
	if n.Actionable() {
		return false
	}
	if n.Name == "" && n.Text == "" {
		return false
	}
	switch n.Role {
	case "label", "static", "heading", "caption":
		return true
	}
	return false
}
