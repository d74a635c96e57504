package atspi

// Asked ahead: a walk knows a node only once its parent's GetChildren has
// answered, so without more a walk is as many round trips deep as the tree
// is deep (GetChildren of a node, then of its children, …), and a toolkit
// without a cache (Qt 5: every node) waits a round trip a level for the
// nodes' first questions as well.
//
// So the first write of a walk of a root whose toolkit is known also asks,
// of every object the last walk of that root asked them of (walkMemo),
// GetChildren and its phase one (with its early phase two, early.go), or
// only the phase two of an object the cache held, up
// to aheadShare of WalkOptions.InFlight. Nothing is taken from those
// answers until the walk itself comes to the object: when its parent's
// GetChildren (this walk's own answer) lists it and it is not in the
// cache, its phase one is the one asked ahead (claimPhaseOne), and its
// children are the ones asked ahead when it is to be asked them
// (claimKids); and the phase two asked ahead of a node the cache holds is
// its early phase two (claimEarly). An answer no node claims is dropped. A snapshot therefore
// says what it says without asking ahead — the same questions, answered
// during the same walk, filed by the same code — and a settled tree is
// read with the same calls in a few round trips; a tree that changed costs
// the calls asked of objects no longer in it.

// aheadShare is the part of WalkOptions.InFlight the calls asked ahead may
// take (the rest is for the questions the walk finds).
const aheadShare = 3 / 4.0

// ahead is what was asked ahead of one object: its phase one (and early
// phase two), its children.
type ahead struct {
	phaseOne []*pend
	early    qmask
	kids     *pend
}

// askAhead sends the questions asked ahead, of the objects of the root's
// application the last walk asked them of. Called with mu held and the
// route corked, once the toolkit is known.
func (w *walker) askAhead(root Object) {
	if w.o.Depth != 0 || len(w.prev.order) == 0 {
		return
	}
	rt := w.routes[root.Name]
	tk := w.tk
	room := int(float64(w.o.InFlight)*aheadShare) - w.inflight
	w.aheads = make(map[Object]*ahead)
	var calls []*pend
	for _, o := range w.prev.order {
		m := w.prev.of(o)
		if o == root || o.Name != root.Name {
			continue
		}
		var qs []question
		a := &ahead{}
		if m&bit(qRole) != 0 {
			if tk.getAll() {
				qs = append(qs, phaseOneAll[:]...)
			} else {
				qs = append(qs, phaseOne[:]...)
			}
		}
		a.early = m & earlyQuestions
		if w.o.NoText {
			a.early &^= bit(qCharCount)
		}
		for q := qExtents; q < numQuestions; q++ {
			if a.early&bit(q) != 0 {
				qs = append(qs, q)
			}
		}
		if m&bit(qChildren) != 0 {
			qs = append(qs, qChildren)
		}
		if len(qs) == 0 {
			continue
		}
		if len(qs) > room {
			break
		}
		room -= len(qs)
		for _, q := range qs {
			p := &pend{q: q, rt: rt, depth: 1, ahead: o, early: a.early&bit(q) != 0}
			if q == qChildren {
				a.kids = p
			} else {
				a.phaseOne = append(a.phaseOne, p)
			}
			calls = append(calls, p)
		}
		w.aheads[o] = a
	}
	if len(calls) == 0 {
		return
	}
	bt := w.newBatch(len(calls))
	w.deepest = max(w.deepest, 1)
	for _, p := range calls {
		p.b = bt
		bt.calls = append(bt.calls, p)
		w.inflight++
		w.unflushed++
		p.serial = w.ask(p, p.ahead.Path, 0)
	}
}

// aheadAnswer keeps the answer of a question asked ahead that no node has
// claimed yet.
func (w *walker) aheadAnswer(p *pend, r reply) {
	p.kept = &r
}

// claimPhaseOne makes n's phase one the one asked ahead of its object, if
// it was, and files the answers that came already. It reports whether it
// did. Called where n would be asked phase one, with mu held.
func (w *walker) claimPhaseOne(n *wnode, size int) bool {
	a := w.aheads[n.obj]
	if a == nil || a.phaseOne == nil || len(a.phaseOne)-a.early.count() != size {
		return false
	}
	ps := a.phaseOne
	a.phaseOne = nil
	n.phaseOne = true
	n.left = size
	n.early = a.early
	w.asked.add(n.obj, bit(qRole))
	for _, p := range ps {
		p.w = n
	}
	for _, p := range ps {
		if p.kept != nil && n.n.Unreadable == "" {
			r := *p.kept
			p.kept = nil
			w.file(p, r)
		}
	}
	return true
}

// claimEarly makes the phase-two questions asked ahead of n's object n's
// early ones (early.go), of a node read from the cache, and files the
// answers that came already (held until its phase two is decided). Called
// before n is ready, with mu held.
func (w *walker) claimEarly(n *wnode) {
	a := w.aheads[n.obj]
	if a == nil || a.phaseOne == nil {
		return
	}
	ps := a.phaseOne
	a.phaseOne = nil
	n.early = a.early
	for _, p := range ps {
		if p.early {
			p.w = n
		}
	}
	for _, p := range ps {
		if p.early && p.kept != nil {
			r := *p.kept
			p.kept = nil
			w.file(p, r)
		}
	}
}

// claimKids makes n's GetChildren the one asked ahead of its object, if it
// was, and files its answer if it came already. It reports whether it
// did. Called where n would be asked GetChildren, with mu held.
func (w *walker) claimKids(n *wnode) bool {
	a := w.aheads[n.obj]
	if a == nil || a.kids == nil {
		return false
	}
	p := a.kids
	a.kids = nil
	p.w = n
	w.asked.add(n.obj, bit(qChildren))
	if p.kept != nil {
		r := *p.kept
		p.kept = nil
		w.file(p, r)
	}
	return true
}

// count is how many questions m holds.
func (m qmask) count() int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}
