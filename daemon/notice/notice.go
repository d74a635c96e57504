// Package notice keeps what the daemon owes in words: what it lost or
// could not restore (a state file set aside, a window whose display died,
// a tab that went with a killed daemon's browser), told on the next
// answer of whoever it concerns, and the files it cannot write now.
//
//   - A notice for one session is told once, on that session's next
//     answer (of the command line it concerns, when it is about a target:
//     a tab's on vibespace-browser's words, a window's on
//     vibespace-window's), and kept in the daemon's state until then
//     (Record, Restore), so a restart does not drop it.
//   - A notice for everyone (Session "") is told once to each session
//     that asks while this daemon runs, and status lists it (Standing).
//
// A leaf: the daemon persists and logs; the Book only keeps.
package notice

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/target"
)

// Notice is one thing owed in words.
type Notice struct {
	Session string          `json:"session,omitempty"` // "" everyone
	Target  target.ID       `json:"target,omitempty"`  // what it is about, if one target
	Text    string          `json:"text"`
	At      time.Time       `json:"at"`
	told    map[string]bool // for everyone's: the sessions told
}

// Book is the notices owed and the files not written now. Its zero value
// is ready; it is safe for concurrent use.
type Book struct {
	mu    sync.Mutex
	list  []*Notice
	conds map[string]condition
}

type condition struct {
	since time.Time
	err   string
}

// Add owes n.
func (b *Book) Add(n Notice) {
	b.mu.Lock()
	b.list = append(b.list, &n)
	b.mu.Unlock()
}

// Tell answers the notices owed to session on an answer (of
// vibespace-browser's words when browser), marking them told: a session's
// own are dropped (dropped: the caller persists the drop), an everyone's
// remembers the session.
func (b *Book) Tell(session string, browser bool) (text string, dropped bool) {
	var told []string
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := b.list[:0]
	for _, n := range b.list {
		switch {
		case n.Session == "":
			if !n.told[session] {
				if n.told == nil {
					n.told = map[string]bool{}
				}
				n.told[session] = true
				told = append(told, n.Text)
			}
			keep = append(keep, n)
		case n.Session == session && (n.Target == "" || (n.Target.Kind() == target.KindTab) == browser):
			told = append(told, n.Text)
			dropped = true
		default:
			keep = append(keep, n)
		}
	}
	clear(b.list[len(keep):])
	b.list = keep
	return strings.Join(told, "; "), dropped
}

// Standing are everyone's notices, each with when, for status.
func (b *Book) Standing() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, n := range b.list {
		if n.Session == "" {
			out = append(out, n.At.Format(time.RFC3339)+": "+n.Text)
		}
	}
	return out
}

// DropEveryones drops everyone's notices whose words begin with prefix.
func (b *Book) DropEveryones(prefix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = slices.DeleteFunc(b.list, func(n *Notice) bool { return n.Session == "" && strings.HasPrefix(n.Text, prefix) })
}

// Record is what the daemon's state keeps of the notices: the sessions'
// own not told yet (everyone's are this daemon's to tell); nil for none.
func (b *Book) Record() json.RawMessage {
	b.mu.Lock()
	var keep []Notice
	for _, n := range b.list {
		if n.Session != "" {
			keep = append(keep, *n)
		}
	}
	b.mu.Unlock()
	if len(keep) == 0 {
		return nil
	}
	raw, _ := json.Marshal(keep)
	return raw
}

// Restore takes back the notices an earlier daemon had not told (a
// Record), skipping one owed already.
func (b *Book) Restore(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var ns []Notice
	if err := json.Unmarshal(raw, &ns); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range ns {
		if n.Session != "" && n.Text != "" && !slices.ContainsFunc(b.list, func(m *Notice) bool { return m.Session == n.Session && m.Target == n.Target && m.Text == n.Text }) {
			b.list = append(b.list, &n)
		}
	}
	return nil
}

// Wrote records the outcome of a write of the file name ("state.json",
// "budgets.json", …) at now: an error starts a condition, nil ends one.
// It answers the words owed to everyone when one starts or ends ("" when
// nothing changed).
func (b *Book) Wrote(name string, err error, now time.Time) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, held := b.conds[name]
	switch {
	case err != nil && !held:
		if b.conds == nil {
			b.conds = map[string]condition{}
		}
		b.conds[name] = condition{since: now, err: Cause(err)}
		return name + " could not be written (" + Cause(err) + "): what it keeps will not survive a restart until it can be written again"
	case err == nil && held:
		delete(b.conds, name)
		return fmt.Sprintf("%s is written again; it was not written from %s to %s (%s)", name, c.since.Format(time.RFC3339), now.Format(time.RFC3339), c.err)
	}
	return ""
}

// WriteFaults are status's lines for the files not written now.
func (b *Book) WriteFaults() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for name, c := range b.conds {
		out = append(out, name+" not written since "+c.since.Format(time.RFC3339)+" ("+c.err+")")
	}
	sort.Strings(out)
	return out
}

// Cause is an error's last words (the cause), without the paths and
// prefixes wrapped around it: "no space left on device".
func Cause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// Join joins notes, skipping empty ones.
func Join(ns ...string) string {
	return strings.Join(slices.DeleteFunc(ns, func(s string) bool { return s == "" }), "; ")
}
