package kind

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/target"
)

// NodeReader is a target that reads one node's own observable facts, fresh:
// its role and name, its states (checked, focused, expanded…), its text or
// value, for an acting verb to compare before and after it acted. A node
// that is gone is stale_ref.
type NodeReader interface {
	ReadNode(ctx context.Context, n Node) (*target.Node, error)
}

// ContentDigester is a target that answers a short digest of what a person
// sees of its content (a page's text, its fields' values and checked
// states), cheaper and steadier than its pixels: hover and the caret do not
// change it. An acting verb compares it before and after it acted; a
// target that is not one is compared by its screenshot.
type ContentDigester interface {
	ContentDigest(ctx context.Context) (string, error)
}

// ChangeWaiter is a target that can wait for a sign that its content
// changed (a page's mutation observer) instead of being looked at again
// and again: WaitChange returns at the first such sign (true) or when d
// passed (false). A sign is no judgement: the verifier looks, and judges.
type ChangeWaiter interface {
	WaitChange(ctx context.Context, d time.Duration) (bool, error)
}
