package x11

import (
	"context"

	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// keyPos is where a keysym sits in the keymap: its keycode and whether it
// needs Shift (level 2 of group 1).
type keyPos struct {
	code  byte
	shift bool
}

// keymap is a snapshot of the server's core keyboard mapping and of the
// keycodes that produce our four modifiers.
type keymap struct {
	min, max byte
	per      int      // keysyms per keycode
	syms     []uint32 // (max-min+1)*per keysyms, keycode min first
	index    map[uint32]keyPos
	mods     map[target.Modifiers]byte // modifier → a keycode that sets it
	modCodes map[byte]bool             // every keycode in the modifier map
}

// Keysyms of the modifier keys, by the modifier they should set.
var modKeysyms = map[target.Modifiers][]uint32{
	target.ModShift: {0xffe1, 0xffe2},         // Shift_L, Shift_R
	target.ModCtrl:  {0xffe3, 0xffe4},         // Control_L, Control_R
	target.ModAlt:   {0xffe9, 0xffea, 0xffe7}, // Alt_L, Alt_R, Meta_L
	target.ModSuper: {0xffeb, 0xffec},         // Super_L, Super_R
}

// loadKeymap is the keyboard and modifier mappings: as last read, unless
// the server has said since that they changed (MappingNotify, which X
// sends every client when any client changes them: a layout switch by
// another client is seen as soon as its notice reaches us), else read
// afresh in one round trip. The caller holds inMu, and may add to the
// index what it binds (planSlots): binding drops the keymap kept
// (forgetKeymap).
func (d *Display) loadKeymap(ctx context.Context) (*keymap, error) {
	gen := d.ext.mapGen.Load()
	if d.ext.keymap != nil && d.ext.keymapGen == gen {
		return d.ext.keymap, nil
	}
	km, err := d.readKeymap(ctx)
	if err != nil {
		return nil, err
	}
	// Read after gen was taken: a change notified since is seen next time.
	d.ext.keymap, d.ext.keymapGen = km, gen
	return km, nil
}

// forgetKeymap drops the keymap kept: we are changing the mapping. The
// caller holds inMu.
func (d *Display) forgetKeymap() { d.ext.keymap = nil }

// readKeymap reads the keyboard and modifier mappings in one round trip.
func (d *Display) readKeymap(ctx context.Context) (*keymap, error) {
	setup := xproto.Setup(d.conn)
	min, max := setup.MinKeycode, setup.MaxKeycode
	return call(ctx, d, "read keymap", func() (*keymap, error) {
		kc := xproto.GetKeyboardMapping(d.conn, min, byte(int(max)-int(min)+1))
		mc := xproto.GetModifierMapping(d.conn)
		kr, err := kc.Reply()
		if err != nil {
			_, _ = mc.Reply()
			return nil, err
		}
		mr, err := mc.Reply()
		if err != nil {
			return nil, err
		}
		km := &keymap{
			min: byte(min), max: byte(max), per: int(kr.KeysymsPerKeycode),
			index: make(map[uint32]keyPos), mods: make(map[target.Modifiers]byte), modCodes: make(map[byte]bool),
		}
		km.syms = make([]uint32, len(kr.Keysyms))
		for i, s := range kr.Keysyms {
			km.syms[i] = uint32(s)
		}
		// Index level 1 before level 2, low keycodes first, so the plainest
		// key for a keysym wins.
		for level := 0; level < 2 && level < km.per; level++ {
			for code := int(min); code <= int(max); code++ {
				s := km.sym(byte(code), level)
				if level == 1 && s == 0 {
					continue
				}
				if _, ok := km.index[s]; !ok && s != 0 {
					km.index[s] = keyPos{code: byte(code), shift: level == 1}
				}
			}
		}
		per := int(mr.KeycodesPerModifier)
		rows := make([][]byte, 8) // shift, lock, control, mod1..mod5
		for i := range rows {
			for _, c := range mr.Keycodes[i*per : (i+1)*per] {
				if c != 0 {
					rows[i] = append(rows[i], byte(c))
					km.modCodes[byte(c)] = true
				}
			}
		}
		// A modifier key is one whose keysym names it and whose keycode is
		// in the modifier map.
		for m, keysyms := range modKeysyms {
			for _, ks := range keysyms {
				if p, ok := km.index[ks]; ok && km.modCodes[p.code] {
					km.mods[m] = p.code
					break
				}
			}
		}
		if _, ok := km.mods[target.ModShift]; !ok && len(rows[0]) > 0 {
			km.mods[target.ModShift] = rows[0][0]
		}
		if _, ok := km.mods[target.ModCtrl]; !ok && len(rows[2]) > 0 {
			km.mods[target.ModCtrl] = rows[2][0]
		}
		return km, nil
	})
}

// sym is the keysym at level (0-based, group 1 levels 1 and 2 are 0 and 1)
// of keycode code. The core protocol rule applies: a single keysym on a key
// counts for both levels (lower/upper case aside, which X handles itself).
func (km *keymap) sym(code byte, level int) uint32 {
	if code < km.min || code > km.max || level >= km.per {
		return 0
	}
	return km.syms[(int(code-km.min))*km.per+level]
}

// empty reports whether keycode code has no keysym at all.
func (km *keymap) empty(code byte) bool {
	for l := 0; l < km.per; l++ {
		if km.sym(code, l) != 0 {
			return false
		}
	}
	return true
}

// modifierCode is the keycode to hold for modifier m.
func (km *keymap) modifierCode(m target.Modifiers) (byte, error) {
	if c, ok := km.mods[m]; ok {
		return c, nil
	}
	return 0, target.Refuse(target.CodeBadChord, "the keyboard has no %s key in its modifier map", m).With("modifier", m.String())
}
