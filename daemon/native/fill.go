package native

import (
	"context"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

var _ kind.OnceFiller = (*window)(nil)

// FillOn replaces the node's whole text, on the node as read
// (EditableText.SetTextContents, which GTK 3, GTK 4 and Qt 5 each take as
// a whole replacement), and reads it back from the node's Text
// (atspi.Bus.SetTextOn): a node that holds anything else after is refused
// value_not_set, with what it holds. A node with no EditableText is
// refused no_editable_text, naming why: fill replaces text through the
// tree, never by keys.
func (w *window) FillOn(ctx context.Context, n kind.Node, text string, a kind.ActOptions) (string, error) {
	o, err := w.object(n)
	if err != nil {
		return "", err
	}
	own, ok := a.Read.Own.(readOwn)
	if !ok {
		if own.node, err = w.d.bus.Node(ctx, o); err != nil {
			return "", err
		}
	}
	if !own.node.Implements("EditableText") {
		r := target.Refuse(target.CodeNoEditableText, "%s has no EditableText: fill replaces a field's whole text through it, and this node takes none (type @ref types keys into a node that takes focus)", nodeLabel(own.node))
		return "", r.With("ref", n.Ref).With("role", own.node.Role).With("interfaces", own.node.Interfaces)
	}
	readBack, err := w.d.bus.SetTextOn(ctx, o, own.node, text)
	if err != nil {
		return "", err
	}
	if !readBack {
		return " through EditableText (not read back: the node has no Text)", nil
	}
	return " through EditableText, read back", nil
}

// nodeLabel names a node for a sentence: `push button "Alpha"`.
func nodeLabel(n *target.Node) string {
	if n.Name == "" {
		return n.Role
	}
	return n.Role + " " + target.Echo(n.Name)
}
