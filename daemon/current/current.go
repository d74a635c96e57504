// Package current keeps each session's current tab per browser context:
// the tab vibespace-browser's words act on when none is named, set when a
// tab is opened or chosen and forgotten when it goes. A leaf the core asks
// (the shared model and the seam's browser key, nothing else of ours).
package current

import (
	"sync"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Tabs is the table of current tabs. Its zero value is ready; it is safe
// for concurrent use.
type Tabs struct {
	mu sync.Mutex
	m  map[string]target.ID // session + "\x00" + context key → its current tab
}

func keyOf(session string, k kind.BrowserKey) string { return session + "\x00" + k.String() }

// Get is session's current tab in key's context.
func (t *Tabs) Get(session string, key kind.BrowserKey) (target.ID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.m[keyOf(session, key)]
	return id, ok
}

// Set makes id session's current tab in key's context.
func (t *Tabs) Set(session string, key kind.BrowserKey, id target.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]target.ID)
	}
	t.m[keyOf(session, key)] = id
}

// Forget drops id from every session's current tabs.
func (t *Tabs) Forget(id target.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range t.m {
		if v == id {
			delete(t.m, k)
		}
	}
}
