// Package kindtest has doubles of the daemon's kinds for tests that need no
// X server and no browser: a display provider whose windows, trees and
// input are records in memory, and a browser whose tabs are. Each records
// what it received (Events), so a test checks an effect through the double,
// not through the daemon's answer. Only tests import it.
package kindtest

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"

	"github.com/vibespace/vibespace/target"
)

// Event is one thing a double received.
type Event struct {
	Kind   string // "action", "insert", "focus", "raise", "click", "scroll", "key", "type", "release", "input", "fill", "navigate"
	Target string // the window's or tab's key
	Key    string // a node's key; for a click, the key of the window on top
	Text   string
	X, Y   int
}

// Nodes is the tree of every fake window and tab: a button with Action, a
// label without, an entry with EditableText.
var Nodes = map[string]target.NodeTraits{
	"button": {Role: "push button", Name: "Alpha", Interfaces: []string{"Action", "Component"}, Actions: []string{"click"}, Sensitive: true, Focusable: true},
	"label":  {Role: "label", Name: "Press area", Interfaces: []string{"Component"}, Sensitive: true},
	"entry":  {Role: "text", Name: "Name", Interfaces: []string{"EditableText", "Text"}, Sensitive: true, Editable: true, Focusable: true},
}

// NodeOrder is the order of Nodes in a snapshot: @e1 is the root, then
// button @e2, label @e3, entry @e4.
var NodeOrder = []string{"button", "label", "entry"}

// log is an event log shared by a double's targets.
type log struct {
	mu     sync.Mutex
	events []Event
}

func (l *log) add(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// Events is what was received so far.
func (l *log) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

func snapshot(title, rootKey string, frozen bool, ctx context.Context) *target.Snapshot {
	root := &target.Node{Role: "frame", Name: title, Key: rootKey}
	if frozen {
		<-ctx.Done()
		root.Unreadable = "the application did not answer in time"
	} else {
		for _, k := range NodeOrder {
			n := Nodes[k]
			root.Children = append(root.Children, &target.Node{Role: n.Role, Name: n.Name, Interfaces: n.Interfaces, Actions: n.Actions, States: []string{"sensitive", "showing"}, Key: k})
		}
	}
	s := &target.Snapshot{Title: title, Root: root}
	s.Census = root.Count()
	return s
}

func nodeTraits(key string) (target.NodeTraits, error) {
	n, ok := Nodes[key]
	if !ok {
		return n, target.Refuse(target.CodeStaleRef, "node %s is gone", key)
	}
	return n, nil
}

// lookPath refuses a program that is neither on PATH nor a "fake-" name, as
// a real display refuses one it cannot start.
func lookPath(argv []string) error {
	if _, err := exec.LookPath(argv[0]); err != nil && !strings.HasPrefix(argv[0], "fake-") {
		return target.Refuse(target.CodeAppNotFound, "%s: not found", argv[0])
	}
	return nil
}

// record is a fake display's persisted record.
type record struct {
	Name string `json:"name"`
}

func marshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
