package atspi

import (
	"slices"

	"github.com/vibespace/vibespace/target"
)

// ReadingOrder puts the children of every node below root (root included)
// in reading order — top to bottom, then left to right within a row —
// wherever the toolkit's own order goes against what is on screen, and
// leaves every other list as the toolkit gave it.
//
// GTK 3 lists a GtkGrid's children last attached first: in
// gtk3-widget-factory the check boxes of the first page come at y 509,
// 481, 453, 425, 397, 369, in GetChildren order and by GetIndexInParent
// alike (indexes 10 to 15), so neither the toolkit's order nor its
// indexes say how the grid reads; where the children are drawn does. The
// tree is still built from GetChildren (a node's children are the ones
// its GetChildren named); only their order changes.
//
// Only the children drawn on screen (with an area, not the toolkit's
// "nowhere") move, among the places drawn children held; the others keep
// their places.
func ReadingOrder(root *target.Node) {
	if root == nil {
		return
	}
	root.Walk(func(n *target.Node, _ int) bool {
		reorder(n.Children)
		return true
	})
}

// drawn reports whether n has a place on screen to be ordered by.
func drawn(n *target.Node) bool {
	r := n.Bounds
	return r != nil && r.W > 0 && r.H > 0 && !r.Offscreen()
}

// misordered reports whether, among the drawn nodes in list order, one
// comes after a node it is wholly above, or wholly left of in the same
// row.
func misordered(placed []*target.Node) bool {
	for i := 1; i < len(placed); i++ {
		a, b := placed[i-1].Bounds, placed[i].Bounds
		switch {
		case b.Y+b.H <= a.Y:
			return true
		case a.Y+a.H <= b.Y:
		case b.X+b.W <= a.X:
			return true
		}
	}
	return false
}

func reorder(kids []*target.Node) {
	if len(kids) < 2 {
		return
	}
	var slots []int
	var placed []*target.Node
	for i, c := range kids {
		if drawn(c) {
			slots = append(slots, i)
			placed = append(placed, c)
		}
	}
	if len(placed) < 2 || !misordered(placed) {
		return
	}
	// Top edge first; then rows — a node whose middle is within the
	// first node of the row's height joins it — each left to right.
	slices.SortStableFunc(placed, func(a, b *target.Node) int { return a.Bounds.Y - b.Bounds.Y })
	for start := 0; start < len(placed); {
		first := placed[start].Bounds
		end := start + 1
		for end < len(placed) {
			r := placed[end].Bounds
			if mid := r.Y + r.H/2; mid >= first.Y+first.H {
				break
			}
			end++
		}
		slices.SortStableFunc(placed[start:end], func(a, b *target.Node) int { return a.Bounds.X - b.Bounds.X })
		start = end
	}
	for k, i := range slots {
		kids[i] = placed[k]
	}
}
