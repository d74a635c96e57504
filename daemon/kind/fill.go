package kind

import (
	"context"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// OnceFiller is a OnceActor whose fields are filled on the node as read
// (a window's, through AT-SPI's EditableText).
type OnceFiller interface {
	// FillOn replaces the node's whole text with text and reads it back:
	// a node that does not hold exactly text after is refused
	// value_not_set, with what it holds; one with no EditableText
	// no_editable_text. It answers how it was done, in words for the
	// answer ("through EditableText, read back").
	FillOn(ctx context.Context, n Node, text string, o ActOptions) (string, error)
}

// Fill replaces the text of node n of t: on the node as read where t is
// a OnceFiller and read is not nil, else through t's Filler (a page's
// field, as a paste would). It answers the OnceFiller's words of how
// ("" for a Filler). A target that is neither is refused bad_request.
func Fill(ctx context.Context, t Target, n Node, text string, read *NodeRead) (string, error) {
	if of, ok := t.(OnceFiller); ok && read != nil {
		return of.FillOn(ctx, n, text, ActOptions{Read: *read})
	}
	if f, ok := t.(Filler); ok {
		return "", f.Fill(ctx, n, text)
	}
	return "", target.Refuse(target.CodeBadRequest, "this target has no fields to fill; type into it instead")
}

// Fillable refuses a fill of a node as read (read not nil: a window's)
// that has no EditableText: no_editable_text, naming why and the node's
// interfaces. fill replaces a field's whole text through EditableText and
// never falls back to keys. A node not read (a tab's field: its Filler
// judges it) passes.
func Fillable(read *NodeRead) error {
	if read == nil || read.Traits.Has("EditableText") {
		return nil
	}
	tr := read.Traits
	what := tr.Role
	if tr.Name != "" {
		what += " " + target.Echo(tr.Name)
	}
	return target.Refuse(target.CodeNoEditableText, "%s has no EditableText: fill replaces a field's whole text through it, and this node takes none (type @ref types keys into a node that takes focus)", what).
		With("role", tr.Role).With("interfaces", strings.Join(tr.Interfaces, ","))
}
