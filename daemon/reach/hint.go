package reach

// The next rung for acting verbs: an agent that acts on its own (a click
// on a tab, a key in a window) and meets a rung's signal is told which
// rung would be next, as reach would climb.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/budget"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/target"
)

// hints keeps, per session and target, the last acting step that saw no
// visible change.
type hints struct {
	mu   sync.Mutex
	last map[string]string
}

func newHints() *hints { return &hints{last: map[string]string{}} }

// maxHints bounds what hints keeps: past it, it starts over.
const maxHints = 4096

// Finish tells an acting verb's answer the next rung when it met a
// signal: its step saw no_visible_change again (the same action, one
// after the other, on the same target; or the budget's no_progress,
// which is that three times), or it was refused no_tree.
func (s *Stage) Finish(c *stage.Call, a *stage.Answer) {
	id := c.ID()
	if id == "" {
		return
	}
	code := target.CodeOf(a.Err)
	if a.Err == nil && !a.Resp.OK {
		code = a.Resp.Code
	}
	var sig Signal
	switch {
	case code == target.CodeNoTree:
		sig = NoTree
	case code == target.CodeNoProgress:
		sig = NoChangeRepeated
	case c.Facts.Acts && c.Target != nil && a.OK():
		if s.hints.repeated(c, a.Resp.Effect != nil && a.Resp.Effect.Word == target.EffectNoVisibleChange) {
			sig = NoChangeRepeated
		}
	}
	if sig == "" {
		return
	}
	r := next(id, args.Point(c.Args) != nil, sig)
	hint := fmt.Sprintf("%s: next rung %d (%s)", sig, r, r.What())
	switch {
	case r == Pixels:
		hint += ": screenshot, then click --at x,y"
	case r == Desktop:
		hint += ": reach <url> climbs there (a real window, native dialogs)"
	case r == Person:
		hint += ": a person is next"
	}
	if a.Resp.Note != "" {
		hint = a.Resp.Note + "; " + hint
	}
	a.Resp.Note = hint
}

// repeated records whether c's step saw no visible change, and reports
// whether the step before it on the same target was the same action and
// saw none too.
func (h *hints) repeated(c *stage.Call, none bool) bool {
	at := c.Req.Session + "\x00" + string(c.Target.ID())
	h.mu.Lock()
	defer h.mu.Unlock()
	if !none {
		delete(h.last, at)
		return false
	}
	key := budget.ActionKey(c)
	again := h.last[at] == key
	if len(h.last) >= maxHints {
		clear(h.last)
	}
	h.last[at] = key
	return again
}

// next is the rung after the one a verb on id stood on: a verb on a node
// (a ref: the tree's rung, a tab's 2) or on the focused one, and a target
// with no tree, are followed by pixels (rung 3: look at the picture, act
// at a point); a verb at a point (pixels) on a tab by a borrowed desktop
// (rung 4), on a window by a person (rung 5).
func next(id target.ID, atPoint bool, sig Signal) Rung {
	switch {
	case sig == NoTree || !atPoint:
		return Pixels
	case strings.HasPrefix(string(id), "tab:"):
		return Desktop
	}
	return Person
}
