package atspi

import (
	"fmt"
	"math"
	"slices"

	"github.com/vibespace/vibespace/target"
)

// How an X window is matched to its accessible frame. A toolkit does not
// name the X window of a frame, so the window is known by what both sides
// say of it: where it is, what it is called, and whether it is a dialog.
// Geometry decides whether a frame can be the window at all; title, role
// and closeness rank the frames that can; the process's other windows take
// the frames that fit them better; and a window two frames fit alike has
// none. Never "some frame of the same application": a window whose own
// frame is not on the bus (yet) answers no frame, not its neighbour's.

// edgeTolerance is how far (in pixels) each edge of a frame's extents may
// lie from the X window's for the frame to be that window: what a window
// manager's decorations (a title bar, when a toolkit counts them in) and a
// toolkit's client-side shadows move an edge by. A dialog over its main
// window is told from it by the main window's edges, which lie further.
const edgeTolerance = 96

// dialogRoles are the roles of a frame that is a dialog: what an X window
// of type dialog (or transient for another) is on the accessibility bus.
var dialogRoles = []string{"dialog", "alert", "file chooser", "color chooser", "font chooser"}

// fit is how well a frame fits an X window; the zero fit does not.
type fit struct {
	ok    bool
	title int // 2: the same title; 1: one of them has none; 0: two titles that differ
	role  int // 1: a dialog role for a dialog window, or another for another
	dist  int // the largest distance between an edge of each (MaxInt when the frame gives no extents)
}

// better reports whether a fits more closely than b: by title, then role,
// then distance.
func (a fit) better(b fit) bool {
	switch {
	case a.ok != b.ok:
		return a.ok
	case a.title != b.title:
		return a.title > b.title
	case a.role != b.role:
		return a.role > b.role
	}
	return a.dist < b.dist
}

// fitOf is how frame f fits window h. A frame that gives only its size
// (Relative) is placed at the window's origin. A frame that gives no
// extents fits only a window of its own title, last of all.
func fitOf(f Frame, h WindowHint) fit {
	ft := fit{title: 1, dist: math.MaxInt}
	switch {
	case h.Title != "" && f.Name == h.Title:
		ft.title = 2
	case h.Title != "" && f.Name != "":
		ft.title = 0
	}
	if slices.Contains(dialogRoles, f.Role) == h.Dialog {
		ft.role = 1
	}
	e := f.Extents
	if e.W <= 0 || e.H <= 0 {
		ft.ok = ft.title == 2
		return ft
	}
	if f.Relative {
		e.X, e.Y = h.Bounds.X, h.Bounds.Y
	}
	b := h.Bounds
	ft.dist = max(abs(e.X-b.X), abs(e.Y-b.Y), abs(e.X+e.W-b.X-b.W), abs(e.Y+e.H-b.Y-b.H))
	ft.ok = ft.dist <= edgeTolerance
	return ft
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// matchFrame is the index in frames of window h's frame, or -1 and why
// there is none. Only showing frames not taken by another window are
// candidates; a candidate that another of the process's windows (h.Others)
// fits better is that window's, and one it fits as well is nobody's to
// give; of the rest the best fit wins, unless another fits alike. A
// process with one window (no Others) and one showing frame matches the
// two whatever their geometry: there is no other window it could be.
func matchFrame(frames []Frame, h WindowHint) (int, string) {
	best, second := -1, -1
	showing, taken, free := 0, 0, -1
	var lost []string
	for i, f := range frames {
		if !f.Showing() {
			continue
		}
		showing++
		if slices.Contains(h.Taken, f.Object) {
			taken++
			continue
		}
		free = i
		mine := fitOf(f, h)
		if !mine.ok {
			continue
		}
		if o, alike := claimed(f, mine, h.Others); o != nil {
			how := "better"
			if alike {
				how = "as well"
			}
			lost = append(lost, fmt.Sprintf("frame %q fits window %q (%s) %s", f.Name, o.Title, rect(o.Bounds), how))
			continue
		}
		switch {
		case best < 0 || mine.better(fitOf(frames[best], h)):
			best, second = i, best
		case second < 0 || mine.better(fitOf(frames[second], h)):
			second = i
		}
	}
	if best >= 0 && second >= 0 && !fitOf(frames[best], h).better(fitOf(frames[second], h)) {
		return -1, fmt.Sprintf("frames %q and %q fit it alike (%s), and neither is told from the other", frames[best].Name, frames[second].Name, rect(h.Bounds))
	}
	if best >= 0 {
		return best, ""
	}
	switch {
	case showing == 1 && taken == 0 && len(h.Others) == 0 && len(lost) == 0:
		return free, ""
	case showing == 0:
		return -1, "the application shows no frame (yet)"
	case len(lost) > 0:
		return -1, fmt.Sprintf("no frame of its own (yet): %s", lost[0])
	case taken == showing:
		return -1, fmt.Sprintf("each of its %d showing frames is another window's", showing)
	}
	return -1, fmt.Sprintf("none of its %d showing frames is where the window is (%s)", showing-taken, rect(h.Bounds))
}

// claimed is the other window that fits f better than h does (fit mine),
// or as well (alike), or nil.
func claimed(f Frame, mine fit, others []WindowHint) (o *WindowHint, alike bool) {
	for i := range others {
		theirs := fitOf(f, others[i])
		switch {
		case theirs.better(mine):
			return &others[i], false
		case theirs.ok && !mine.better(theirs):
			o, alike = &others[i], true
		}
	}
	return o, alike
}

// rect is r as X geometry: WxH+X+Y.
func rect(r target.Rect) string { return fmt.Sprintf("%dx%d%+d%+d", r.W, r.H, r.X, r.Y) }
