package cdp

// HeldObjects are the JS object ids of the nodes the tab holds, oldest
// first (tests only).
func (t *Tab) HeldObjects() []string {
	t.held.mu.Lock()
	defer t.held.mu.Unlock()
	var out []string
	for _, h := range t.held.nodes {
		out = append(out, string(h.objectID))
	}
	return out
}
