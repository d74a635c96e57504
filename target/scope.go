package target

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Observing less of a tree: the subtree of one node (snapshot @ref), the
// levels down to a depth (snapshot --depth N), a node's text (get text
// @ref). Each is a pure function of a snapshot; the daemon reads the tree
// once and answers the part asked for.

// Scope returns a copy of the snapshot whose root is the node with key
// (the backend's identity, which a ref maps to), its census counted over
// that subtree; false when no node of the tree has key (the node is gone).
// The nodes are shared with s, refs unchanged.
func (s *Snapshot) Scope(key string) (*Snapshot, bool) {
	if s == nil || s.Root == nil || key == "" {
		return nil, false
	}
	n := s.Root.Find(func(n *Node) bool { return n.Key == key })
	if n == nil {
		return nil, false
	}
	out := *s
	out.Root = n
	out.Census = n.Count()
	return &out, true
}

// Cut says what a depth cut left out: Nodes in all, and At, each node kept
// at the depth whose children were cut, with how many nodes were below it.
type Cut struct {
	Depth int        `json:"depth"`
	Nodes int        `json:"nodes"` // nodes not shown
	At    []CutPoint `json:"at,omitempty"`
}

// CutPoint is one node at the depth with nodes cut below it.
type CutPoint struct {
	Ref   string `json:"ref,omitempty"`
	Role  string `json:"role"`
	Name  string `json:"name,omitempty"`
	Below int    `json:"below"`
	node  *Node  // the copy in the cut tree, for the text form's marks
}

// CutDepth returns a copy of the snapshot that keeps its root and depth
// levels below it (depth 1: the root's children — a tab's document is not
// printed, so its depth 1 is the lines at the margin), and what it cut.
// depth ≤ 0 cuts nothing. The census is unchanged: it
// still counts what was read.
func (s *Snapshot) CutDepth(depth int) (*Snapshot, Cut) {
	cut := Cut{Depth: depth}
	if s == nil || s.Root == nil || depth <= 0 {
		return s, cut
	}
	out := *s
	out.Root = cutBelow(s.Root, depth, &cut)
	return &out, cut
}

func cutBelow(n *Node, levels int, cut *Cut) *Node {
	cp := *n
	if levels == 0 {
		below := 0
		for _, c := range n.Children {
			below += c.Count().Nodes
		}
		cp.Children = nil
		if below > 0 {
			cut.Nodes += below
			cut.At = append(cut.At, CutPoint{Ref: n.Ref, Role: n.Role, Name: n.Name, Below: below, node: &cp})
		}
		return &cp
	}
	if len(n.Children) > 0 {
		cp.Children = make([]*Node, len(n.Children))
		for i, c := range n.Children {
			cp.Children[i] = cutBelow(c, levels-1, cut)
		}
	}
	return &cp
}

// Framing is how an answer frames a snapshot's text: the scope it is of,
// and what a depth cut left out.
type Framing struct {
	Scope string // the ref the snapshot is scoped to; "" the whole tree
	Cut   Cut
}

// WriteAnswer renders the snapshot as an answer does. The answer's own
// target line names the handle and title, so the header keeps the counts
// alone (and the scope), then the nodes as WriteText writes them; a node
// with nodes cut below it ends in "+N below", and the header says how many
// were cut and which snapshot shows them:
//
//	# @e12: 14 nodes, 3 action, 1 editable; depth 1: 9 nodes below not shown (snapshot @e13 shows what is below it)
//	list "Items" @e12
//	  list item "Apple" @e13 +3 below
func (s *Snapshot) WriteAnswer(w io.Writer, f Framing) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("# ")
	if f.Scope != "" {
		bw.WriteString(f.Scope)
		bw.WriteString(": ")
	}
	s.writeCounts(bw)
	marks := map[*Node]int{}
	if f.Cut.Nodes > 0 {
		fmt.Fprintf(bw, "; depth %d: %d nodes below not shown (", f.Cut.Depth, f.Cut.Nodes)
		shown := ""
		for _, p := range f.Cut.At {
			marks[p.node] = p.Below
			if shown == "" && p.Ref != "" {
				shown = p.Ref
			}
		}
		if shown != "" {
			fmt.Fprintf(bw, "snapshot %s shows what is below it", shown)
		} else {
			bw.WriteString("a larger --depth shows them")
		}
		bw.WriteString(")")
	}
	bw.WriteString("\n")
	s.writeNodes(bw, marks)
	return bw.Flush()
}

// AnswerText is WriteAnswer into a string.
func (s *Snapshot) AnswerText(f Framing) string {
	var b strings.Builder
	_ = s.WriteAnswer(&b, f)
	return b.String()
}

// Flow is how a piece of text sits against the piece before it, as the
// backend laid them out: on a new line (a block's, a <br>), in the next
// table cell, after a space, or run on (inline pieces with nothing between
// them). FlowUnsaid is a backend that did not say (a window's toolkit).
type Flow uint8

const (
	FlowUnsaid Flow = iota
	FlowLine
	FlowCell
	FlowSpace
	FlowRun
)

// NodeText is what get text @ref answers of a node: its text value where
// it has one (an entry's, a text area's; "" for an empty one), else the text it shows — its
// name where it has no children, or the text of its descendants, one
// piece each, joined as their Flow says: a run-on piece with nothing
// between ("json." "dumps" "(" read "json.dumps("), a new line's after a
// line break, any other with a space where neither side has one (a
// heading "Sign up"; a row "Ada Lovelace ada@example.org Edit"). A piece
// that only repeats the one before it is left out. cut reports that a
// value was read only in part (TextLen is longer than Text).
func NodeText(n *Node) (text string, cut bool) {
	if n == nil {
		return "", false
	}
	if n.Text != "" {
		return n.Text, n.TextLen > len([]rune(n.Text))
	}
	if n.Implements("EditableText") && n.TextLen == 0 && len(n.Children) == 0 {
		return "", false // an empty field: its name is its label, not its text
	}
	var b []byte
	last := ""
	n.Walk(func(x *Node, _ int) bool {
		piece := x.Text
		if piece == "" && len(x.Children) == 0 {
			piece = x.Name
		}
		if piece == "" || piece == last {
			return true
		}
		if last != "" {
			switch {
			case x.Flow == FlowRun:
			case x.Flow == FlowLine:
				b = append(bytes.TrimRight(b, " "), '\n')
			case !strings.HasSuffix(last, " ") && !strings.HasPrefix(piece, " "):
				b = append(b, ' ')
			}
		}
		if x.Flow == FlowLine {
			piece = strings.TrimLeft(piece, " ")
		}
		b = append(b, piece...)
		last = piece
		if x.TextLen > len([]rune(x.Text)) && x.Text != "" {
			cut = true
		}
		return true
	})
	if last == "" {
		return n.Name, false
	}
	return strings.TrimSpace(string(b)), cut
}
