package atspi

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// Defaults of WalkOptions.
const (
	DefaultBudget      = 5000
	DefaultTextMax     = 200
	DefaultWalkTimeout = 5 * time.Second
	DefaultInFlight    = 1024
)

// WalkOptions bound a walk. The zero value walks everything under the
// defaults.
type WalkOptions struct {
	// Budget is the most nodes the walk reads (DefaultBudget if 0); past it
	// the snapshot is marked Truncated.
	Budget int
	// Depth limits the levels read below the root (0: no limit; 1: the root
	// and its children; negative: the root alone).
	Depth int
	// TextMax is how many characters of a Text node's value are read
	// (DefaultTextMax if 0). NoText skips text values altogether.
	TextMax int
	NoText  bool
	// Timeout bounds the whole walk (DefaultWalkTimeout if 0; a deadline
	// already on the context wins if earlier). What is not read by then is
	// marked unreadable; the rest of the tree is returned.
	Timeout time.Duration
	// InFlight caps the calls outstanding at once (DefaultInFlight if 0).
	InFlight int
	// NoCache makes the walk ask every object for every field instead of
	// taking role, name, description, states, interfaces and child count
	// from the bridge's Cache.GetItems where it has them. The tree is the
	// same either way (the tests check it); the cache saves most calls.
	NoCache bool
	// Window is where the window being walked is on screen (its X
	// geometry, root coordinates), when the caller knows it. A toolkit
	// that answers extents relative to its window even when asked for
	// screen coordinates (GTK 4) has them moved by the window's origin;
	// without Window such a toolkit's nodes get no Bounds: unknown, not
	// wrong.
	Window *target.Rect

	// relative keeps window-relative extents as the toolkit gave them
	// (Frames: a frame's size is still worth comparing).
	relative bool
	hook     *walkHook // tests only (export_test.go)
	noMemo   bool      // tests only: neither use nor keep the last walk's memory (early.go)
	depth    *int      // tests only: where to put the walk's depth in round trips
}

// walkHook is a callback the walk's own loop runs once it has taken
// after answers: a test's way to act at a known point inside a walk.
type walkHook struct {
	after int
	fn    func()
}

func (o *WalkOptions) defaults() {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.TextMax <= 0 {
		o.TextMax = DefaultTextMax
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultWalkTimeout
	}
	if o.InFlight <= 0 {
		o.InFlight = DefaultInFlight
	}
	o.InFlight = max(o.InFlight, maxBatch, maxJob)
}

// Walk reads the tree below root (root included) and returns it as a
// snapshot whose nodes carry their Object key. Children are taken in
// GetChildren order. Calls are pipelined: every node's questions are in
// flight together, and every node found is asked as soon as its parent's
// GetChildren answers, up to InFlight calls at once, each bounded by the
// Bus's CallTimeout and all by the walk's Timeout.
//
// A node whose application does not answer in time, or that vanished during
// the walk, is kept with Unreadable set and no children; Walk still returns
// the rest of the tree and a nil error. It returns an error only when ctx
// was already done.
func (b *Bus) Walk(ctx context.Context, root Object, o WalkOptions) (*target.Snapshot, error) {
	s, _, err := b.walk(ctx, root, o)
	return s, err
}

// walk is Walk that also returns the root's walk state (its err says why
// it was unreadable).
func (b *Bus) walk(ctx context.Context, root Object, o WalkOptions) (*target.Snapshot, *wnode, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, target.Refuse(target.CodeTimeout, "walk not started: %v", err).Wrap(err)
	}
	o.defaults()
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	w := &walker{
		b:       b,
		o:       o,
		ctx:     wctx,
		routes:  make(map[string]route),
		stalled: make(map[*wconn]error),
		idle:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
	}
	w.sink = w.deliver
	if !o.noMemo {
		w.prev = b.memo(root, o)
	}
	rn := w.newNode(root, 0)
	if root.Name != "" && root.Name != registryName {
		// The toolkit (asked once per application: the Bus remembers it)
		// and Cache.GetItems go out in one write with the root's own
		// questions. Phase two waits for the toolkit, the nodes below the
		// root for the cache.
		if !o.NoCache {
			// Once per registry: a GTK 3 application keeps its cache only
			// while someone listens (listen.go).
			if err := b.listen(wctx); err != nil {
				b.log.Debug("walk without a listener", "err", err)
			}
		}
		rt := w.routeFor(root.Name)
		// From the first call on, answers may be taken.
		w.mu.Lock()
		rt.cork()
		w.tkApp = root.Name
		tk, known := b.knownToolkit(root.Name)
		if known {
			w.tk = tk
		} else {
			w.tkLeft = 2
			w.sendOwn(root.Name, rootPath, qToolkitName, ifaceProperties+".Get", ifaceApplication, "ToolkitName")
			w.sendOwn(root.Name, rootPath, qToolkitVersion, ifaceProperties+".Get", ifaceApplication, "Version")
		}
		if !o.NoCache && !tk.noCache() {
			w.itemsWait = true
			w.sendOwn(root.Name, cachePath, qItems, ifaceCache+".GetItems")
		}
		if known {
			w.askAhead(root)
		}
		rt.uncork(false) // the loop's first round writes them
		w.mu.Unlock()
	}
	w.run()
	if !o.noMemo {
		b.rememberWalk(root, o, w.asked)
	}
	w.names(rn)
	w.finish(rn)
	if o.depth != nil {
		*o.depth = w.deepest
	}
	s := &target.Snapshot{Root: rn.n, Truncated: w.truncated}
	s.Census = s.Root.Count()
	return s, rn, nil
}

// flushBurst is how many calls a walk lets collect before writing them,
// as long as at least that many are already with the application.
const flushBurst = 32

type walker struct {
	b   *Bus
	o   WalkOptions
	ctx context.Context
	// mu guards the walker from the moment its first call is sent until
	// run returns: the answers are taken on the connections' reader
	// goroutines (deliver, which sink is).
	mu        sync.Mutex
	sink      func(reply)
	finished  bool          // nothing queued or in flight: idle is closed
	idle      chan struct{} // closed when finished
	wake      chan struct{} // a queued node waits for run to open its route
	inflight  int
	answers   int      // calls answered (or failed) so far
	unflushed int      // calls sent since the last flush
	batches   []*batch // unanswered batches, oldest (earliest deadline) first
	queue     []*wnode // nodes whose phase one is not sent yet
	later     []job    // further questions waiting for room
	nodes     int
	truncated bool
	routes    map[string]route
	stalled   map[*wconn]error               // connections that missed a deadline or closed
	items     map[dbus.ObjectPath]*cacheItem // from Cache.GetItems of tkApp
	itemsWait bool                           // nodes below the root wait for Cache.GetItems
	tkApp     string
	tk        toolkit           // of tkApp
	tkLeft    int               // toolkit answers still to come
	tkFailed  bool              // one of them did not come: ask again next walk
	tkHeld    []*wnode          // nodes waiting for the toolkit to start phase two
	labelled  []*wnode          // unnamed nodes that have LABELLED_BY targets
	unnamed   []*wnode          // unnamed nodes that matter (mattersUnnamed): named by their description last
	extras    []extra           // calls to make once the tree is read (names.go)
	sentences []actionAt        // actions named by a sentence (names.go)
	shortName map[string]string // an action's description → its short name
	prev      walkMemo          // what the last walk of the root asked (early.go)
	asked     walkMemo          // what this one asks, for the next
	aheads    map[Object]*ahead // what was asked ahead, by object (ahead.go)
	// The walk's depth in round trips: a call is one deeper than the
	// answer it waited for (its parent's GetChildren, its own phase one,
	// its character count, Cache.GetItems and the toolkit for the nodes
	// below the root); deepest is the deepest call, gate the depth of the
	// last of the walk's own answers the nodes below the root wait for.
	deepest int
	gate    int
}

// wnode is a node being read.
type wnode struct {
	obj     Object
	n       *target.Node
	depth   int
	rt      route
	err     error // why the node is unreadable
	left    int   // phase-one answers still to come
	askKids bool  // GetChildren waits for phase two (a node from the cache or GetAll)
	// kidsSent: GetChildren went out with phase one (the root of a
	// toolkit asked GetAll), not to be asked again.
	kidsSent bool
	ifaces   []string
	// labelledBy are the objects that label it (LABELLED_BY), asked of
	// an unnamed node that matters.
	labelledBy []Object
	// cause is the depth of the last answer the node's next questions
	// wait for (see walker.deepest).
	cause int
	// Phase two asked early (early.go): phaseOne is set when the node is
	// asked phase one (not read from the cache); early is what went out
	// with it; decided once phase two is chosen, wanted what of early it
	// chose; held the early answers that came before that.
	phaseOne bool
	decided  bool
	early    qmask
	wanted   qmask
	held     []heldAnswer
}

// job is questions for one node waiting to be sent, and the depth of the
// answer they waited for.
type job struct {
	n     *wnode
	qs    []question
	cause int
}

// pend is one call in flight: whose, which question, its batch, and how
// to forget it when its deadline passes.
type pend struct {
	w      *wnode
	q      question
	b      *batch
	rt     route
	serial uint32
	done   bool
	early  bool // a phase-two question asked with phase one (early.go)
	depth  int  // in round trips (walker.deepest)
	// ahead is the object the question was asked ahead of (ahead.go) —
	// w is nil until a node claims it — and kept its answer until then.
	ahead Object
	kept  *reply
}

// batch is a group of calls sent together under one per-call deadline.
type batch struct {
	deadline time.Time
	calls    []*pend
	left     int
}

func (w *walker) newNode(o Object, depth int) *wnode {
	w.nodes++
	n := &wnode{obj: o, depth: depth, n: &target.Node{Key: o.Key()}}
	w.queue = append(w.queue, n)
	return n
}

func (w *walker) routeFor(name string) route {
	if r, ok := w.routes[name]; ok {
		return r
	}
	r := w.b.route(w.ctx, name)
	w.routes[name] = r
	return r
}

// deeper reports whether n's children are to be read.
func (w *walker) deeper(n *wnode) bool {
	return w.o.Depth == 0 || (w.o.Depth > 0 && n.depth < w.o.Depth)
}

// run is the walk's loop. The answers are taken where they arrive: each
// connection's reader goroutine hands its reply to deliver, which files it
// and sends what it unlocks, under the walker's lock — no goroutine is
// woken per reply. run itself sends the first round, opens the routes to
// applications met during the walk (a route may have to ask the bus,
// whose reader must not be the one waiting), fails the calls whose
// deadline passed, and returns once nothing is queued or in flight.
func (w *walker) run() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	w.mu.Lock()
	w.pump()
	w.mu.Unlock()
	for {
		w.mu.Lock()
		if w.finished {
			w.mu.Unlock()
			return
		}
		if names := w.unrouted(); len(names) > 0 {
			w.mu.Unlock()
			opened := make(map[string]route, len(names))
			for _, name := range names {
				opened[name] = w.b.route(w.ctx, name)
			}
			w.mu.Lock()
			for name, r := range opened {
				w.routes[name] = r
			}
			w.pump()
			w.mu.Unlock()
			continue
		}
		d := w.nextDeadline()
		w.mu.Unlock()
		timer.Reset(time.Until(d))
		select {
		case <-w.idle:
		case <-w.wake:
		case <-timer.C:
			w.mu.Lock()
			w.expire(time.Now())
			w.pump()
			w.mu.Unlock()
		case <-w.ctx.Done():
			w.mu.Lock()
			w.expire(time.Now().Add(time.Hour))
			w.pump()
			w.mu.Unlock()
		}
	}
}

// deliver is where the walk's calls are answered: on the reader goroutine
// of the answer's connection.
func (w *walker) deliver(r reply) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.take(r)
	w.pump()
}

// unrouted lists the applications of the queued nodes that have no route
// yet. Called with mu held.
func (w *walker) unrouted() []string {
	var names []string
	for _, n := range w.queue {
		if _, ok := w.routes[n.obj.Name]; !ok && !slices.Contains(names, n.obj.Name) {
			names = append(names, n.obj.Name)
		}
	}
	return names
}

// pump sends what may be sent: the queued nodes' first questions, then
// the questions earlier answers unlocked, up to InFlight calls at once;
// it marks the walk finished when nothing is queued or in flight. A node
// whose application has no route yet stops the queue until run has opened
// it. Called with mu held.
//
// It writes in bursts: the buffer goes out when it holds a good number of
// calls or when fewer than that are already with the application.
func (w *walker) pump() {
	if w.finished {
		return
	}
	for {
		for _, r := range w.routes {
			r.cork()
		}
		// The nodes below the root wait for the cache and the toolkit
		// (whether GetAll may be asked).
		for len(w.queue) > 0 && w.inflight+maxBatch <= w.o.InFlight && ((!w.itemsWait && w.tkLeft == 0) || w.queue[0].depth == 0) {
			n := w.queue[0]
			if err := w.ctx.Err(); err != nil {
				w.queue = w.queue[1:]
				w.unreadable(n, err)
				continue
			}
			rt, ok := w.routes[n.obj.Name]
			if !ok {
				select {
				case w.wake <- struct{}{}:
				default:
				}
				break
			}
			w.queue = w.queue[1:]
			n.rt = rt
			if err := w.stalled[n.rt.c]; err != nil {
				w.unreadable(n, err)
				continue
			}
			if n.depth > 0 {
				n.cause = max(n.cause, w.gate)
			}
			if it := w.cached(n.obj); it != nil {
				w.fromCache(n, it)
				continue
			}
			if w.tkOf(n).getAll() {
				if n.depth > 0 && w.claimPhaseOne(n, len(phaseOneAll)) {
					continue
				}
				n.phaseOne = true
				n.left = len(phaseOneAll)
				qs := phaseOneAll[:]
				if n.depth == 0 && w.deeper(n) {
					// The walk's root (a window) has children: asked
					// with its first questions, they save the walk a
					// round trip, at the cost of one call for a window
					// with none.
					qs = append(qs, qChildren)
					n.kidsSent = true
				}
				w.send(n, n.cause, w.early(n, qs)...)
				continue
			}
			if n.depth > 0 && w.claimPhaseOne(n, len(phaseOne)) {
				if w.deeper(n) && !w.claimKids(n) {
					w.send(n, n.cause, qChildren)
				}
				continue
			}
			n.phaseOne = true
			n.left = len(phaseOne)
			qs := phaseOne[:] // its capacity is its length: append copies
			if w.deeper(n) && (n.depth == 0 || !w.claimKids(n)) {
				qs = append(qs, qChildren)
			}
			w.send(n, n.cause, w.early(n, qs)...)
		}
		// Questions unlocked by earlier answers (and by cache entries just
		// used) go out after the new nodes' first questions.
		for len(w.later) > 0 && w.inflight+len(w.later[0].qs) <= w.o.InFlight {
			j := w.later[0]
			w.later = w.later[1:]
			if err := w.stalled[j.n.rt.c]; err != nil {
				w.unreadable(j.n, err)
				continue
			}
			if j.n.n.Unreadable == "" {
				w.send(j.n, j.cause, j.qs...)
			}
		}
		flush := w.unflushed >= flushBurst || w.inflight-w.unflushed < flushBurst
		for _, r := range w.routes {
			r.uncork(flush)
		}
		if flush {
			w.unflushed = 0
		}
		if w.inflight > 0 {
			return
		}
		if len(w.queue) == 0 && len(w.later) == 0 {
			w.finished = true
			close(w.idle)
			return
		}
		if len(w.queue) > 0 {
			if _, ok := w.routes[w.queue[0].obj.Name]; !ok {
				return // run opens the route
			}
		}
		// Room was made without a call: go round again.
	}
}

// nextDeadline is the earliest deadline of a call in flight.
func (w *walker) nextDeadline() time.Time {
	d := time.Now().Add(time.Hour)
	for len(w.batches) > 0 && w.batches[0].left == 0 {
		w.batches = w.batches[1:]
	}
	if len(w.batches) > 0 {
		d = w.batches[0].deadline
	}
	return d
}

// expire fails every call whose deadline is before now with the deadline
// error (the walk's own, if that is what passed).
func (w *walker) expire(now time.Time) {
	err := error(context.DeadlineExceeded)
	if e := w.ctx.Err(); e != nil {
		err = e
	}
	for len(w.batches) > 0 && !w.batches[0].deadline.After(now) {
		b := w.batches[0]
		w.batches = w.batches[1:]
		for _, p := range b.calls {
			if !p.done && p.rt.c.forget(p.serial) {
				w.take(reply{tag: p, err: err})
			}
		}
	}
}

// fromCache fills phase one from the node's Cache.GetItems entry. Its
// children are asked in phase two unless the entry says it has none and
// the toolkit's counts are true (toolkit.countsChildren: GTK's are, and
// say -1 where they do not count — a GTK 3 menu, whose items went missing
// when -1 was taken for none).
func (w *walker) fromCache(n *wnode, it *cacheItem) {
	n.n.Role = roleName(it.Role)
	n.n.Name = it.Name
	n.n.Description = it.Description
	n.n.States = stateList(it.States)
	n.ifaces = it.Interfaces
	n.askKids = it.ChildCount != 0 || !w.tkOf(n).countsChildren()
	w.claimEarly(n)
	w.ready(n)
}

// take files one finished call.
func (w *walker) take(r reply) {
	p, _ := r.tag.(*pend)
	if p == nil || p.done {
		return
	}
	p.done = true
	w.inflight--
	p.b.left--
	if p.w == nil {
		if p.ahead.Name != "" {
			w.aheadAnswer(p, r)
		} else {
			w.own(p, r)
		}
		return
	}
	w.file(p, r)
}

// file files the answer of a node's question.
func (w *walker) file(p *pend, r reply) {
	if p.early {
		w.takeEarly(p, r)
	} else {
		w.answer(p, r)
	}
	if w.answers++; w.o.hook != nil && w.answers == w.o.hook.after {
		w.o.hook.fn()
	}
}

// cached is the GetItems entry of o, or nil.
func (w *walker) cached(o Object) *cacheItem {
	if w.items == nil || o.Name != w.tkApp {
		return nil
	}
	return w.items[o.Path]
}

func (w *walker) gotChildren(n *wnode, refs []Object, depth int) {
	for _, o := range refs {
		if o.IsNull() {
			continue
		}
		if w.nodes >= w.o.Budget {
			w.truncated = true
			return
		}
		c := w.newNode(o, n.depth+1)
		c.cause = depth
		n.n.Children = append(n.n.Children, c.n)
	}
}

// ObjectGone is how a walk marks a node whose object vanished while it was
// read (target.Node.Unreadable).
const ObjectGone = "object gone"

// unreadable marks n's subtree unreadable with the reason err gives.
func (w *walker) unreadable(n *wnode, err error) {
	var why string
	switch {
	case w.ctx.Err() != nil && isTimeout(err):
		why = "walk deadline passed"
	case isTimeout(err):
		why = fmt.Sprintf("no answer within %v", w.b.opts.CallTimeout)
	case isGone(err):
		why = ObjectGone
	default:
		why = err.Error()
	}
	n.n.Unreadable = why
	n.n.Children = nil
	n.err = err
}
