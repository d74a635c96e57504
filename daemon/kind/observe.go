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

// ChangeTeller is a target that tells, by signs of its own (a window's
// AT-SPI object events, a page's watcher), what changed anywhere in it: a node's name, text
// or value, a node added or removed, the focus moving. Changes with since
// 0 marks now and answers that mark, telling nothing; with a mark, it
// waits until something changed after it, or d passed, and answers what
// changed (oldest first) and the mark to ask from next. An error is that
// it cannot tell now (the target is then looked at instead).
type ChangeTeller interface {
	Changes(ctx context.Context, since uint64, d time.Duration) (Changes, error)
}

// Changes is what a ChangeTeller told.
type Changes struct {
	Mark uint64   // the mark to ask from next; never 0
	Seen []Change // what changed after the mark asked from, oldest first
	// Quiet: nothing the act started is still pending and nothing changed
	// for a moment (a page with no request, timer or frame its handlers
	// started still to run): no change is coming, the wait may end.
	Quiet bool
	// Pending: something the act started is still under way (a request,
	// a timer): a change may come later than the usual wait.
	Pending bool
	// Free: asking without waiting (d 0) costs no round trip (the
	// window's events are logged where the daemon runs): ask at every
	// look.
	Free bool
}

// Change is one change of one node a ChangeTeller told.
type Change struct {
	// Key is the node's backend identity (kind.Node.Key): the verifier
	// leaves out what the acted node's own read says already.
	Key string
	// Ref, Role and Name name the node as its target's last snapshot did
	// (Ref "" when it was not in it, Role "" when it is not known).
	Ref, Role, Name string
	// What changed: "name", "text", "value", "added" (a child of the
	// node, To naming it where known), "removed" (likewise), "focused",
	// "unfocused", "checked", "unchecked", "navigated" (the document was
	// left: said by the address, not here), or an attribute's name (From
	// and To its values).
	What string
	// From and To are the old and new name or text when known (From
	// "" and Known false: the old one is not known).
	From, To string
	Known    bool
	// Secret: the node holds what a person typed and hid (a password
	// field): its text is never said, only its length.
	Secret bool
}

// ReadName reads the role and name of node n of t now: through its
// NodeReader where t is one, else its traits (Reader.Node).
func ReadName(ctx context.Context, t Target, n Node) (target.NodeTraits, error) {
	if r, ok := t.(NodeReader); ok {
		nd, err := r.ReadNode(ctx, n)
		if err != nil || nd == nil {
			return target.NodeTraits{}, err
		}
		return target.NodeTraits{Role: nd.Role, Name: nd.Name}, nil
	}
	tr, err := t.Node(ctx, n)
	return target.NodeTraits{Role: tr.Role, Name: tr.Name}, err
}
