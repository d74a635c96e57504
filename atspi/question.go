package atspi

import (
	"errors"
	"fmt"
	"time"

	"github.com/vibespace/vibespace/target"
)

// The questions asked of a node. Phase one (role, states, interfaces,
// name and description, child count) goes out as soon as the node is known
// — or is answered from Cache.GetItems; phase two (extents when showing,
// actions, character count; children when there are some) once phase one
// has answered; the text once its length is known.
type question int

const (
	qRole question = iota
	qState
	qInterfaces
	qProps
	qChildren
	qExtents
	qActions
	qCharCount
	qText
	numQuestions
)

var questionNames = [numQuestions]string{"GetRole", "GetState", "GetInterfaces", "GetAll", "GetChildren", "GetExtents", "GetActions", "CharacterCount", "GetText"}

// phaseOne is what an object not in the cache is asked first.
var phaseOne = [...]question{qRole, qState, qInterfaces, qProps}

// maxBatch is the most questions sent to a node at once.
const maxBatch = 4

// send asks node n the questions qs in one batch.
func (w *walker) send(n *wnode, qs ...question) {
	// The batch's deadline is the call timeout, cut to the walk's own: it
	// bounds the wait for the answers and the writes of the questions.
	deadline := time.Now().Add(w.b.opts.CallTimeout)
	if d, ok := w.ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	bt := &batch{deadline: deadline, left: len(qs), calls: make([]*pend, 0, len(qs))}
	w.batches = append(w.batches, bt)
	path := n.obj.Path
	for _, q := range qs {
		p := &pend{w: n, q: q, b: bt, rt: n.rt}
		bt.calls = append(bt.calls, p)
		w.inflight++
		w.unflushed++
		switch q {
		case qRole:
			p.serial = n.rt.send(bt.deadline, path, ifaceAccessible+".GetRole", w.ch, p)
		case qState:
			p.serial = n.rt.send(bt.deadline, path, ifaceAccessible+".GetState", w.ch, p)
		case qInterfaces:
			p.serial = n.rt.send(bt.deadline, path, ifaceAccessible+".GetInterfaces", w.ch, p)
		case qProps:
			p.serial = n.rt.send(bt.deadline, path, ifaceProperties+".GetAll", w.ch, p, ifaceAccessible)
		case qChildren:
			p.serial = n.rt.send(bt.deadline, path, ifaceAccessible+".GetChildren", w.ch, p)
		case qExtents:
			p.serial = n.rt.send(bt.deadline, path, ifaceComponent+".GetExtents", w.ch, p, uint32(0))
		case qActions:
			p.serial = n.rt.send(bt.deadline, path, ifaceAction+".GetActions", w.ch, p)
		case qCharCount:
			p.serial = n.rt.send(bt.deadline, path, ifaceProperties+".Get", w.ch, p, ifaceText, "CharacterCount")
		case qText:
			p.serial = n.rt.send(bt.deadline, path, ifaceText+".GetText", w.ch, p, int32(0), int32(min(n.n.TextLen, w.o.TextMax)))
		}
	}
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
	case qProps:
		b.array(8, func() {
			b.align(8)
			k := b.str()
			v := b.variant()
			switch k {
			case "Name":
				n.n.Name, _ = v.(string)
			case "Description":
				n.n.Description, _ = v.(string)
			case "ChildCount":
				n.childCount, _ = v.(int32)
			}
		})
	case qChildren:
		var refs []Object
		b.array(8, func() { refs = append(refs, b.objRef()) })
		if b.err == nil {
			w.gotChildren(n, refs)
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
			acts = append(acts, b.str())
			b.str()
			b.str()
		})
		n.n.Actions = acts
	case qCharCount:
		cnt, _ := b.variant().(int32)
		n.n.TextLen = int(cnt)
		if cnt > 0 && b.err == nil {
			w.later = append(w.later, job{n: n, qs: []question{qText}})
		}
	case qText:
		n.n.Text = b.str()
	}
	if b.err != nil && p.q <= qChildren {
		w.unreadable(n, fmt.Errorf("%s: %w", questionNames[p.q], b.err))
		return
	}
	if p.q < qChildren {
		if n.left--; n.left == 0 {
			w.phaseTwo(n)
		}
	}
}

// phaseTwo queues what a node is asked once its states, interfaces and
// child count are known.
func (w *walker) phaseTwo(n *wnode) {
	n.n.Interfaces = make([]string, len(n.ifaces))
	var qs []question
	if n.childCount > 0 && w.deeper(n) {
		qs = append(qs, qChildren)
	}
	for i, f := range n.ifaces {
		n.n.Interfaces[i] = shortIface(f)
		switch f {
		case ifaceComponent:
			// Where a node that is not drawn would be is no use to anyone
			// (GTK answers INT32_MIN): only showing nodes are asked.
			if n.n.Has("showing") {
				qs = append(qs, qExtents)
			}
		case ifaceAction:
			qs = append(qs, qActions)
		case ifaceText:
			if !w.o.NoText {
				qs = append(qs, qCharCount)
			}
		}
	}
	if len(qs) > 0 {
		w.later = append(w.later, job{n: n, qs: qs})
	}
}
