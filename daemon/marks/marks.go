// Package marks is the stage that keeps the agent's marks for the live
// view's agent cursor: for every verb the verb table says marks (click,
// scroll, type, key, fill, on windows and on tabs) and that ran on a
// target, where it acted — the point of click --at or scroll --at (the
// centre of the target for a scroll with no point), or the box of the
// node of @ref as the target's last snapshot placed it. A mark never
// carries text the agent typed or filled. The book keeps each target's
// last mark, numbered across targets; the core's live listing reads it
// (Mark) and nothing is kept across restarts.
package marks

import (
	"github.com/vibespace/vibespace/daemon/args"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Book is the marks stage: each target's last mark.
type Book struct {
	now   func() time.Time
	alive func(target.ID) bool

	mu   sync.Mutex
	seq  uint64 // numbers the marks across targets
	last map[target.ID]wire.AgentMark
}

// New makes the stage (stage.Registration.New).
func New(env stage.Env) (stage.Stage, error) {
	return &Book{now: env.Now, alive: env.Alive, last: map[target.ID]wire.AgentMark{}}, nil
}

// Name names the stage.
func (b *Book) Name() string { return "marks" }

// Finish records where a marking verb that ran on a target acted.
func (b *Book) Finish(c *stage.Call, a *stage.Answer) {
	if !c.Facts.Marks || a.Err != nil || c.Target == nil {
		return
	}
	req := c.Req
	ref, at := args.Ref(c.Args), args.Point(c.Args)
	m := wire.AgentMark{Verb: req.Verb, Session: req.Session, Ref: ref, At: b.now().UTC()}
	win, node, ok := c.Target.Bounds(ref)
	switch {
	case at != nil:
		m.Point = at
	case c.Facts.Word() == "scroll" && win.W > 0:
		m.Point = &wire.Point{X: win.W / 2, Y: win.H / 2}
	}
	if ref != "" && ok {
		box := target.Rect{X: node.X - win.X, Y: node.Y - win.Y, W: node.W, H: node.H}
		m.Box = &box
		m.Point = &wire.Point{X: box.X + box.W/2, Y: box.Y + box.H/2}
	}
	id := c.Target.ID()
	b.mu.Lock()
	b.seq++
	m.Seq = b.seq
	b.last[id] = m
	ids := make([]target.ID, 0, len(b.last))
	for k := range b.last {
		ids = append(ids, k)
	}
	b.mu.Unlock()
	b.forgetGone(ids)
}

// forgetGone drops the marks of targets no longer in the daemon's table
// (a handle never names another target later, so a gone one's mark is
// never read again).
func (b *Book) forgetGone(ids []target.ID) {
	if b.alive == nil {
		return
	}
	var gone []target.ID
	for _, id := range ids {
		if !b.alive(id) {
			gone = append(gone, id)
		}
	}
	if len(gone) == 0 {
		return
	}
	b.mu.Lock()
	for _, id := range gone {
		delete(b.last, id)
	}
	b.mu.Unlock()
}

// Mark answers a copy of the last mark on id, or nil when no agent's verb
// marked it.
func (b *Book) Mark(id target.ID) *wire.AgentMark {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.last[id]
	if !ok {
		return nil
	}
	if m.Point != nil {
		p := *m.Point
		m.Point = &p
	}
	if m.Box != nil {
		r := *m.Box
		m.Box = &r
	}
	return &m
}
