package atspi

import "fmt"

// A node that is not in Cache.GetItems is asked in two phases: phase one
// (role, states, interfaces, name) and, once that has answered, phase two
// (extents, actions, character count, relations, values), which phase
// one's answers decide. That is two round trips a level, and the small
// trees of toolkits without a cache (Qt 5: every node) are bound by the
// round trips, not by the calls.
//
// So a walk remembers, for the next walk of the same root, which phase-two
// questions each such node was asked, and the next walk asks them early:
// with the node's phase one, in the same write (and, of every node, the
// cache's too, in the walk's first write: ahead.go). Their answers are held
// until phase one has answered; then phase two is decided from this walk's
// own answers, exactly as without the memory, and an early answer is filed
// only if this walk asks that question. An early answer nothing asks for
// is dropped; a question phase two asks that went out early is not asked
// again. A snapshot therefore says what it says without the memory; a tree
// that changed between the walks costs the calls it asked for nothing
// (a node that is hidden now, an object path the toolkit gave to another
// object), and a settled one costs the same calls as before, in fewer
// round trips.

// qmask is a set of questions.
type qmask uint32

func bit(q question) qmask { return 1 << q }

// earlyQuestions are the phase-two questions that may go out early: not
// GetChildren (asked in phase one where it may be) nor GetText (its length
// comes from the character count: asked past a text's end, a toolkit may
// read past it).
const earlyQuestions = qmask(1<<qExtents | 1<<qActions | 1<<qCharCount | 1<<qRelations | 1<<qValue | 1<<qValueMin | 1<<qValueMax | 1<<qValues)

// maxEarly is the most questions a node is asked early (extents, actions,
// character count, relations and a range's three values).
const maxEarly = 7

// maxMemos is how many walked roots a Bus remembers the questions of; past
// it, it starts again.
const maxMemos = 64

// walkMemo is what one walk of a root asked its nodes, by object, in the
// order it first asked them: whether phase one (bit(qRole)), GetChildren,
// and the phase-two questions of a node asked phase one.
type walkMemo struct {
	m     map[Object]qmask
	order []Object
}

// of is what the walk asked o (nothing, of a zero memo).
func (m *walkMemo) of(o Object) qmask { return m.m[o] }

// add notes that the walk asked o the questions q.
func (m *walkMemo) add(o Object, q qmask) {
	if m.m == nil {
		m.m = make(map[Object]qmask)
	}
	old, ok := m.m[o]
	if !ok {
		m.order = append(m.order, o)
	}
	m.m[o] = old | q
}

// heldAnswer is an early answer waiting for its node's phase one.
type heldAnswer struct {
	p *pend
	r reply
}

// memo is what the last walk of root asked, or nil.
func (b *Bus) memo(root Object, o WalkOptions) walkMemo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.memos[memoKey(root, o)]
}

// rememberWalk keeps what a walk of root asked, for the next walk of it.
func (b *Bus) rememberWalk(root Object, o WalkOptions, m walkMemo) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.memos == nil || len(b.memos) >= maxMemos {
		b.memos = make(map[string]walkMemo)
	}
	b.memos[memoKey(root, o)] = m
}

// memoKey is where a walk of root with options o keeps its memory: walks
// that ask differently (a shallow one, one without the cache, which asks
// every node phase one) keep theirs apart, so that one does not ask ahead
// by what another asked.
func memoKey(root Object, o WalkOptions) string {
	return fmt.Sprintf("%s|%d|%t|%t", root.Key(), o.Depth, o.NoCache, o.NoText)
}

// early appends to qs, n's phase one, the phase-two questions the last
// walk asked n, and notes them on n.
func (w *walker) early(n *wnode, qs []question) []question {
	m := w.prev.of(n.obj) & earlyQuestions
	if w.o.NoText {
		m &^= bit(qCharCount)
	}
	if m == 0 {
		return qs
	}
	n.early = m
	for q := qExtents; q < numQuestions; q++ {
		if m&bit(q) != 0 {
			qs = append(qs, q)
		}
	}
	return qs
}

// decide is called when phase two has chosen qs for n: it notes what n
// was asked for the next walk, takes out of qs what went out early, and
// files the early answers that phase two wants (dropping the others). It
// returns what is left to ask.
func (w *walker) decide(n *wnode, qs []question) []question {
	var m qmask
	for _, q := range qs {
		m |= bit(q)
	}
	if m &= earlyQuestions; m != 0 {
		w.asked.add(n.obj, m)
	}
	n.decided = true
	if n.early == 0 {
		return qs
	}
	left := qs[:0:0]
	for _, q := range qs {
		if n.early&bit(q) != 0 {
			n.wanted |= bit(q)
		} else {
			left = append(left, q)
		}
	}
	held := n.held
	n.held = nil
	for _, h := range held {
		if n.wanted&bit(h.p.q) != 0 {
			w.answer(h.p, h.r)
		}
	}
	return left
}

// takeEarly files an early answer: held until n's phase two is decided,
// then filed if it is wanted. It reports whether it dealt with it.
func (w *walker) takeEarly(p *pend, r reply) {
	n := p.w
	switch {
	case !n.decided:
		n.held = append(n.held, heldAnswer{p, r})
	case n.wanted&bit(p.q) != 0:
		w.answer(p, r)
	}
}
