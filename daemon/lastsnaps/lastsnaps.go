// Package lastsnaps is each session's last snapshot of one target, kept
// for snapshot --diff, out of the daemon's core: one tree per session,
// bounded in number (MaxSessions) and in bytes (MaxBytes), the oldest
// forgotten first (its next --diff answers whole).
//
// A Book holds no lock: the core keeps one beside each target and guards
// it with its own (Daemon.mu); Size reads a tree and needs none, so it is
// counted before the lock is taken. The package never imports the core
// (layout_test.go).
package lastsnaps

import (
	"slices"

	"github.com/vibespace/vibespace/target"
)

// MaxSessions bounds how many sessions' last snapshots a target
// keeps; the oldest is forgotten first (its next --diff answers whole).
const MaxSessions = 16

// MaxBytes bounds the size of the snapshots a target keeps for
// --diff, across its sessions (as Size counts it): the oldest are
// forgotten first, and a tree larger than this alone is not kept (the
// next --diff answers whole).
const MaxBytes = 8 << 20

// Book is each session's last snapshot of one target: one tree per
// session, gone with the target's entry, or with the session's lease of it
// (detach). The zero Book keeps none.
type Book struct {
	by    map[string]*target.Snapshot
	size  map[string]int // Size of each
	bytes int            // their sum
	order []string       // sessions, oldest first
}

// Forget drops session's snapshot.
func (l *Book) Forget(session string) {
	if _, had := l.by[session]; !had {
		return
	}
	l.bytes -= l.size[session]
	delete(l.by, session)
	delete(l.size, session)
	l.order = slices.DeleteFunc(l.order, func(s string) bool { return s == session })
}

// Len is how many sessions' snapshots are kept.
func (l *Book) Len() int { return len(l.by) }

// Size is about how many bytes a kept snapshot holds: its nodes'
// strings and a node's fixed part.
func Size(snap *target.Snapshot) int {
	n := 0
	if snap.Root != nil {
		snap.Root.Walk(func(x *target.Node, _ int) bool {
			n += 256 + len(x.Ref) + len(x.Role) + len(x.Name) + len(x.Description) + len(x.Text) + len(x.Key) + len(x.Unreadable)
			for _, s := range x.States {
				n += 16 + len(s)
			}
			for _, s := range x.Actions {
				n += 16 + len(s)
			}
			n += 16 * len(x.Interfaces) // their strings are the backend's shared ones
			return true
		})
	}
	return n
}

// Keep keeps snap, of size (Size), as the session's last snapshot and
// answers the one it replaces (nil: none).
func (l *Book) Keep(session string, snap *target.Snapshot, size int) *target.Snapshot {
	if l.by == nil {
		l.by, l.size = map[string]*target.Snapshot{}, map[string]int{}
	}
	prev := l.by[session]
	l.Forget(session)
	if size > MaxBytes {
		return prev
	}
	for len(l.order) > 0 && (len(l.order) >= MaxSessions || l.bytes+size > MaxBytes) {
		l.Forget(l.order[0])
	}
	l.by[session], l.size[session] = snap, size
	l.bytes += size
	l.order = append(l.order, session)
	return prev
}
