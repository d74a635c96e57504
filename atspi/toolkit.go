package atspi

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/vibespace/vibespace/target"
)

// toolkit is what an application's root says of the toolkit it is built
// with: org.a11y.atspi.Application's ToolkitName and Version ("GTK"
// "3.24.38", "GTK" "4.8.3", "Qt" "5.15.8"), each read with a two-argument
// Properties.Get. The zero value is an application that did not say.
type toolkit struct {
	Name, Version string
}

// gtk4 reports whether the toolkit is GTK 4 or later, whose AT-SPI
// backend differs from every other toolkit's in three ways a walk corrects
// (see walker.finish): it sets "showing" only on windows; it answers
// extents relative to the window even when asked for screen coordinates;
// and it names a widget whose label is also its labelled-by child twice
// over (the label, then the child's text: "_Press me Press me").
func (t toolkit) gtk4() bool {
	if !strings.EqualFold(t.Name, "GTK") {
		return false
	}
	major, _, _ := strings.Cut(t.Version, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 4
}

func (t toolkit) qt() bool { return strings.EqualFold(t.Name, "Qt") }

// inertEditableText reports whether the toolkit's EditableText answers
// without editing: Gecko (Firefox ESR 153 as a window) answers true to
// InsertText and SetTextContents on a page's field, with or without the
// focus, and its text stays as it was (TestRealApps' Firefox row). A walk
// leaves the interface out of such a node's interfaces, so nothing relies
// on it: type @ref then focuses the field and types keys.
func (t toolkit) inertEditableText() bool { return strings.EqualFold(t.Name, "Gecko") }

// getAll reports whether the toolkit is proven safe with a one-argument
// Properties.GetAll: GTK (GTK 3's at-spi2-atk, GTK 4's own backend, whose
// GDBus answers GetAll property by property). Qt 5's bridge crashes the
// application on it (QTBUG-107897); a toolkit not named is not asked.
func (t toolkit) getAll() bool { return strings.EqualFold(t.Name, "GTK") }

// countsChildren reports whether the toolkit's child counts (Cache.GetItems'
// and the ChildCount property) are the number of children GetChildren
// answers, so that a node that says 0 need not be asked for them. GTK's
// are: at-spi2-atk's count is the same atk_object_get_n_accessible_children
// GetChildren iterates (1 for an occupied socket in both), or -1 where it
// declines to count (an object that manages its descendants, a GTK menu);
// GTK 4's counts the children GetChildren presents. A count of -1, or any
// other toolkit's, is not trusted: the node is asked.
func (t toolkit) countsChildren() bool { return strings.EqualFold(t.Name, "GTK") }

// noCache reports whether the toolkit's Cache.GetItems is known to answer
// nothing (Qt's is a stub: an empty list), so a walk need not wait for it.
func (t toolkit) noCache() bool { return t.qt() }

// textLength is text's length in the unit the toolkit's InsertText cuts
// the text to: bytes for GTK (the bridge hands it to insert_text, which
// counts bytes), UTF-16 code units for Qt (its bridge resizes the string
// to it, padding a longer one with whatever is in memory).
func (t toolkit) textLength(text string) int {
	if t.qt() {
		return len(utf16.Encode([]rune(text)))
	}
	return len(text)
}

// knownToolkit is the toolkit the application with bus name name said it
// is, if a walk asked already. A unique bus name is never reused, so the
// answer stays true for as long as the name exists.
func (b *Bus) knownToolkit(name string) (toolkit, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tk, ok := b.toolkits[name]
	return tk, ok
}

func (b *Bus) rememberToolkit(name string, tk toolkit) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.toolkits[name] = tk
}

// tkOf is the toolkit of n's application, as far as the walk knows it (the
// root's application's; nodes of another one, rare, are taken as given).
func (w *walker) tkOf(n *wnode) toolkit {
	if n.obj.Name == w.tkApp {
		return w.tk
	}
	return toolkit{}
}

// finish corrects, once the tree is read, what the root's toolkit reports
// differently from AT-SPI's meaning. For GTK 4:
//
//   - A node is showing when the toolkit says so (windows), or when it is
//     visible, its parent is showing, and it has an area on screen (a
//     node without a Component: when it has no children or one of them
//     is showing). GTK 4 keeps "visible" on the widgets of a stack page
//     that is not shown and of a collapsed revealer; their extents have no
//     area. The walk's root is judged by its own states alone.
//   - Extents are relative to the window: moved by WalkOptions.Window's
//     origin, or left out when the walk was not told where the window is.
//     Nodes that are not showing keep no extents (as GTK 3's, never asked).
//   - A name that is the node's label followed by its label child's text
//     ("_Press me Press me", "7 7") is the child's text, once; the Bus
//     remembers it, so that the object read alone (Node, no children to
//     see) is named so while its toolkit says the same.
func (w *walker) finish(rn *wnode) {
	if !w.tk.gtk4() {
		return
	}
	prefix := w.tkApp + "/"
	var judge func(n *target.Node, parent, root bool) bool
	judge = func(n *target.Node, parent, root bool) bool {
		if !strings.HasPrefix(n.Key, prefix) {
			return n.Has("showing")
		}
		reported := n.Has("showing")
		show := reported || (!root && parent && n.Has("visible") && hasArea(n))
		any := false
		for _, c := range n.Children {
			if judge(c, show, false) {
				any = true
			}
		}
		if !reported && show && !n.Implements("Component") && len(n.Children) > 0 && !any {
			show = false
		}
		if show && !reported {
			n.States = withState(n.States, "showing")
		}
		switch {
		case !show || n.Bounds == nil:
			n.Bounds = nil
		case n.Bounds.Offscreen():
		case w.o.Window != nil:
			n.Bounds.X += w.o.Window.X
			n.Bounds.Y += w.o.Window.Y
		case !w.o.relative:
			n.Bounds = nil // where the window is was not said: unknown
		}
		if once := onceNamed(n); once != n.Name {
			w.b.rememberOnce(n.Key, n.Name, once)
			n.Name = once
		} else if w.o.Depth < 0 {
			n.Name = w.b.onceNamed(n.Key, n.Name) // read alone: as a walk saw it
		}
		return show
	}
	judge(rn.n, false, true)
}

// hasArea reports whether a node has somewhere to be drawn: a Component
// with extents that are not empty, or no Component at all.
func hasArea(n *target.Node) bool {
	if !n.Implements("Component") {
		return true
	}
	return n.Bounds != nil && n.Bounds.W > 0 && n.Bounds.H > 0
}

// withState adds state s to a state list, in AT-SPI's bit order.
func withState(states []string, s string) []string {
	if slices.Contains(states, s) {
		return states
	}
	bit := slices.Index(stateNames[:], s)
	i := slices.IndexFunc(states, func(x string) bool {
		j := slices.Index(stateNames[:], x)
		return j < 0 || j > bit
	})
	if i < 0 {
		i = len(states)
	}
	return slices.Insert(slices.Clone(states), i, s)
}

// onceNamed undoes GTK 4's doubled name: a name that is a label, a space
// and the text of one of the node's children, where the label is that
// text (with or without its mnemonic underscore), is that text.
func onceNamed(n *target.Node) string {
	for _, c := range n.Children {
		if c.Name == "" || len(n.Name) <= len(c.Name)+1 || !strings.HasSuffix(n.Name, " "+c.Name) {
			continue
		}
		label := n.Name[:len(n.Name)-len(c.Name)-1]
		if label == c.Name || stripMnemonic(label) == c.Name {
			return c.Name
		}
	}
	return n.Name
}

// stripMnemonic removes GTK's mnemonic marks: "_" before a character
// marks it, "__" is a literal underscore.
func stripMnemonic(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
