package cdp

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/input"

	"github.com/vibespace/vibespace/target"
)

// releaseTimeout bounds the calls that let go of a key or button after an
// injection was cancelled.
const releaseTimeout = 2 * time.Second

// Point is a position in the tab's viewport, in CSS pixels.
type Point struct{ X, Y float64 }

// Click clicks the node nr with the left button at its centre, after
// scrolling it into view and checking it is visible, enabled and not
// covered by another element there. It refuses stale_ref, not_visible,
// not_sensitive or covered instead of clicking something else.
func (t *Tab) Click(ctx context.Context, nr NodeRef) error {
	p, err := t.actionable(ctx, nr, true, noFocus)
	if err != nil {
		return err
	}
	return t.ClickAt(ctx, Point{p.X, p.Y})
}

// ClickAt clicks the left button at a viewport point (the point road).
//
// The move, press and release are pipelined: all three go out before any
// reply is read (the browser runs them in order), so the click costs about
// one round trip instead of three. ctx is checked before each is sent: a
// click cancelled before its press goes out presses nothing. Once the press
// is out the release always follows, even when ctx has ended, so a takeover
// never finds the button held.
func (t *Tab) ClickAt(ctx context.Context, at Point) error {
	mouse := func(ctx context.Context, typ input.DispatchMouseEventType, buttons int64) (*inflight, error) {
		p := &input.DispatchMouseEventParams{Type: typ, X: at.X, Y: at.Y, Buttons: buttons}
		if typ != input.DispatchMouseEventTypeMouseMoved {
			p.Button = input.MouseButtonLeft
			p.ClickCount = 1
		}
		return t.sess.send(ctx, input.CommandDispatchMouseEvent, p)
	}
	moved, err := mouse(ctx, input.DispatchMouseEventTypeMouseMoved, 0)
	if err != nil {
		return t.fail(err)
	}
	pressed, err := mouse(ctx, input.DispatchMouseEventTypeMousePressed, 1)
	if err != nil { // not sent: nothing is held
		return t.fail(err)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	released, err := mouse(rctx, input.DispatchMouseEventTypeMouseReleased, 0)
	if err != nil { // only a session or connection that ended fails here
		return t.fail(err)
	}
	return t.fail(t.waitAll(ctx, moved, pressed, released))
}

// waitAll reads the replies of pipelined commands and returns the first
// error.
func (t *Tab) waitAll(ctx context.Context, ps ...*inflight) error {
	var first error
	for _, p := range ps {
		if err := t.sess.wait(ctx, p, nil); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Fill replaces the content of the text field nr with text, as a paste
// would (Input.insertText: one input event, no key events). The field must
// be visible, enabled and editable (not_editable otherwise).
func (t *Tab) Fill(ctx context.Context, nr NodeRef, text string) error {
	if _, err := t.actionable(ctx, nr, false, focusSelectAll); err != nil {
		return err
	}
	return t.replaceFocused(ctx, text)
}

// replaceFocused replaces the selected content of the focused field with
// text by the paste road (Input.insertText), or deletes it as a Delete key
// does when text is empty.
func (t *Tab) replaceFocused(ctx context.Context, text string) error {
	if text == "" {
		return t.press(ctx, 0, namedKeys["Delete"])
	}
	return t.InsertText(ctx, text)
}

// Type types text key by key into the focused element. Every character
// is a key press (keydown, keypress, input, keyup); newline is Return and
// tab is Tab. ctx is checked between characters: a cancelled Type stops
// where it is and holds no key.
func (t *Tab) Type(ctx context.Context, text string) error {
	for _, r := range text {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.press(ctx, 0, runeKey(r)); err != nil {
			return err
		}
	}
	return nil
}

// InsertText inserts text where the focused element's caret is, as a paste
// would (Input.insertText: one input event, no key events).
func (t *Tab) InsertText(ctx context.Context, text string) error {
	if err := t.sess.Call(ctx, input.CommandInsertText, &input.InsertTextParams{Text: text}, nil); err != nil {
		return t.fail(err)
	}
	return nil
}

// Focus focuses the text field nr, caret at the end of its content, once it
// is visible, in the viewport, enabled and editable (Type then types into
// it).
func (t *Tab) Focus(ctx context.Context, nr NodeRef) error {
	_, err := t.actionable(ctx, nr, false, focusCaretEnd)
	return err
}

// Key presses a chord ("ctrl+a", "shift+Tab", "Return") in the focused
// element: modifiers down, the key down and up, modifiers up. A key CDP
// has no name for is refused bad_chord.
func (t *Tab) Key(ctx context.Context, chord target.Chord) error {
	d, ok := keyFor(chord)
	if !ok {
		return target.Refuse(target.CodeBadChord, "key %q has no browser equivalent", chord.Key).With("chord", chord.String())
	}
	var mods int64
	var held []keyDef
	release := func() {
		rctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
		defer cancel()
		for i := len(held) - 1; i >= 0; i-- {
			_ = t.keyEvent(rctx, input.DispatchKeyEventTypeKeyUp, 0, held[i])
		}
	}
	for _, m := range modifierKeys {
		if !chord.Mods.Has(m.mod) {
			continue
		}
		if err := ctx.Err(); err != nil {
			release()
			return err
		}
		mods |= m.bit
		if err := t.keyEvent(ctx, input.DispatchKeyEventTypeRawKeyDown, mods, m.def); err != nil {
			release()
			return t.fail(err)
		}
		held = append(held, m.def)
	}
	if err := ctx.Err(); err != nil {
		release()
		return err
	}
	// With ctrl, alt or super held the key types nothing: it is a shortcut.
	if mods&(cdpCtrl|cdpAlt|cdpMeta) != 0 {
		d.text = ""
	}
	err := t.press(ctx, mods, d)
	release()
	return err
}

// press sends one key down and up with the modifiers held, pipelined (both
// go out before either reply is read). ctx is checked before the key down
// is sent; once it is out the key up always follows, even when ctx has
// ended, so no key is left held, and press waits (bounded) for both
// replies, which come once the page has handled the key: when a cancelled
// Type returns, no key of it is still on its way to the page.
func (t *Tab) press(ctx context.Context, mods int64, d keyDef) error {
	down := input.DispatchKeyEventTypeRawKeyDown
	if d.text != "" {
		down = input.DispatchKeyEventTypeKeyDown
	}
	pd, err := t.sess.send(ctx, input.CommandDispatchKeyEvent, keyParams(down, mods, d))
	if err != nil { // not sent: nothing is held
		return t.fail(err)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	pu, err := t.sess.send(rctx, input.CommandDispatchKeyEvent, keyParams(input.DispatchKeyEventTypeKeyUp, mods, d))
	if err != nil { // only a session or connection that ended fails here
		return t.fail(err)
	}
	return t.fail(t.waitAll(rctx, pd, pu))
}

func (t *Tab) keyEvent(ctx context.Context, typ input.DispatchKeyEventType, mods int64, d keyDef) error {
	return t.sess.Call(ctx, input.CommandDispatchKeyEvent, keyParams(typ, mods, d), nil)
}

func keyParams(typ input.DispatchKeyEventType, mods int64, d keyDef) *input.DispatchKeyEventParams {
	p := &input.DispatchKeyEventParams{
		Type:                  typ,
		Modifiers:             mods,
		Key:                   d.key,
		Code:                  d.code,
		WindowsVirtualKeyCode: d.vk,
		NativeVirtualKeyCode:  d.vk,
	}
	if typ == input.DispatchKeyEventTypeKeyDown {
		p.Text = d.text
		p.UnmodifiedText = d.text
	}
	return p
}

// Scroll turns the mouse wheel by (dx, dy) CSS pixels (positive dy scrolls
// down) at a viewport point, or at the viewport's centre when at is nil.
func (t *Tab) Scroll(ctx context.Context, dx, dy float64, at *Point) error {
	if at == nil {
		var vp struct{ W, H float64 }
		if err := t.EvalInto(ctx, "({W: window.innerWidth, H: window.innerHeight})", &vp); err != nil {
			return err
		}
		at = &Point{vp.W / 2, vp.H / 2}
	}
	// cdproto omits a zero delta, and the browser wants both.
	err := t.sess.Call(ctx, input.CommandDispatchMouseEvent, &wheelParams{
		Type: input.DispatchMouseEventTypeMouseWheel, X: at.X, Y: at.Y, DeltaX: dx, DeltaY: dy,
	}, nil)
	if err != nil {
		return t.fail(fmt.Errorf("scroll: %w", err))
	}
	return nil
}

// wheelParams is Input.dispatchMouseEvent for a wheel turn, deltas always
// sent.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}
