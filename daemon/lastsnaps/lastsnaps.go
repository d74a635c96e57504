// Package lastsnaps is each session's last snapshots of one target, kept
// for snapshot --diff, out of the daemon's core: a tree per session and
// view (the whole tree, a scope, the interactive view, a depth), bounded in
// number (MaxSessions) and in bytes (MaxBytes), the oldest forgotten first
// (its next --diff answers whole).
//
// A view's diff is against the last snapshot that showed at least that
// view (Baseline), else the last of any: a scoped, interactive or cut
// snapshot does not move the baseline of the whole tree's --diff once
// there is one, so what it left out is still in the next whole --diff; a
// whole snapshot moves every view's.
//
// A Book holds no lock: the core keeps one beside each target and guards
// it with its own (Daemon.mu); Size reads a tree and needs none, so it is
// counted before the lock is taken. The package never imports the core
// (layout_test.go).
package lastsnaps

import (
	"fmt"
	"slices"

	"github.com/vibespace/vibespace/target"
)

// MaxSessions bounds how many last snapshots a target keeps (a session's
// views each count; most sessions keep one or two); the oldest is
// forgotten first (its next --diff answers whole).
const MaxSessions = 16

// MaxBytes bounds the size of the snapshots a target keeps for
// --diff, across its sessions (as Size counts it): the oldest are
// forgotten first, and a tree larger than this alone is not kept (the
// next --diff answers whole).
const MaxBytes = 8 << 20

// View is what a snapshot showed: the whole tree or the subtree of the
// node Scope keys, all of it or its interactive view, Depth levels of it
// (0: every level).
type View struct {
	Scope       string
	Interactive bool
	Depth       int
}

// Covers reports whether a snapshot of v showed all that one of w shows.
func (v View) Covers(w View) bool {
	if v.Interactive && !w.Interactive {
		return false
	}
	if v.Scope != w.Scope {
		return v.Scope == "" && v.Depth == 0 // the whole tree, every level of it
	}
	return v.Depth == 0 || w.Depth != 0 && w.Depth <= v.Depth
}

// Book is each session's last snapshots of one target, a tree per view:
// gone with the target's entry, or with the session's lease of it
// (detach). The zero Book keeps none.
type Book struct {
	by    map[string]*target.Snapshot // by entry: a session alone for its whole view
	of    map[string]entry
	size  map[string]int // Size of each
	bytes int            // their sum
	order []string       // entries, oldest first
}

// entry is whose a kept tree is and what it showed.
type entry struct {
	session string
	view    View
}

// name is the entry of session's view: the session itself for the whole
// tree (a session name holds no NUL).
func name(session string, v View) string {
	if v == (View{}) {
		return session
	}
	return fmt.Sprintf("%s\x00%s\x00%t\x00%d", session, v.Scope, v.Interactive, v.Depth)
}

// Forget drops session's snapshots.
func (l *Book) Forget(session string) {
	for _, k := range slices.Clone(l.order) {
		if l.of[k].session == session {
			l.drop(k)
		}
	}
}

// drop drops one entry.
func (l *Book) drop(k string) {
	if _, had := l.by[k]; !had {
		return
	}
	l.bytes -= l.size[k]
	delete(l.by, k)
	delete(l.of, k)
	delete(l.size, k)
	l.order = slices.DeleteFunc(l.order, func(s string) bool { return s == k })
}

// Len is how many snapshots are kept.
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

// Baseline is what a --diff of session's view v is against: the newest of
// its snapshots that showed at least v; when none did, its newest of any
// view (every one keeps the whole tree: a plain --diff after snapshot -i
// answers what changed since, not the whole tree); nil when it has none.
func (l *Book) Baseline(session string, v View) *target.Snapshot {
	var newest *target.Snapshot
	for _, k := range slices.Backward(l.order) {
		e := l.of[k]
		if e.session != session {
			continue
		}
		if e.view.Covers(v) {
			return l.by[k]
		}
		if newest == nil {
			newest = l.by[k]
		}
	}
	return newest
}

// Keep keeps snap, of size (Size), as the session's last snapshot of the
// whole tree and answers the one it replaces (nil: none).
func (l *Book) Keep(session string, snap *target.Snapshot, size int) *target.Snapshot {
	return l.KeepView(session, View{}, snap, size)
}

// KeepView keeps snap, the whole tree read for a snapshot of view v, of
// size (Size), as session's last of v, and answers what its --diff is
// against (Baseline, before). The session's snapshots v covers go: it is
// newer than them and shows what they showed.
func (l *Book) KeepView(session string, v View, snap *target.Snapshot, size int) *target.Snapshot {
	if l.by == nil {
		l.by, l.of, l.size = map[string]*target.Snapshot{}, map[string]entry{}, map[string]int{}
	}
	prev := l.Baseline(session, v)
	for _, k := range slices.Clone(l.order) {
		if e := l.of[k]; e.session == session && v.Covers(e.view) {
			l.drop(k)
		}
	}
	if size > MaxBytes {
		return prev
	}
	for len(l.order) > 0 && (len(l.order) >= MaxSessions || l.bytes+size > MaxBytes) {
		l.drop(l.order[0])
	}
	k := name(session, v)
	l.by[k], l.of[k], l.size[k] = snap, entry{session, v}, size
	l.bytes += size
	l.order = append(l.order, k)
	return prev
}

// Named is the role and name the newest of session's kept snapshots that
// shows the node key gave it (nil: none shows it): the node as the agent
// read it, which names the ref an act answers about without asking the
// target again.
func (l *Book) Named(session, key string) *target.NodeTraits {
	for _, k := range slices.Backward(l.order) {
		root := l.by[k].Root
		if key == "" || root == nil || l.of[k].session != session {
			continue
		}
		if n := root.Find(func(n *target.Node) bool { return n.Key == key }); n != nil {
			return &target.NodeTraits{Role: n.Role, Name: n.Name}
		}
	}
	return nil
}
