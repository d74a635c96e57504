// Package stagetest has a double of the target a verb reached, as a
// registered stage sees it (stage.Target), for the stages' own tests.
// Only tests import it.
package stagetest

import (
	"context"

	"github.com/vibespace/vibespace/target"
)

// Target is a stage.Target whose answers are its fields.
type Target struct {
	TargetID target.ID
	// Win is its box; Nodes the boxes of refs as its last snapshot placed
	// them (Bounds answers ok false for a ref not there).
	Win   target.Rect
	Nodes map[string]target.Rect
	// Mine, Pixels: a window of the user's desktop, and its pixels grant.
	Mine, Pixels bool
	// PNG is its picture; Shots counts the pictures taken.
	PNG   []byte
	Shots int
}

// Of is a target of handle id with no node, picture or box.
func Of(id target.ID) *Target { return &Target{TargetID: id} }

func (t *Target) ID() target.ID             { return t.TargetID }
func (t *Target) NodeKey(ref string) string { return "" }

func (t *Target) Bounds(ref string) (win, node target.Rect, ok bool) {
	node, ok = t.Nodes[ref]
	return t.Win, node, ok
}

func (t *Target) Desktop() (mine, pixels bool) { return t.Mine, t.Pixels }

func (t *Target) Screenshot(context.Context) ([]byte, error) {
	t.Shots++
	return t.PNG, nil
}
