package x11

import (
	"context"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"
)

// remapState tracks the spare keycodes (keycodes with no keysym at all) that
// we bound to keysyms the keymap lacks, so that any character can be typed.
//
// The catch is the client side: a toolkit translates a key event with the
// keymap it fetches when it *reads* the event, which can be long after the
// server queued it. Rebinding or restoring a keycode before the focused
// client has read the events typed through it makes the client see the new
// binding. So a keycode typed through is rebound or restored only after the
// client has answered a _NET_WM_PING sent after those events (clientsync.go);
// if it cannot answer, the binding stays until Close, and a forced rebind
// waits a grace period first.
type remapState struct {
	bound    map[byte]uint32 // spare keycode → the keysym we bound to it
	unsynced bool            // a bound keycode was typed through since the last client sync
}

// rebindGrace is how long a rebind waits when the focused client cannot
// tell us it has read the earlier events.
const rebindGrace = 150 * time.Millisecond

// spareCodes lists the keycodes we may bind: empty ones and the ones we
// bound ourselves, never a modifier key, never keycode 8 (which some
// clients ignore), highest first.
func (d *Display) spareCodes(km *keymap) []byte {
	var out []byte
	for c := int(km.max); c > int(km.min) && c > 8; c-- {
		code := byte(c)
		if km.modCodes[code] {
			continue
		}
		if _, ours := d.ext.km.bound[code]; ours || km.empty(code) {
			out = append(out, code)
		}
	}
	return out
}

// planSlots binds spare keycodes to the keysyms in need (missing from the
// keymap, in order of first use), as many as there are spare keycodes not
// needed by another of them, and records them in km.index. The caller holds
// inMu.
func (d *Display) planSlots(ctx context.Context, in *injection, km *keymap, need []uint32) error {
	if d.ext.km.bound == nil {
		d.ext.km.bound = make(map[byte]uint32)
	}
	spare := d.spareCodes(km)
	// Free keycodes first (never bound, or bound to a keysym not needed now).
	needSet := make(map[uint32]bool, len(need))
	for _, s := range need {
		needSet[s] = true
	}
	var free, stale []byte
	for _, c := range spare {
		s, ours := d.ext.km.bound[c]
		switch {
		case !ours:
			free = append(free, c)
		case !needSet[s]:
			stale = append(stale, c)
		}
	}
	binds := map[byte]uint32{}
	rebinding := false
	for _, s := range need {
		if _, ok := km.index[s]; ok {
			continue
		}
		var c byte
		switch {
		case len(free) > 0:
			c, free = free[0], free[1:]
		case len(stale) > 0:
			c, stale = stale[0], stale[1:]
			rebinding = true
		default:
			return d.bind(ctx, in, km, binds, rebinding)
		}
		binds[c] = s
		km.index[s] = keyPos{code: c}
	}
	return d.bind(ctx, in, km, binds, rebinding)
}

// bind sends the ChangeKeyboardMapping requests for binds. If it rebinds a
// keycode typed through earlier, the focused client must have read those
// events first.
func (d *Display) bind(ctx context.Context, in *injection, km *keymap, binds map[byte]uint32, rebinding bool) error {
	if len(binds) == 0 {
		return nil
	}
	d.forgetKeymap() // planSlots added binds to its index
	if rebinding && d.ext.km.unsynced {
		if err := d.syncClient(ctx); err != nil {
			if err := in.stopped(); err != nil {
				return err
			}
			if err := sleepCtx(ctx, rebindGrace); err != nil {
				return timeoutRefusal("rebind a spare keycode", err)
			}
		}
		d.ext.km.unsynced = false
	}
	codes := make([]byte, 0, len(binds))
	for c := range binds {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		s := binds[c]
		syms := make([]xproto.Keysym, km.per)
		syms[0] = xproto.Keysym(s)
		if km.per > 1 {
			syms[1] = xproto.Keysym(s)
		}
		xproto.ChangeKeyboardMapping(d.conn, 1, xproto.Keycode(c), byte(km.per), syms)
		d.ext.km.bound[c] = s
	}
	return nil
}

// restoreKeymap unbinds every spare keycode we bound, once the focused client
// has read what was typed through them. If the client cannot say so, the
// bindings stay (they are harmless: those keycodes have no physical key)
// unless force is set, as it is at Close. The caller holds inMu.
func (d *Display) restoreKeymap(ctx context.Context, force bool) error {
	if len(d.ext.km.bound) == 0 {
		return nil
	}
	if d.ext.km.unsynced {
		if err := d.syncClient(ctx); err != nil && !force {
			return nil
		}
	}
	km, err := d.loadKeymap(ctx)
	if err != nil {
		return err
	}
	d.forgetKeymap()
	for c, s := range d.ext.km.bound {
		// Restore only what is still ours: another client may have bound it since.
		if km.sym(c, 0) == s {
			xproto.ChangeKeyboardMapping(d.conn, 1, xproto.Keycode(c), byte(km.per), make([]xproto.Keysym, km.per))
		}
		delete(d.ext.km.bound, c)
	}
	d.ext.km.unsynced = false
	return d.sync(ctx, "restore keymap")
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
