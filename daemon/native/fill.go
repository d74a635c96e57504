package native

import (
	"context"

	"github.com/vibespace/vibespace/daemon/kind"
)

var _ kind.OnceFiller = (*window)(nil)

// FillOn replaces the node's whole text, on the node as read
// (EditableText.SetTextContents, which GTK 3, GTK 4 and Qt 5 each take as
// a whole replacement), and reads it back from the node's Text
// (atspi.Bus.SetTextOn): a node that holds anything else after is refused
// value_not_set, with what it holds. A node with no EditableText is
// refused no_editable_text (the core asks kind.Fillable first; atspi
// refuses it too): fill replaces text through the tree, never by keys.
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
	readBack, err := w.d.bus.SetTextOn(ctx, o, own.node, text)
	if err != nil {
		return "", err
	}
	if !readBack {
		return " through EditableText (not read back: the node has no Text)", nil
	}
	return " through EditableText, read back", nil
}
