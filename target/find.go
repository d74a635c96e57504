package target

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Found is what find <text> answers: the nodes with a ref whose name or
// text value contains the text, case-insensitively, in tree order, each
// with its nearest named ancestors as context; More is how many matches
// the cap left out, Searched how many nodes were looked at.
type Found struct {
	Query    string  `json:"query"`
	Searched int     `json:"searched"`
	Matches  []Match `json:"matches,omitempty"`
	More     int     `json:"more,omitempty"`
}

// Match is one node find found.
type Match struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	Text string `json:"text,omitempty"` // its value, when that is what matched
	// In is its nearest named ancestors, nearest first (at most
	// FindContext).
	In []Context `json:"in,omitempty"`
}

// Context is a named ancestor of a match.
type Context struct {
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role"`
	Name string `json:"name"`
}

// FindContext is how many named ancestors a match carries.
const FindContext = 2

// FindText finds the nodes whose name or text value contains q,
// case-insensitively, and answers at most max of them. A matching node
// without a ref (a tab's text run) counts as its nearest ancestor with
// one, once: the link "Edit", not the text inside it. The root is context,
// never a match unless it has a ref.
func (s *Snapshot) FindText(q string, max int) *Found {
	f := &Found{Query: q}
	if s == nil || s.Root == nil {
		return f
	}
	needle := strings.ToLower(q)
	seen := map[*Node]bool{}
	var path []*Node // ancestors of the node visited, root first
	var visit func(n *Node)
	visit = func(n *Node) {
		f.Searched++
		if needle != "" && (strings.Contains(strings.ToLower(n.Name), needle) || strings.Contains(strings.ToLower(n.Text), needle)) {
			at, above := n, path
			for at.Ref == "" && len(above) > 0 {
				at, above = above[len(above)-1], above[:len(above)-1]
			}
			if at.Ref != "" && !seen[at] {
				seen[at] = true
				if len(f.Matches) < max {
					m := Match{Ref: at.Ref, Role: at.Role, Name: at.Name}
					if !strings.Contains(strings.ToLower(at.Name), needle) && strings.Contains(strings.ToLower(at.Text), needle) {
						m.Text = at.Text
					}
					for i := len(above) - 1; i >= 0 && len(m.In) < FindContext; i-- {
						if a := above[i]; a.Name != "" {
							m.In = append(m.In, Context{Ref: a.Ref, Role: a.Role, Name: a.Name})
						}
					}
					f.Matches = append(f.Matches, m)
				} else {
					f.More++
				}
			}
		}
		path = append(path, n)
		for _, c := range n.Children {
			visit(c)
		}
		path = path[:len(path)-1]
	}
	visit(s.Root)
	return f
}

// WriteText renders what find found, one match a line, or "no match":
//
//	link "Edit" @e88 in row "Ada Lovelace" @e80, table "People"
//	entry "Email" @e7 ="ada@example.org" in form "Sign up"
//	… 14 more: a longer text finds fewer
//	no match for "Delete" among 412 nodes
func (f *Found) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(f.Matches) == 0 {
		fmt.Fprintf(bw, "no match for %s among %d nodes\n", strconv.Quote(f.Query), f.Searched)
		return bw.Flush()
	}
	for _, m := range f.Matches {
		bw.WriteString(m.Role)
		if m.Name != "" {
			bw.WriteString(" " + strconv.Quote(clipDiff(m.Name)))
		}
		bw.WriteString(" " + m.Ref)
		if m.Text != "" {
			bw.WriteString(" =" + strconv.Quote(clipDiff(m.Text)))
		}
		for i, c := range m.In {
			if i == 0 {
				bw.WriteString(" in ")
			} else {
				bw.WriteString(", ")
			}
			bw.WriteString(c.Role + " " + strconv.Quote(clipDiff(c.Name)))
			if c.Ref != "" {
				bw.WriteString(" " + c.Ref)
			}
		}
		bw.WriteString("\n")
	}
	if f.More > 0 {
		fmt.Fprintf(bw, "… %d more matches not shown: a longer text finds fewer, snapshot @ref shows one part\n", f.More)
	}
	return bw.Flush()
}

// Text is WriteText into a string.
func (f *Found) Text() string {
	var b strings.Builder
	_ = f.WriteText(&b)
	return b.String()
}
