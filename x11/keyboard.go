package x11

import (
	"context"

	"github.com/vibespace/vibespace/target"
)

// Key presses chord c: its modifiers down (in the order ctrl, alt, shift,
// super), the key down and up, the modifiers up in reverse. A key that needs
// Shift on this keymap ("plus" on a US layout) gets Shift added; a key the
// keymap lacks is typed through a spare keycode bound for the purpose.
func (d *Display) Key(ctx context.Context, c target.Chord) error {
	if c.Keysym == 0 {
		return target.Refuse(target.CodeBadChord, "chord %q has no key", c.String()).With("chord", c.String())
	}
	return d.inject(ctx, "key "+c.String(), func(in *injection) error {
		km, err := d.loadKeymap(ctx)
		if err != nil {
			return err
		}
		if err := d.planSlots(ctx, in, km, []uint32{c.Keysym}); err != nil {
			return err
		}
		pos, ok := km.index[c.Keysym]
		if !ok {
			return target.Refuse(target.CodeBadChord, "no keycode is free to type %q", c.Key).With("chord", c.String())
		}
		mods := c.Mods
		if pos.shift {
			mods |= target.ModShift
		}
		var down []byte
		for _, m := range mods.List() {
			code, err := km.modifierCode(m)
			if err != nil {
				return err
			}
			if err := in.key(code, true); err != nil {
				return err
			}
			down = append(down, code)
		}
		if _, ours := d.ext.km.bound[pos.code]; ours {
			d.ext.km.unsynced = true
		}
		if err := in.key(pos.code, true); err != nil {
			return err
		}
		if err := in.key(pos.code, false); err != nil {
			return err
		}
		for i := len(down) - 1; i >= 0; i-- {
			if err := in.key(down[i], false); err != nil {
				return err
			}
		}
		return d.restoreKeymap(ctx, false)
	})
}

// Type types text exactly into whatever has the keyboard focus, at full
// speed (no delay between keys; one round trip at the end). Characters on
// the keymap are typed with Shift where they need it; any other character
// is typed through spare keycodes bound for it, which are restored once the
// focused client has read the keys (see remapState). Newline (or CR LF)
// types Return and tab types Tab. Caps Lock or Num Lock left on by someone
// else is not undone.
//
// A cancelled ctx, or a ReleaseAll from elsewhere, stops the typing between
// two key events; every key it holds is released before Type returns.
func (d *Display) Type(ctx context.Context, text string) error {
	syms := make([]uint32, 0, len(text))
	for i, r := range text {
		if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue // CR LF is one newline
		}
		s, ok := target.RuneKeysym(r)
		if !ok {
			return target.Refuse(target.CodeBadRequest, "character %U at byte %d cannot be typed", r, i).With("offset", i)
		}
		syms = append(syms, s)
	}
	if len(syms) == 0 {
		return nil
	}
	return d.inject(ctx, "type", func(in *injection) error {
		km, err := d.loadKeymap(ctx)
		if err != nil {
			return err
		}
		shift, err := km.modifierCode(target.ModShift)
		if err != nil {
			return err
		}
		for i := 0; i < len(syms); {
			if err := d.planSlots(ctx, in, km, missing(km, syms[i:])); err != nil {
				return err
			}
			start := i
			for ; i < len(syms); i++ {
				pos, ok := km.index[syms[i]]
				if !ok {
					break // its keycode is bound in the next round
				}
				if _, ours := d.ext.km.bound[pos.code]; ours {
					d.ext.km.unsynced = true
				}
				if err := in.tap(pos, shift); err != nil {
					return err
				}
			}
			if i == start {
				return target.Refuse(target.CodeNoInjectionBackend, "no spare keycode to type %U", rune(syms[i]&0xffffff))
			}
		}
		return d.restoreKeymap(ctx, false)
	})
}

// tap presses and releases the key at pos, with Shift around it if needed.
func (in *injection) tap(pos keyPos, shift byte) error {
	if pos.shift {
		if err := in.key(shift, true); err != nil {
			return err
		}
	}
	if err := in.key(pos.code, true); err != nil {
		return err
	}
	if err := in.key(pos.code, false); err != nil {
		return err
	}
	if pos.shift {
		return in.key(shift, false)
	}
	return nil
}

// missing lists the keysyms of syms that the keymap lacks, each once, in
// order of first use.
func missing(km *keymap, syms []uint32) []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	for _, s := range syms {
		if _, ok := km.index[s]; !ok && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
