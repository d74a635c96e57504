package target

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Diff is what changed in a target's tree between two snapshots: nodes
// added, removed and changed, matched by Key (the backend's identity of
// the object: the same key is the same object, whatever moved around it).
//
// A node changed when what an agent decides with changed: its name, its
// shown states (checked, focused, expanded, hidden, disabled…: the states
// the text form prints), its text — its value and the text of the nodes
// without a key of their own below it (a tab's text runs), which have no
// identity to be matched by —, its range value (a slider's, a spin
// button's, a progress bar's) or its role. Bounds are not compared: a
// scroll, a resize or a relayout moves every node, and a diff listing them
// all would bury the change that matters; a node that goes off screen or
// comes back shows as its "hidden" state.
//
// An added node whose parent is added too is counted in that parent's
// line (a dialog that opened is one line, "+12 below"), and so is a removed
// one.
type Diff struct {
	Changes []Change `json:"changes,omitempty"`
	Added   int      `json:"added"`   // nodes, counting those below an added one
	Removed int      `json:"removed"` // likewise
	Changed int      `json:"changed"`
}

// Unchanged reports whether nothing changed.
func (d *Diff) Unchanged() bool { return len(d.Changes) == 0 }

// Change is one line of a diff.
type Change struct {
	Op    string `json:"op"` // "+" added, "-" removed, "~" changed
	Ref   string `json:"ref,omitempty"`
	Role  string `json:"role"`
	Name  string `json:"name,omitempty"`
	Below int    `json:"below,omitempty"` // + and -: the nodes added or removed below it
	// Text is an added or removed node's text when it has no name (a list
	// item's words), so the line says which one.
	Text string `json:"text,omitempty"`
	// What is a changed node's fields, each as it was and as it is.
	What []FieldChange `json:"what,omitempty"`
}

// FieldChange is one field of a changed node. Field is "states", "name",
// "text", "value" or "role". A name or text is clipped around where it
// first differs ("…Saved 3 items" → "…Saved 4 items"), so a page whose
// long text changed in one place says that place, not its whole text
// twice. A value is the number, with its bounds when they changed too. A states change is a pair that flipped (From
// "unchecked", To "checked"), or the states that came (From "") or went
// (To ""), space-separated.
type FieldChange struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// rootKey matches two roots without a key of their own (a tab's document).
const rootKey = "\x00root"

// keyed is a node of a tree with a key, with what a diff compares.
type keyed struct {
	n      *Node
	parent string // the key of its nearest ancestor with one
	text   string
	states []string
}

// valueChange is how a range value changed, or false when it did not:
// the current value, and the bounds beside it when they changed.
func valueChange(old, new *Value) (FieldChange, bool) {
	if old == nil && new == nil || old != nil && new != nil && *old == *new {
		return FieldChange{}, false
	}
	bounds := old == nil || new == nil || old.Min != new.Min || old.Max != new.Max
	word := func(v *Value) string {
		if v == nil {
			return ""
		}
		s := strconv.FormatFloat(v.Current, 'f', -1, 64)
		if bounds && v.Max > v.Min {
			s += " (" + strconv.FormatFloat(v.Min, 'f', -1, 64) + "–" + strconv.FormatFloat(v.Max, 'f', -1, 64) + ")"
		}
		return s
	}
	return FieldChange{"value", word(old), word(new)}, true
}

// index lists the nodes of a tree with a key, in depth-first order.
func index(root *Node) (map[string]*keyed, []string) {
	m := map[string]*keyed{}
	var order []string
	if root == nil {
		return m, order
	}
	var visit func(n *Node, parent string)
	visit = func(n *Node, parent string) {
		k := n.Key
		if k == "" && n == root {
			k = rootKey
		}
		if k != "" {
			if _, dup := m[k]; !dup {
				m[k] = &keyed{n: n, parent: parent, text: ownText(n), states: shownStates(n)}
				order = append(order, k)
			}
			parent = k
		}
		for _, c := range n.Children {
			visit(c, parent)
		}
	}
	visit(root, "")
	return m, order
}

// ownText is a node's value and the names of the nodes without a key
// below it, down to the next node with one, each trimmed (a page's runs
// of white space between elements say nothing).
func ownText(n *Node) string {
	parts := []string{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	add(n.Text)
	var walk func(*Node)
	walk = func(x *Node) {
		for _, c := range x.Children {
			if c.Key != "" {
				continue
			}
			if c.Name != "" {
				add(c.Name)
			} else {
				add(c.Text)
			}
			walk(c)
		}
	}
	walk(n)
	return strings.Join(parts, " ")
}

// DiffSnapshots compares two snapshots of one target, old before new.
// Refs are taken from the snapshots (a removed node keeps the ref it had).
func DiffSnapshots(old, new *Snapshot) *Diff {
	var oldRoot, newRoot *Node
	if old != nil {
		oldRoot = old.Root
	}
	if new != nil {
		newRoot = new.Root
	}
	om, oorder := index(oldRoot)
	nm, norder := index(newRoot)
	d := &Diff{}
	line := map[string]int{} // an added or removed key → the index of the line that counts it
	fold := func(op, k, parent string, n *Node) {
		if i, ok := line[parent]; ok {
			d.Changes[i].Below++
			line[k] = i
			return
		}
		line[k] = len(d.Changes)
		c := change(op, n)
		if c.Name == "" {
			if op == "+" {
				c.Text = clipDiff(strings.TrimSpace(nm[k].text))
			} else {
				c.Text = clipDiff(strings.TrimSpace(om[k].text))
			}
		}
		d.Changes = append(d.Changes, c)
	}
	for _, k := range norder {
		nk := nm[k]
		ok, was := om[k]
		if !was {
			d.Added++
			fold("+", k, nk.parent, nk.n)
			continue
		}
		var what []FieldChange
		if ok.n.Role != nk.n.Role {
			what = append(what, FieldChange{"role", ok.n.Role, nk.n.Role})
		}
		what = append(what, stateChanges(ok.states, nk.states)...)
		if ok.n.Name != nk.n.Name {
			from, to := clipAround(ok.n.Name, nk.n.Name)
			what = append(what, FieldChange{"name", from, to})
		}
		if ok.text != nk.text {
			from, to := clipAround(ok.text, nk.text)
			what = append(what, FieldChange{"text", from, to})
		}
		if v, changed := valueChange(ok.n.Value, nk.n.Value); changed {
			what = append(what, v)
		}
		if len(what) > 0 {
			d.Changed++
			c := change("~", nk.n)
			c.What = what
			d.Changes = append(d.Changes, c)
		}
	}
	clear(line) // a key is in one tree or the other, never both: a fresh start
	for _, k := range oorder {
		if _, still := nm[k]; still {
			continue
		}
		d.Removed++
		fold("-", k, om[k].parent, om[k].n)
	}
	return d
}

// statePairs are the states that replace each other: one goes as the
// other comes, and a diff says so in one change.
var statePairs = [...][2]string{{"unchecked", "checked"}, {"collapsed", "expanded"}}

// stateChanges is how a node's shown states changed: a pair that flipped
// (unchecked → checked), then the states that came (+focused), then those
// that went (-hidden).
func stateChanges(old, new []string) []FieldChange {
	went, came := setDiff(old, new), setDiff(new, old)
	var out []FieldChange
	for _, p := range statePairs {
		for _, dir := range [...][2]string{{p[0], p[1]}, {p[1], p[0]}} {
			if slices.Contains(went, dir[0]) && slices.Contains(came, dir[1]) {
				out = append(out, FieldChange{"states", dir[0], dir[1]})
				went = slices.DeleteFunc(went, func(s string) bool { return s == dir[0] })
				came = slices.DeleteFunc(came, func(s string) bool { return s == dir[1] })
			}
		}
	}
	if len(came) > 0 {
		out = append(out, FieldChange{"states", "", strings.Join(came, " ")})
	}
	if len(went) > 0 {
		out = append(out, FieldChange{"states", strings.Join(went, " "), ""})
	}
	return out
}

func change(op string, n *Node) Change {
	return Change{Op: op, Ref: n.Ref, Role: n.Role, Name: n.Name}
}

// setDiff is the members of a not in b, in a's order.
func setDiff(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// WriteText renders the diff one change a line, or "unchanged":
//
//	~ check box "Dark" @e9: unchecked → checked
//	~ entry "Name" @e3: text "" → "ada"; +focused
//	~ document web: text "…Saved 3 items" → "…Saved 4 items"
//	~ slider "Volume" @e12: =42 → =60
//	+ dialog "About" @e40 +12 below
//	+ list item @e41 ="Fresh 1" +2 below
//	- push button "Load more" @e31
func (d *Diff) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if d.Unchanged() {
		bw.WriteString("unchanged\n")
		return bw.Flush()
	}
	var b []byte
	for _, c := range d.Changes {
		b = append(b[:0], c.Op...)
		b = append(b, ' ')
		if c.Role == "" {
			b = append(b, "node"...)
		} else {
			b = append(b, c.Role...)
		}
		if c.Name != "" {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, clipDiff(c.Name))
		}
		if c.Ref != "" {
			b = append(b, ' ')
			b = append(b, c.Ref...)
		}
		if c.Text != "" {
			b = append(b, " ="...)
			b = strconv.AppendQuote(b, clipDiff(c.Text))
		}
		if c.Below > 0 {
			b = append(b, " +"...)
			b = strconv.AppendInt(b, int64(c.Below), 10)
			b = append(b, " below"...)
		}
		for i, f := range c.What {
			if i == 0 {
				b = append(b, ": "...)
			} else {
				b = append(b, "; "...)
			}
			switch {
			case f.Field == "states" && f.From != "" && f.To != "":
				b = append(b, f.From+" → "+f.To...)
			case f.Field == "states" && f.To != "":
				b = append(b, "+"+strings.ReplaceAll(f.To, " ", " +")...)
			case f.Field == "states":
				b = append(b, "-"+strings.ReplaceAll(f.From, " ", " -")...)
			case f.Field == "value":
				b = append(b, "="+orNone(f.From)+" → ="+orNone(f.To)...)
			default:
				// Clipped when the change was made (clipAround).
				b = append(b, f.Field...)
				b = append(b, ' ')
				b = strconv.AppendQuote(b, f.From)
				b = append(b, " → "...)
				b = strconv.AppendQuote(b, f.To)
			}
		}
		b = append(b, '\n')
		bw.Write(b)
	}
	return bw.Flush()
}

// Text is WriteText into a string.
func (d *Diff) Text() string {
	var b strings.Builder
	_ = d.WriteText(&b)
	return b.String()
}

// diffClip bounds a name or text in a diff line, in characters.
const diffClip = 80

func clipDiff(s string) string {
	r := []rune(s)
	if len(r) <= diffClip {
		return s
	}
	return string(r[:diffClip]) + "…"
}

// orNone is a value's word, or "none" for a node that had no value.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// diffContext is how many characters before the first difference a
// clipped name or text keeps, so the change reads in its place.
const diffContext = 24

// clipAround clips a changed name or text, as it was and as it is, to
// where they first differ: diffContext characters before it (an "…"
// saying some were left out), then up to diffClip characters.
func clipAround(from, to string) (string, string) {
	a, b := []rune(from), []rune(to)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	start := 0
	if p > diffContext {
		start = p - diffContext
	}
	cut := func(r []rune) string {
		lead := ""
		if start > 0 {
			lead = "…"
		}
		if start > len(r) {
			return lead
		}
		r = r[start:]
		if len(r) > diffClip {
			return lead + string(r[:diffClip]) + "…"
		}
		return lead + string(r)
	}
	return cut(a), cut(b)
}

// liveRoles are the roles of a region whose words are news of
// themselves (ARIA's live regions as AT-SPI names them): a change of their
// words is always something that appeared.
var liveRoles = map[string]bool{"notification": true, "alert": true, "status bar": true, "log": true, "marquee": true, "timer": true}

// appeared reports whether a line of a whole tree's diff says that words
// appeared: a node that came with a name or a text of its own (a success
// message, an alert, a row), a name or text that now says words it did not
// say (a page's text runs that gained a message, a cell that was
// rewritten; not one that only lost words), or a live region (a status
// line) whose words changed at all.
func appeared(c Change) bool {
	switch c.Op {
	case "+":
		return c.Name != "" || c.Text != ""
	case "~":
		for _, f := range c.What {
			if f.Field != "text" && f.Field != "name" {
				continue
			}
			to := strings.Trim(f.To, "…")
			if liveRoles[c.Role] || to != "" && !strings.Contains(f.From, to) {
				return true
			}
		}
	}
	return false
}

// DiffInteractive is snapshot -i --diff: the diff of the interactive views
// of old and new, and beside it what appeared anywhere in new even where
// nothing can be acted on (appeared: the message a submitted form shows,
// an alert, a status line's new words), each in its place in the tree. What
// went away or changed otherwise outside the interactive view stays out,
// as the interactive view leaves it out. The counts count the lines' nodes.
func DiffInteractive(old, new *Snapshot) *Diff {
	var oldView *Snapshot
	if old != nil {
		oldView = old.InteractiveView()
	}
	d := DiffSnapshots(oldView, new.InteractiveView())
	shown := map[string]bool{}
	for _, c := range d.Changes {
		shown[c.Ref] = c.Ref != ""
	}
	var extra []Change
	for _, c := range DiffSnapshots(old, new).Changes {
		if shown[c.Ref] || !appeared(c) {
			continue
		}
		extra = append(extra, c)
		if c.Op == "+" {
			d.Added += 1 + c.Below
		} else {
			d.Changed++
		}
	}
	if len(extra) == 0 {
		return d
	}
	// Each line in its place: the lines of new's nodes in its order, then
	// the removed ones.
	pos := map[string]int{}
	if new.Root != nil {
		new.Root.Walk(func(n *Node, _ int) bool {
			if n.Ref != "" {
				if _, dup := pos[n.Ref]; !dup {
					pos[n.Ref] = len(pos)
				}
			}
			return true
		})
	}
	out := make([]Change, 0, len(d.Changes)+len(extra))
	for _, c := range d.Changes {
		if p, ok := pos[c.Ref]; ok && c.Op != "-" {
			for len(extra) > 0 && pos[extra[0].Ref] < p {
				out, extra = append(out, extra[0]), extra[1:]
			}
		} else if c.Op == "-" {
			out, extra = append(out, extra...), nil
		}
		out = append(out, c)
	}
	d.Changes = append(out, extra...)
	return d
}
