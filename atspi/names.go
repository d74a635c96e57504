package atspi

import (
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// relationLabelledBy is AT-SPI's ATSPI_RELATION_LABELLED_BY as the bridge
// sends it on the wire (AtspiRelationType: NULL 0, LABEL_FOR 1,
// LABELLED_BY 2; ATK's own enum numbers it differently, and the bridge
// translates).
const relationLabelledBy = 2

// mattersUnnamed reports whether an unnamed node with these interfaces is
// worth asking what labels it: one an agent acts on or reads a value
// from (a click, a text, a range). A walk asks only those, and only when
// they are drawn, so a tree of unnamed containers costs no extra call.
func mattersUnnamed(ifaces []string) bool {
	for _, f := range ifaces {
		switch f {
		case ifaceAction, ifaceEditableText, ifaceValue, ifaceSelection:
			return true
		}
	}
	return false
}

// gotRelations reads GetRelationSet, a(ua(so)), keeping the targets of
// LABELLED_BY.
func (w *walker) gotRelations(n *wnode, b *body) {
	b.array(8, func() {
		b.align(8)
		typ := b.u32()
		b.array(8, func() {
			o := b.objRef()
			if typ == relationLabelledBy && !o.IsNull() {
				n.labelledBy = append(n.labelledBy, o)
			}
		})
	})
	if b.err != nil {
		n.labelledBy = nil
	}
	if len(n.labelledBy) > 0 {
		w.labelled = append(w.labelled, n)
	}
}

// sentence reports whether an action's name is a sentence that is also
// its description: GTK 3's boolean tree-view cells give "Expands or
// contracts the row in the tree view containing this cell" as the name
// (localized and GetName alike) of three of their four actions, on every
// row — 150 characters a line, repeated.
func sentence(name, desc string) bool {
	return name == desc && strings.Contains(name, " ")
}

// actionSeen notes action i of n: a short name for its description, or a
// sentence to be named (shortNames) by the short name another node gives
// the same description (the text cells beside it: "Expand or contract").
func (w *walker) actionSeen(n *wnode, i int, name, desc string) {
	switch {
	case sentence(name, desc):
		w.sentences = append(w.sentences, actionAt{n, i})
	case desc != "" && name != "" && name != desc:
		if w.shortName == nil {
			w.shortName = make(map[string]string)
		}
		w.shortName[desc] = name
	}
}

// actionAt is one action of one node.
type actionAt struct {
	n *wnode
	i int
}

// shortNames names each sentence action by another node's short name for
// the same description; one no node names stays as it is.
func (w *walker) shortNames() {
	for _, a := range w.sentences {
		acts := a.n.n.Actions
		if a.i < len(acts) {
			if s, ok := w.shortName[acts[a.i]]; ok {
				acts[a.i] = s
			}
		}
	}
}

// maxExtras bounds the calls a walk makes after its tree is read (the
// names of labels outside it, the toolkit's names of sentence actions).
const maxExtras = 512

// extra is one call made once the tree is read.
type extra struct {
	o      Object
	method string
	args   []any
	set    func(r reply)
}

// names gives each unnamed node that a label labels (LABELLED_BY) its
// label's name: the label's node when the walk read it, else the label
// object's Name, asked with the other calls made after the tree is read
// (all in flight together, within the walk's deadline). An unnamed node
// that matters and that no label names is named by its description (GTK
// and Qt describe a widget by its tooltip), NameFrom saying so: it costs
// no call, the description came with the name.
func (w *walker) names(rn *wnode) {
	if len(w.labelled) > 0 {
		byKey := make(map[string]*target.Node)
		rn.n.Walk(func(x *target.Node, _ int) bool {
			byKey[x.Key] = x
			return true
		})
		for _, n := range w.labelled {
			var parts []string
			for _, o := range n.labelledBy {
				l, ok := byKey[o.Key()]
				switch {
				case ok && labelName(l) != "":
					parts = append(parts, labelName(l))
				case !ok && len(w.extras) < maxExtras:
					w.extras = append(w.extras, extra{
						o: o, method: ifaceProperties + ".Get", args: []any{ifaceAccessible, "Name"},
						set: func(r reply) {
							if r.err != nil {
								return
							}
							if s, _ := r.body.variant().(string); s != "" && n.n.Name == "" && !typeName(w.tkOf(n), s) {
								n.n.Name = stripMnemonic(s)
							}
						},
					})
				}
			}
			if n.n.Name == "" && len(parts) > 0 {
				n.n.Name = strings.Join(parts, " ")
			}
		}
	}
	w.fetch(w.extras)
	w.shortNames()
	for _, n := range w.unnamed {
		// A range's description is no tooltip: GTK 3 describes a scale
		// that draws its value by that value ("50.0").
		if slices.Contains(n.ifaces, ifaceValue) {
			continue
		}
		if n.n.Name == "" && n.n.Description != "" && !typeName(w.tkOf(n), n.n.Description) {
			n.n.Name, n.n.NameFrom = n.n.Description, target.NameFromTooltip
		}
	}
}

// typeName reports whether a name is the class of the object, which a
// toolkit says where the object has no name: GTK 4.8 names every object
// without a label by its GObject type ("GtkButton", "GtkMenuButton",
// "GtkImage", "GtkSourceView", "AdwHeaderBar"; a PyGObject class
// "__main__+Keypad"). Qt's class names ("QPushButton") are taken for what
// they are from Qt only. A name with a space, or that no toolkit's type
// namespace starts, is a name.
func typeName(tk toolkit, s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return false
	}
	if strings.Contains(s, "+") && strings.HasPrefix(s, "__main__+") {
		return true
	}
	prefixes := gtypePrefixes
	if tk.qt() {
		prefixes = []string{"Q"}
	}
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(s, p)
		if ok && len(rest) > 1 && rest[0] >= 'A' && rest[0] <= 'Z' && identifier(rest) && strings.ContainsAny(rest[1:], "abcdefghijklmnopqrstuvwxyz") {
			return true
		}
	}
	return false
}

// gtypePrefixes are the GObject type namespaces of GTK and the libraries
// its applications build their windows with.
var gtypePrefixes = []string{"Gtk", "Adw", "Gdk", "Gsk", "Vte", "WebKit", "Panel", "Hdy"}

// identifier reports whether s is letters and digits only (a type name).
func identifier(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// onceName is a doubled name a walk undid (finish): the name as the
// toolkit says it, and the name it is.
type onceName struct{ said, is string }

// maxOnce bounds the doubled names a Bus remembers.
const maxOnce = 4096

// rememberOnce notes that the object key's name said is is, as a walk saw
// it undone by the label child that repeats it; a read of the object
// alone (Node: no children to see) names it so while it says the same.
func (b *Bus) rememberOnce(key, said, is string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.once == nil || len(b.once) >= maxOnce {
		b.once = make(map[string]onceName)
	}
	b.once[key] = onceName{said, is}
}

// onceNamed is the name the object key goes by when a walk undid its
// doubled name said, else said.
func (b *Bus) onceNamed(key, said string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.once[key]; ok && o.said == said {
		return o.is
	}
	return said
}

// labelName is what a label node says: its name, else its text, without
// GTK's mnemonic marks.
func labelName(l *target.Node) string {
	s := l.Name
	if s == "" {
		s = l.Text
	}
	return stripMnemonic(strings.TrimSpace(s))
}

// fetch makes calls all at once and files their answers, bounded by the
// call timeout and the walk's deadline; an application that stalled in
// the walk is not asked.
func (w *walker) fetch(calls []extra) {
	if len(calls) == 0 || w.ctx.Err() != nil {
		return
	}
	deadline := time.Now().Add(w.b.opts.CallTimeout)
	if d, ok := w.ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	ch := make(chan reply, len(calls))
	type sent struct {
		rt     route
		serial uint32
	}
	var out []sent
	for _, r := range w.routes {
		r.cork()
	}
	for i, c := range calls {
		rt := w.routeFor(c.o.Name)
		if w.stalled[rt.c] != nil {
			continue
		}
		out = append(out, sent{rt, rt.send(deadline, dbus.ObjectPath(c.o.Path), c.method, ch, i, c.args...)})
	}
	for _, r := range w.routes {
		r.uncork(true)
	}
	if len(out) > 0 {
		w.deepest++ // they wait for the whole tree
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for got := 0; got < len(out); got++ {
		select {
		case r := <-ch:
			if i, ok := r.tag.(int); ok {
				calls[i].set(r)
			}
		case <-timer.C:
			got = len(out)
		case <-w.ctx.Done():
			got = len(out)
		}
	}
	for _, s := range out {
		s.rt.c.forget(s.serial)
	}
}
