package atspi

import (
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
// (all in flight together, within the walk's deadline).
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
							if s, _ := r.body.variant().(string); s != "" && n.n.Name == "" {
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
