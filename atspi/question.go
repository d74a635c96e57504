package atspi

import (
	"errors"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// The questions asked of a node. Phase one (role, states, interfaces,
// name, description; children when the walk goes deeper) goes out as soon
// as the node is known — or is answered from Cache.GetItems; phase two
// (extents when on screen, actions, character count) once its states and
// interfaces have answered; the text once its length is known.
//
// Properties are read with one Properties.GetAll per interface from a
// toolkit proven safe with it (toolkit.getAll: GTK), which answers a
// node's name, description and child count in one call, and a range's
// three values in one; from any other toolkit one by one with the
// two-argument Properties.Get: Qt 5's bridge reads a second argument
// GetAll does not have and crashes the application (QTBUG-107897). They go
// out with the node's other questions, so the walk takes no more round
// trips for it.
type question int

const (
	qRole question = iota
	qState
	qInterfaces
	qName
	qDescription
	qAll // Properties.GetAll of Accessible: name, description, child count
	qChildren
	qExtents
	qActions
	qCharCount
	qText
	qRelations // GetRelationSet, of an unnamed node that matters (names.go)
	qValue     // Value.CurrentValue
	qValueMin  // Value.MinimumValue
	qValueMax  // Value.MaximumValue
	qValues    // Properties.GetAll of Value: the three of them
	// The walk's own questions, of no node: Cache.GetItems, and the
	// toolkit the application's root says it is built with.
	qItems
	qToolkitName
	qToolkitVersion
	numQuestions
)

var questionNames = [numQuestions]string{"GetRole", "GetState", "GetInterfaces", "Name", "Description", "GetAll", "GetChildren", "GetExtents", "GetActions", "CharacterCount", "GetText", "GetRelationSet", "CurrentValue", "MinimumValue", "MaximumValue", "GetAll Value", "GetItems", "ToolkitName", "Version"}

// phaseOne is what an object not in the cache is asked first (and
// GetChildren when the walk goes deeper); phaseTwo waits for all of it.
// phaseOneAll is the same of a toolkit that answers GetAll: the child
// count comes with the name, and GetChildren waits for phase two, asked
// only of a node that has children — but the walk's root's goes out with
// its phase one (a window has children; asking at once saves the walk a
// round trip).
var (
	phaseOne    = [...]question{qRole, qState, qInterfaces, qName, qDescription}
	phaseOneAll = [...]question{qRole, qState, qInterfaces, qAll}
)

// maxBatch is the most questions sent to a node at once in phase one (its
// early phase two included: early.go);
// maxJob in any batch (phase two: children, extents, actions, character
// count, relations and the three of Value).
const (
	maxBatch = len(phaseOne) + 1 + maxEarly
	maxJob   = 8
)

// send asks node n the questions qs in one batch, one round trip deeper
// than cause.
func (w *walker) send(n *wnode, cause int, qs ...question) {
	bt := w.newBatch(len(qs))
	w.deepest = max(w.deepest, cause+1)
	for _, q := range qs {
		p := &pend{w: n, q: q, b: bt, rt: n.rt, early: !n.decided && n.early&bit(q) != 0, depth: cause + 1}
		bt.calls = append(bt.calls, p)
		w.inflight++
		w.unflushed++
		if q == qRole || q == qChildren {
			w.asked.add(n.obj, bit(q))
		}
		p.serial = w.ask(p, n.obj.Path, int32(min(n.n.TextLen, w.o.TextMax)))
	}
}

// calls are the method and arguments of each question that asks an
// object (GetText's end is the node's own: ask).
var calls = [numQuestions]struct {
	method string
	args   []any
}{
	qRole:        {ifaceAccessible + ".GetRole", nil},
	qState:       {ifaceAccessible + ".GetState", nil},
	qInterfaces:  {ifaceAccessible + ".GetInterfaces", nil},
	qName:        {ifaceProperties + ".Get", []any{ifaceAccessible, "Name"}},
	qDescription: {ifaceProperties + ".Get", []any{ifaceAccessible, "Description"}},
	qAll:         {ifaceProperties + ".GetAll", []any{ifaceAccessible}},
	qChildren:    {ifaceAccessible + ".GetChildren", nil},
	qExtents:     {ifaceComponent + ".GetExtents", []any{uint32(0)}},
	qActions:     {ifaceAction + ".GetActions", nil},
	qCharCount:   {ifaceProperties + ".Get", []any{ifaceText, "CharacterCount"}},
	qText:        {ifaceText + ".GetText", nil},
	qRelations:   {ifaceAccessible + ".GetRelationSet", nil},
	qValue:       {ifaceProperties + ".Get", []any{ifaceValue, "CurrentValue"}},
	qValueMin:    {ifaceProperties + ".Get", []any{ifaceValue, "MinimumValue"}},
	qValueMax:    {ifaceProperties + ".Get", []any{ifaceValue, "MaximumValue"}},
	qValues:      {ifaceProperties + ".GetAll", []any{ifaceValue}},
}

// ask sends the call of p's question to the object at path; textEnd is
// where GetText stops. It returns the call's serial.
func (w *walker) ask(p *pend, path dbus.ObjectPath, textEnd int32) uint32 {
	c := calls[p.q]
	args := c.args
	if p.q == qText {
		args = []any{int32(0), textEnd}
	}
	return p.rt.sendFn(p.b.deadline, path, c.method, w.sink, p, args...)
}

// newBatch starts a batch of calls. Its deadline is the call timeout, cut
// to the walk's own: it bounds the wait for the answers and the writes of
// the questions.
func (w *walker) newBatch(size int) *batch {
	deadline := time.Now().Add(w.b.opts.CallTimeout)
	if d, ok := w.ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	bt := &batch{deadline: deadline, left: size, calls: make([]*pend, 0, size)}
	w.batches = append(w.batches, bt)
	return bt
}

// sendOwn sends one of the walk's own questions (of no node) to the
// application name, on a batch of its own.
func (w *walker) sendOwn(name string, path dbus.ObjectPath, q question, method string, args ...any) {
	bt := w.newBatch(1)
	rt := w.routeFor(name)
	p := &pend{q: q, b: bt, rt: rt, depth: 1}
	w.deepest = max(w.deepest, 1)
	bt.calls = append(bt.calls, p)
	w.inflight++
	w.unflushed++
	p.serial = rt.sendFn(bt.deadline, path, method, w.sink, p, args...)
}

// answer files one finished call into its node and queues what it
// unlocks.
func (w *walker) answer(p *pend, r reply) {
	n := p.w
	if n.n.Unreadable != "" {
		return
	}
	if r.err != nil {
		switch {
		case isTimeout(r.err) || isGone(r.err):
			// An application that missed one deadline is not asked
			// again in this walk: what is left of it is unreadable at
			// once, so a frozen application costs one call timeout.
			// (One object that vanished says nothing of the rest.)
			if w.stalled[p.rt.c] == nil && (isTimeout(r.err) || errors.Is(r.err, errWireClosed)) {
				w.stalled[p.rt.c] = r.err
			}
			w.unreadable(n, r.err)
		case p.q <= qChildren:
			// A basic question the object could not answer: say so, keep going.
			w.unreadable(n, fmt.Errorf("%s: %w", questionNames[p.q], r.err))
		}
		return
	}
	b := &r.body
	switch p.q {
	case qRole:
		n.n.Role = roleName(b.u32())
	case qState:
		var words []uint32
		b.array(4, func() { words = append(words, b.u32()) })
		n.n.States = stateList(words)
	case qInterfaces:
		b.array(4, func() { n.ifaces = append(n.ifaces, b.str()) })
	case qName:
		n.n.Name, _ = b.variant().(string)
	case qDescription:
		n.n.Description, _ = b.variant().(string)
	case qAll:
		// A child count the answer lacks is unknown: the children are asked.
		kids := int32(-1)
		b.array(8, func() {
			b.align(8)
			switch k, v := b.str(), b.variant(); k {
			case "Name":
				n.n.Name, _ = v.(string)
			case "Description":
				n.n.Description, _ = v.(string)
			case "ChildCount":
				if c, ok := v.(int32); ok {
					kids = c
				}
			}
		})
		n.askKids = kids != 0
	case qChildren:
		var refs []Object
		b.array(8, func() { refs = append(refs, b.objRef()) })
		if b.err == nil {
			w.gotChildren(n, refs, p.depth)
		}
	case qExtents:
		b.align(8)
		x, y, wd, h := b.i32(), b.i32(), b.i32(), b.i32()
		if b.err == nil {
			n.n.Bounds = &target.Rect{X: int(x), Y: int(y), W: int(wd), H: int(h)}
		}
	case qActions:
		// GetActions gives each action's localized name (GetName the
		// toolkit's own, one call per action); a snapshot shows the
		// former, DoAction accepts either.
		acts := []string{}
		b.array(8, func() {
			b.align(8)
			name, desc := b.str(), b.str()
			b.str()
			w.actionSeen(n, len(acts), name, desc)
			acts = append(acts, name)
		})
		n.n.Actions = acts
	case qRelations:
		w.gotRelations(n, b)
	case qValue, qValueMin, qValueMax:
		f, ok := b.variant().(float64)
		if ok && b.err == nil {
			n.setValue(p.q, f)
		}
	case qValues:
		var got [3]float64
		var have [3]bool
		b.array(8, func() {
			b.align(8)
			k, v := b.str(), b.variant()
			f, ok := v.(float64)
			for i, name := range [3]string{"CurrentValue", "MinimumValue", "MaximumValue"} {
				if ok && k == name {
					got[i], have[i] = f, true
				}
			}
		})
		if b.err == nil {
			for i, q := range [3]question{qValue, qValueMin, qValueMax} {
				if have[i] {
					n.setValue(q, got[i])
				}
			}
		}
	case qCharCount:
		cnt, _ := b.variant().(int32)
		n.n.TextLen = int(cnt)
		if cnt > 0 && b.err == nil {
			w.later = append(w.later, job{n: n, qs: []question{qText}, cause: p.depth})
		}
	case qText:
		n.n.Text = b.str()
	}
	if b.err != nil && p.q <= qChildren && p.q != qName && p.q != qDescription && p.q != qAll {
		w.unreadable(n, fmt.Errorf("%s: %w", questionNames[p.q], b.err))
		return
	}
	w.phaseOneDone(n, p.q, p.depth)
}

// setValue files one of a range's values (q: qValue, qValueMin or
// qValueMax).
func (n *wnode) setValue(q question, f float64) {
	if n.n.Value == nil {
		n.n.Value = &target.Value{}
	}
	switch q {
	case qValue:
		n.n.Value.Current = f
	case qValueMin:
		n.n.Value.Min = f
	default:
		n.n.Value.Max = f
	}
}

// phaseOneDone counts one of n's phase-one answers in; the last one
// readies n for phase two.
func (w *walker) phaseOneDone(n *wnode, q question, depth int) {
	if q < qChildren {
		n.cause = max(n.cause, depth)
		if n.left--; n.left == 0 {
			w.ready(n)
		}
	}
}

// ready sends n on to phase two, or holds it until the application has
// said which toolkit it is (phase two asks by it).
func (w *walker) ready(n *wnode) {
	if w.tkLeft > 0 {
		w.tkHeld = append(w.tkHeld, n)
		return
	}
	w.phaseTwo(n)
}

// own files the answer of one of the walk's own questions.
func (w *walker) own(p *pend, r reply) {
	switch p.q {
	case qItems:
		w.gate = max(w.gate, p.depth)
		w.itemsWait = false
		if r.err == nil {
			w.items = cacheItems(&r.body)
		}
	case qToolkitName, qToolkitVersion:
		var v string
		if r.err == nil {
			v, _ = r.body.variant().(string)
		} else if isTimeout(r.err) || errors.Is(r.err, errWireClosed) {
			w.tkFailed = true // not an answer: ask again next walk
		}
		if p.q == qToolkitName {
			w.tk.Name = v
		} else {
			w.tk.Version = v
		}
		if w.tkLeft--; w.tkLeft == 0 {
			w.gate = max(w.gate, p.depth)
			if !w.tkFailed {
				w.b.rememberToolkit(w.tkApp, w.tk)
			}
			held := w.tkHeld
			w.tkHeld = nil
			for _, n := range held {
				if n.n.Unreadable == "" {
					n.cause = max(n.cause, w.gate)
					w.phaseTwo(n)
				}
			}
		}
	}
}

// phaseTwo queues what a node is asked once its states, interfaces and
// child count are known.
func (w *walker) phaseTwo(n *wnode) {
	n.n.Interfaces = make([]string, 0, len(n.ifaces))
	if typeName(w.tkOf(n), n.n.Name) {
		n.n.Name = "" // a class name is no name: the node is unnamed
	}
	var qs []question
	if n.askKids && !n.kidsSent && w.deeper(n) && !w.claimKids(n) {
		qs = append(qs, qChildren)
	}
	gtk4 := w.tkOf(n).gtk4()
	drawn := n.n.Has("showing") || (gtk4 && n.depth > 0 && n.n.Has("visible"))
	if n.n.Name == "" && mattersUnnamed(n.ifaces) {
		w.unnamed = append(w.unnamed, n)
		if drawn {
			qs = append(qs, qRelations)
		}
	}
	inert := w.tkOf(n).inertEditableText()
	for _, f := range n.ifaces {
		if f == ifaceEditableText && inert {
			continue
		}
		n.n.Interfaces = append(n.n.Interfaces, shortIface(f))
		switch f {
		case ifaceComponent:
			// Where a node that is not drawn would be is no use to anyone
			// (GTK answers INT32_MIN): only showing nodes are asked. GTK 4
			// sets showing on windows only: its visible nodes are asked,
			// and whether they show is judged once the walk is done.
			// (The walk's root is judged by its own states: not asked.)
			if n.n.Has("showing") || (gtk4 && n.depth > 0 && n.n.Has("visible")) {
				qs = append(qs, qExtents)
			}
		case ifaceAction:
			qs = append(qs, qActions)
		case ifaceValue:
			switch {
			case !drawn:
			case w.tkOf(n).getAll():
				qs = append(qs, qValues)
			default:
				qs = append(qs, qValue, qValueMin, qValueMax)
			}
		case ifaceText:
			if !w.o.NoText {
				qs = append(qs, qCharCount)
			}
		}
	}
	if qs = w.decide(n, qs); len(qs) > 0 {
		w.later = append(w.later, job{n: n, qs: qs, cause: n.cause})
	}
}
