package x11

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// extState is the per-connection state of XTEST, MIT-SHM and the keyboard
// mapping: what we hold down, which spare keycodes we remapped, and the
// shared-memory segment used for captures.
type extState struct {
	// inMu serialises injections: one chord, text or click at a time, so
	// their events never interleave.
	inMu sync.Mutex
	// epoch is bumped by ReleaseAll; an injection that sees it change stops
	// between two events (a takeover must not wait for a long text).
	epoch atomic.Uint64

	heldMu   sync.Mutex    // guards the fields below it
	xtestOK  bool          // the XTEST probe has answered
	xtestErr error         // its answer
	keys     map[byte]bool // keycodes we pressed and did not release
	buttons  map[byte]bool // buttons we pressed and did not release

	km remapState // spare keycodes bound to keysyms the keymap lacked (guarded by inMu)

	// mapGen counts the MappingNotify events of the keyboard and modifier
	// mappings this connection has read (drainEvents): X sends one to
	// every client when any client changes them.
	mapGen atomic.Uint64
	// keymap is the mappings as last read and the mapGen they were read
	// at (guarded by inMu): kept while mapGen stays, dropped when we
	// change the mapping ourselves.
	keymap    *keymap
	keymapGen uint64

	pongMu sync.Mutex
	pong   *pongListener // answers to _NET_WM_PING, opened on first need

	shm shmState

	dmg damageState // DAMAGE watchers (damage.go)

	res resState // X-Resource: which process made a window (clients.go)
}

// beforeClose releases what we hold and restores the keymap before the
// connection closes.
func (d *Display) beforeClose(ctx context.Context) error {
	err := d.ReleaseAll(ctx)
	d.ext.inMu.Lock()
	err = errors.Join(err, d.restoreKeymap(ctx, true))
	d.ext.inMu.Unlock()
	d.closeShm()
	d.closeSync()
	return err
}
