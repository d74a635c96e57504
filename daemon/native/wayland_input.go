package native

import (
	"context"
	"time"

	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/target"
)

// Input through the portal's session: keys as X keysyms (the project's
// chord and rune mapping, target.ParseChord and target.RuneKeysym), the
// pointer in a window stream's own coordinates with evdev buttons. Every
// key and button pressed is remembered until it is released, so a verb
// cut short (its ctx cancelled) and ReleaseAll leave nothing held.

// The evdev buttons (linux/input-event-codes.h).
const (
	btnLeft   int32 = 0x110
	btnRight  int32 = 0x111
	btnMiddle int32 = 0x112
)

// evdevButton is the evdev code of a live-view button (1 left, 2 middle,
// 3 right).
func evdevButton(b int) int32 {
	switch b {
	case 2:
		return btnMiddle
	case 3:
		return btnRight
	}
	return btnLeft
}

// modKeysym is the keysym pressed for each modifier (the left key).
var modKeysym = map[target.Modifiers]int32{
	target.ModCtrl:  0xffe3, // Control_L
	target.ModAlt:   0xffe9, // Alt_L
	target.ModShift: 0xffe1, // Shift_L
	target.ModSuper: 0xffeb, // Super_L
}

// releaseBudget bounds releasing what a cut verb held.
const releaseBudget = 2 * time.Second

// held is what our session holds pressed now.
type held struct {
	keys    []int32
	buttons []int32
}

func (r *portalRoad) press(what *[]int32, v int32, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		*what = append(*what, v)
		return
	}
	for i, x := range *what {
		if x == v {
			*what = append((*what)[:i], (*what)[i+1:]...)
			return
		}
	}
}

func (r *portalRoad) key(ctx context.Context, s *portal.Session, sym int32, down bool) error {
	if err := s.KeyboardKeysym(ctx, sym, down); err != nil {
		return err
	}
	r.press(&r.held.keys, sym, down)
	return nil
}

func (r *portalRoad) button(ctx context.Context, s *portal.Session, b int32, down bool) error {
	if err := s.PointerButton(ctx, b, down); err != nil {
		return err
	}
	r.press(&r.held.buttons, b, down)
	return nil
}

// chord presses c's modifiers (ctrl, alt, shift, super), the key down and
// up, and the modifiers up in reverse.
func (r *portalRoad) chord(ctx context.Context, s *portal.Session, c target.Chord) error {
	if c.Keysym == 0 {
		return target.Refuse(target.CodeBadChord, "chord %q has no key", c.String()).With("chord", c.String())
	}
	err := func() error {
		for _, m := range c.Mods.List() {
			if err := r.key(ctx, s, modKeysym[m], true); err != nil {
				return err
			}
		}
		if err := r.key(ctx, s, int32(c.Keysym), true); err != nil {
			return err
		}
		if err := r.key(ctx, s, int32(c.Keysym), false); err != nil {
			return err
		}
		mods := c.Mods.List()
		for i := len(mods) - 1; i >= 0; i-- {
			if err := r.key(ctx, s, modKeysym[mods[i]], false); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		r.releaseAll(ctx)
	}
	return err
}

// focusEvery is how many characters typeText types between two checks that
// its window still has the focus.
const focusEvery = 16

// typeText types text as keysyms, one press and release each; CR LF is one
// Return. A cancelled ctx, or still failing (asked every focusEvery
// characters: the window lost the focus), stops it between characters,
// holding nothing.
func (r *portalRoad) typeText(ctx context.Context, s *portal.Session, text string, still func() error) error {
	syms := make([]int32, 0, len(text))
	for i, ch := range text {
		if ch == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue
		}
		sym, ok := target.RuneKeysym(ch)
		if !ok {
			return target.Refuse(target.CodeBadRequest, "character %U at byte %d cannot be typed", ch, i).With("offset", i)
		}
		syms = append(syms, int32(sym))
	}
	for i, sym := range syms {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i%focusEvery == 0 {
			if err := still(); err != nil {
				r.releaseAll(ctx)
				return err
			}
		}
		if err := r.key(ctx, s, sym, true); err != nil {
			r.releaseAll(ctx)
			return err
		}
		if err := r.key(ctx, s, sym, false); err != nil {
			r.releaseAll(ctx)
			return err
		}
	}
	return nil
}

// click moves to (x, y) of stream st and clicks button b count times.
func (r *portalRoad) click(ctx context.Context, s *portal.Session, st portal.Stream, x, y float64, b int32, count int) error {
	if err := s.PointerMotionAbsolute(ctx, st.Node, x, y); err != nil {
		return err
	}
	for range count {
		if err := r.button(ctx, s, b, true); err != nil {
			r.releaseAll(ctx)
			return err
		}
		if err := r.button(ctx, s, b, false); err != nil {
			r.releaseAll(ctx)
			return err
		}
	}
	return nil
}

// releaseAll releases every key and button the session holds, on a
// context of its own when ctx is done (what a cut verb held is released
// all the same).
func (r *portalRoad) releaseAll(ctx context.Context) error {
	r.mu.Lock()
	s := r.sess
	keys := append([]int32(nil), r.held.keys...)
	buttons := append([]int32(nil), r.held.buttons...)
	r.held = held{}
	r.mu.Unlock()
	if s == nil || (len(keys) == 0 && len(buttons) == 0) {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBudget)
	defer cancel()
	var first error
	for i := len(keys) - 1; i >= 0; i-- {
		if err := s.KeyboardKeysym(rctx, keys[i], false); err != nil && first == nil {
			first = err
		}
	}
	for _, b := range buttons {
		if err := s.PointerButton(rctx, b, false); err != nil && first == nil {
			first = err
		}
	}
	return first
}
