package target

import (
	"bufio"
	"fmt"
	"io"
	"slices"
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
	// Said is the text that matched: the line of the matching name or
	// text (the node's, or a text run's inside it) around the match, at
	// most FindLine characters, "…" where it was cut.
	Said string `json:"said,omitempty"`
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

// FindLine bounds the text a match is shown with (Match.Said), in
// characters; findBefore is how many of them may come before the match.
const (
	FindLine   = 120
	findBefore = 40
)

// FindText finds the nodes whose name or text value contains q,
// case-insensitively, and answers at most max of them, in tree order. A
// matching node without a ref (a tab's text run) counts as its nearest
// ancestor with one, once; a node that matches only as its contents do (a
// cell named "Edit Delete" by the link "Edit" in it) gives way to the
// deepest match below it, and one whose very name a node below it
// repeats (a list item "Row 7" and its label) stands for that node. A match's context is its nearest named
// ancestors, leaving out the root (the answer names the target) and those
// named by the match's own words; a row or an item without a name is named
// as -i names it (memberName: its first text that is not a control's,
// "Ada Lovelace").
func (s *Snapshot) FindText(q string, max int) *Found {
	f := &Found{Query: q}
	if s == nil || s.Root == nil {
		return f
	}
	needle := strings.ToLower(q)
	matches := func(n *Node) bool {
		return needle != "" && (strings.Contains(strings.ToLower(n.Name), needle) || strings.Contains(strings.ToLower(n.Text), needle))
	}
	type hit struct {
		at    *Node
		above []*Node // its ancestors, root first
		said  string  // the name of the node that matched (at's, or a text run's in it)
		text  string  // the name or text in which the match is (at's, or a text run's)
		run   bool    // the match is a text run's inside at
	}
	var hits []hit
	seen := map[*Node]bool{}
	var path []*Node // ancestors of the node visited, root first
	// visit reports whether a match with a ref was found in n's subtree.
	var visit func(n *Node) bool
	visit = func(n *Node) bool {
		f.Searched++
		path = append(path, n)
		found, at := false, len(hits)
		for _, c := range n.Children {
			found = visit(c) || found
		}
		path = path[:len(path)-1]
		if !matches(n) {
			return found
		}
		// The nearest node with a ref, n itself or an ancestor.
		i := len(path)
		t := n
		for t.Ref == "" && i > 0 {
			i--
			t = path[i]
		}
		if t.Ref == "" || seen[t] {
			return found
		}
		if t == n && found {
			// A deeper match that says n's very name repeats n (a row's
			// label): n stands for it. Else the deeper match says it
			// better (n is named by its contents).
			same := slices.IndexFunc(hits[at:], func(h hit) bool { return h.said == n.Name })
			if n.Name == "" || same < 0 {
				return true
			}
			hits = slices.DeleteFunc(hits, func(h hit) bool { return h.said == n.Name && slices.Contains(h.above, n) })
		}
		seen[t] = true
		h := hit{at: t, above: append([]*Node(nil), path[:i]...), said: n.Name, text: n.Name}
		if !strings.Contains(strings.ToLower(n.Name), needle) {
			h.text = n.Text
		}
		h.run = n != t
		hits = slices.Insert(hits, at, h) // before its subtree's: tree order
		return true
	}
	visit(s.Root)
	for _, h := range hits {
		if len(f.Matches) == max {
			f.More++
			continue
		}
		t := h.at
		m := Match{Ref: t.Ref, Role: t.Role, Name: t.Name, Said: around(h.text, q, FindLine)}
		if h.run {
			// A text run is a piece of a line: the line is at's text,
			// its pieces joined as they are shown.
			if all, _ := NodeText(t); strings.Contains(strings.ToLower(all), needle) {
				m.Said = around(all, q, FindLine)
			}
		}
		if !strings.Contains(strings.ToLower(t.Name), needle) && strings.Contains(strings.ToLower(t.Text), needle) {
			m.Text = t.Text
		}
		for i := len(h.above) - 1; i >= 1 && len(m.In) < FindContext; i-- { // above[0] is the root
			a := h.above[i]
			name := a.Name
			if name == "" && memberRoles[a.Role] {
				name = memberName(a, []*Node{t})
			}
			if name == "" || (t.Name != "" && strings.Contains(name, t.Name)) {
				continue
			}
			m.In = append(m.In, Context{Ref: a.Ref, Role: a.Role, Name: name})
		}
		f.Matches = append(f.Matches, m)
	}
	return f
}

// around is the line of s that holds q's first match (case-insensitively),
// whole when it has at most bound characters, else bound characters of it
// from findBefore before the match, "…" marking each end that was cut;
// s's first line when q is not in it.
func around(s, q string, bound int) string {
	r := []rune(s)
	low := []rune(strings.ToLower(s))
	at := -1
	if len(low) == len(r) { // lower-casing kept every character apart
		at = strings.Index(string(low), strings.ToLower(q))
		if at >= 0 {
			at = len([]rune(string(low)[:at]))
		}
	}
	if at < 0 {
		at = 0
	}
	start, end := at, at
	for start > 0 && r[start-1] != '\n' {
		start--
	}
	for end < len(r) && r[end] != '\n' {
		end++
	}
	line := strings.TrimSpace(string(r[start:end]))
	if end-start <= bound {
		return line
	}
	from := max(start, min(at-findBefore, end-bound))
	to := min(end, from+bound)
	out := strings.TrimSpace(string(r[from:to]))
	if from > start {
		out = "…" + out
	}
	if to < end {
		out += "…"
	}
	return out
}

// hasText reports whether s holds q, case-insensitively.
func hasText(s, q string) bool {
	return q != "" && strings.Contains(strings.ToLower(s), strings.ToLower(q))
}

// WriteText renders what find found, one match a line, or "no match":
//
//	link "Edit" @e88 in row "Ada Lovelace" @e80, table "People"
//	entry "Email" @e7 ="ada@example.org" in form "Sign up"
//	description term "…ensure_ascii=True, check_circular=True, allow_nan=True, …" @e3
//	description value @e4 says "If indent is a non-negative integer, JSON array elements are pretty-printed."
//	… 14 more: a longer text finds fewer
//	no match for "Delete" among 412 nodes
func (f *Found) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(f.Matches) == 0 {
		fmt.Fprintf(bw, "no match for %s among %d nodes\n", strconv.Quote(f.Query), f.Searched)
		return bw.Flush()
	}
	for _, m := range f.Matches {
		// A name or value is shown around the match where that is in it
		// (a long one no longer hides it past its first characters);
		// a match in neither (a text run's inside the node) says the
		// text that matched.
		shown := false
		bw.WriteString(m.Role)
		if m.Name != "" {
			name := clipDiff(m.Name)
			if hasText(m.Name, f.Query) {
				name, shown = around(m.Name, f.Query, FindLine), true
			}
			bw.WriteString(" " + strconv.Quote(name))
		}
		bw.WriteString(" " + m.Ref)
		if m.Text != "" {
			text := clipDiff(m.Text)
			if hasText(m.Text, f.Query) {
				text, shown = around(m.Text, f.Query, FindLine), true
			}
			bw.WriteString(" =" + strconv.Quote(text))
		}
		if !shown && m.Said != "" {
			bw.WriteString(" says " + strconv.Quote(m.Said))
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
