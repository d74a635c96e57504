package kind

import (
	"context"
	"sync"
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

// LookFor is what one look of an acting verb's verifier reads of a
// target at once.
type LookFor struct {
	Node   *Node // the node whose facts are read (NodeReader's); nil: none
	Digest bool  // its content's digest (ContentDigester's)
	Arm    bool  // its own word marked now (ChangeTeller's Changes from 0)
	// Told, when not 0, asks its own word what changed after this mark,
	// at once (ChangeTeller's Changes, d 0), of a Looker only: there it
	// rides on the look's call; a target that reads the parts one by one
	// is asked by a call of its own where the answer is needed.
	Told uint64
}

// Look is what one look read: each part as its own interface answers it,
// ok false where the target offers none (or it was not asked).
type Look struct {
	Node       *target.Node
	NodeOK     bool
	NodeErr    error
	Digest     string
	DigestOK   bool
	DigestErr  error
	Changes    Changes
	ChangesOK  bool
	ChangesErr error
	Told       Changes // what its word told after LookFor.Told
	ToldOK     bool
	ToldErr    error
}

// Looker is a target that reads a look's parts together, in fewer round
// trips than each through its own interface (a page: one call in it).
// It offers every part: the node's facts, the digest, its word.
type Looker interface {
	Look(ctx context.Context, f LookFor) Look
}

// LookAt reads what f asks of t: through its Looker where it is one, else
// each part through its own interface (NodeReader, ContentDigester,
// ChangeTeller), all at once.
func LookAt(ctx context.Context, t any, f LookFor) Look {
	if l, ok := t.(Looker); ok {
		return l.Look(ctx, f)
	}
	var out Look
	var wg sync.WaitGroup
	if r, ok := t.(NodeReader); ok && f.Node != nil {
		out.NodeOK = true
		wg.Go(func() { out.Node, out.NodeErr = r.ReadNode(ctx, *f.Node) })
	}
	if d, ok := t.(ContentDigester); ok && f.Digest {
		out.DigestOK = true
		wg.Go(func() { out.Digest, out.DigestErr = d.ContentDigest(ctx) })
	}
	if c, ok := t.(ChangeTeller); ok && f.Arm {
		out.ChangesOK = true
		wg.Go(func() { out.Changes, out.ChangesErr = c.Changes(ctx, 0, 0) })
	}
	wg.Wait()
	return out
}
