package kind

import (
	"context"

	"github.com/vibespace/vibespace/target"
)

// NodeRead is one read of a node, fresh from the application: what an
// acting verb needs of it, asked once. The core decides the verb's road on
// Traits (target.Decide), gives Facts to the verifier as its look before
// acting, and hands the read back to the backend to act on it.
type NodeRead struct {
	Traits target.NodeTraits
	// Facts are the node's observable facts (kind.NodeReader's); nil where
	// the target does not read them for the verifier.
	Facts *target.Node
	// Own is what the backend keeps of the read for its act (a Selection
	// parent found): opaque to the core.
	Own any
}

// ActOptions are what the core hands a backend that acts on a node it read
// once: the read and the road the law decided on it.
type ActOptions struct {
	Read  NodeRead
	Means target.Means // the capability's means (target.Capability.Means)
}

// Acted is what a backend did when it acted on a node.
type Acted struct {
	Means target.Means // the means it went through
}

// OnceActor is a target whose tree road reads a node once per acting verb
// and acts on that read: it asks the application nothing the read
// answered, and never decides the road again.
type OnceActor interface {
	// ReadForAct reads the node as Node and ReadNode would, at once. A
	// node that is gone is stale_ref.
	ReadForAct(ctx context.Context, n Node) (NodeRead, error)
	// ActOn does a node's click through o.Means (as Act does), and says
	// what it did.
	ActOn(ctx context.Context, n Node, o ActOptions) (Acted, error)
	// InsertOn appends text to the node's text (as InsertText does).
	InsertOn(ctx context.Context, n Node, text string, o ActOptions) error
}

// ActReader is a target that reads a node's traits and facts at once for
// an acting verb that decides on them (ReadForAct), though it does not act
// on that read (a tab acts by input): every OnceActor is one.
type ActReader interface {
	ReadForAct(ctx context.Context, n Node) (NodeRead, error)
}

// ReadForAct reads node n of t once for an acting verb: through t's own
// single read where it is an ActReader (a OnceActor), else its traits
// alone (Reader.Node).
func ReadForAct(ctx context.Context, t Target, n Node) (NodeRead, error) {
	if ar, ok := t.(ActReader); ok {
		return ar.ReadForAct(ctx, n)
	}
	tr, err := t.Node(ctx, n)
	return NodeRead{Traits: tr}, err
}

// InsertOn appends text to node n of t, on the node as read (read not
// nil) where t is a OnceActor, else through its InsertText.
func InsertOn(ctx context.Context, t Target, n Node, read *NodeRead, text string) error {
	if oa, ok := t.(OnceActor); ok && read != nil {
		return oa.InsertOn(ctx, n, text, ActOptions{Read: *read})
	}
	return t.InsertText(ctx, n, text)
}
