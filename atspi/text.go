package atspi

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/vibespace/vibespace/target"
)

// MaxTextRead bounds GetText: at most this many characters are read.
const MaxTextRead = 1 << 20

// SetText replaces the object's text (EditableText.SetTextContents).
// InsertText inserts at a character position (-1: the end). Both check what
// AT-SPI itself does not — it writes even into a greyed-out entry — and are
// refused no_editable_text without the EditableText interface,
// not_sensitive when greyed out, not_editable when the object is not
// editable (read-only), declined when the application refuses the change
// (the call answers false), stale_ref when it is gone.
func (b *Bus) SetText(ctx context.Context, o Object, text string) error {
	if _, err := b.editable(ctx, o); err != nil {
		return err
	}
	return b.boolCall(ctx, o, "SetTextContents", ifaceEditableText+".SetTextContents", text)
}

// SetTextOn is SetText on an object whose own fields n were read already
// (Node): the whole text replaced (SetTextContents), with n's refusals,
// then read back in one call (Text.GetText of up to heldShown characters
// more than text holds, so a text that kept a tail is seen):
// value_not_set, with what the object holds, when it does not hold
// exactly text. An object with no Text
// interface is not read back; readBack says whether it was.
//
// GTK 3 (GtkEntry, GtkTextView), GTK 4 (GtkEntry) and Qt 5 (QLineEdit)
// each replace the whole text on SetTextContents (TestActRoundTrips,
// TestFillWindow): none of them needs DeleteText and InsertText.
func (b *Bus) SetTextOn(ctx context.Context, o Object, n *target.Node, text string) (readBack bool, err error) {
	if err := editable(o, n); err != nil {
		return false, err
	}
	if err := b.boolCall(ctx, o, "SetTextContents", ifaceEditableText+".SetTextContents", text); err != nil {
		return false, err
	}
	if !n.Implements("Text") {
		return false, nil
	}
	want := utf8.RuneCountInString(text)
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	held, err := b.route(cctx, o.Name).call(cctx, o.Path, ifaceText+".GetText", int32(0), int32(want+1+heldShown)).str()
	if err != nil {
		return false, objRefusal(o, "GetText", err)
	}
	if held != text {
		r := target.Refuse(target.CodeValueNotSet, "%s did not take the text: it holds %s, not the %d characters filled", label(n), strconvQuote(held), want)
		return true, describe(r, o, n).With("holds", held)
	}
	return true, nil
}

// heldShown is how many characters beyond the text filled a refusal of a
// fill that did not take shows of what the object holds.
const heldShown = 60

// InsertText inserts text at character position pos (-1: the end); see
// SetText for the refusals.
//
// The end is asked as the text's length (CharacterCount): GTK takes -1 for
// it, Qt ignores an insertion at -1. The call's length argument is in the
// toolkit's own unit (toolkit.textLength).
func (b *Bus) InsertText(ctx context.Context, o Object, pos int, text string) error {
	n, err := b.Node(ctx, o)
	if err != nil {
		return err
	}
	return b.InsertTextOn(ctx, o, n, pos, text)
}

// InsertTextOn is InsertText on an object whose own fields n were read
// already (Node): one call, with n's refusals.
func (b *Bus) InsertTextOn(ctx context.Context, o Object, n *target.Node, pos int, text string) error {
	if err := editable(o, n); err != nil {
		return err
	}
	if pos < 0 {
		pos = -1
		if n.Implements("Text") {
			pos = n.TextLen
		}
	}
	tk, _ := b.knownToolkit(o.Name)
	return b.boolCall(ctx, o, "InsertText", ifaceEditableText+".InsertText", int32(pos), text, int32(tk.textLength(text)))
}

// GetText reads the object's whole text (Text.GetText), up to MaxTextRead
// characters. Refused no_text, naming the interfaces, when the object has
// no Text interface.
func (b *Bus) GetText(ctx context.Context, o Object) (string, error) {
	n, err := b.Node(ctx, o)
	if err != nil {
		return "", err
	}
	if !n.Implements("Text") {
		return "", describe(target.Refuse(target.CodeNoText, "%s has no text to read (no Text interface)", label(n)), o, n)
	}
	if n.TextLen == 0 {
		return "", nil
	}
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	s, err := b.route(cctx, o.Name).call(cctx, o.Path, ifaceText+".GetText", int32(0), int32(min(n.TextLen, MaxTextRead))).str()
	if err != nil {
		return "", objRefusal(o, "GetText", err)
	}
	return s, nil
}

// editable checks that o can take text through the tree, and returns its
// fields as read for the check (Node: its toolkit is known after it).
func (b *Bus) editable(ctx context.Context, o Object) (*target.Node, error) {
	n, err := b.Node(ctx, o)
	if err != nil {
		return nil, err
	}
	return n, editable(o, n)
}

// editable refuses an object, whose own fields are n, that takes no text.
func editable(o Object, n *target.Node) error {
	switch {
	case !n.Implements("EditableText"):
		return describe(target.Refuse(target.CodeNoEditableText, "%s takes no text through the tree (no EditableText interface)", label(n)), o, n)
	case !n.Sensitive():
		return describe(target.Refuse(target.CodeNotSensitive, "%s is disabled (not sensitive); it takes no text", label(n)), o, n)
	case !n.Has("editable"):
		return describe(target.Refuse(target.CodeNotEditable, "%s is not editable (read-only)", label(n)), o, n)
	}
	return nil
}

// boolCall makes a call that answers a boolean; false is refused declined:
// the application refused the change.
func (b *Bus) boolCall(ctx context.Context, o Object, what, method string, args ...any) error {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, o.Name).call(cctx, o.Path, method, args...).boolean()
	if err != nil {
		return objRefusal(o, what, err)
	}
	if !ok {
		return target.Refuse(target.CodeDeclined, "the application declined %s", what).With("object", o.Key())
	}
	return nil
}

// strconvQuote quotes s for a sentence, keeping printable Unicode.
func strconvQuote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:60]) + "…"
	}
	return strconv.Quote(s)
}
