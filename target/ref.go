package target

import (
	"strconv"
	"strings"
	"sync"
)

// RefTable mints the refs of one target ("@e1", "@e2", …) and maps each to
// the backend's key for the object (AT-SPI: bus name + object path; CDP: a
// backendNodeId). A key keeps its ref for the table's life, so an unchanged
// object has the same ref in every snapshot; a ref is never reused for
// another key. Safe for concurrent use.
type RefTable struct {
	mu    sync.Mutex
	byKey map[string]string
	keys  []string // keys[i] is the key of "@e<i+1>"
}

// NewRefTable returns an empty table.
func NewRefTable() *RefTable {
	return &RefTable{byKey: make(map[string]string)}
}

// Ref returns the ref of key, minting the next one if the key is new.
func (t *RefTable) Ref(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.byKey[key]; ok {
		return r
	}
	t.keys = append(t.keys, key)
	r := "@e" + strconv.Itoa(len(t.keys))
	t.byKey[key] = r
	return r
}

// Key returns the backend key a ref was minted for. A ref that is not of the
// form "@eN" (the "@" may be omitted) is refused bad_ref, and so is one this
// table never minted (from another target, or from before a daemon restart):
// the ref names nothing here. stale_ref is for a ref that did name a node
// which is now gone — the backend says that when it resolves the key.
func (t *RefTable) Key(ref string) (string, error) {
	s := strings.TrimPrefix(ref, "@")
	num, ok := strings.CutPrefix(s, "e")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || strconv.Itoa(n) != num {
		return "", Refuse(CodeBadRef, "%s is not a ref; refs look like @e7 and come from snapshot", Echo(ref)).With("ref", Clip(ref))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > len(t.keys) {
		return "", Refuse(CodeBadRef, "ref @e%d was never minted for this target; take a new snapshot", n).With("ref", "@e"+num)
	}
	return t.keys[n-1], nil
}

// Len is the number of refs minted so far.
func (t *RefTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys)
}

// Assign sets Ref on every node of the snapshot that has a Key, minting
// refs in depth-first order for keys the table has not seen.
func (t *RefTable) Assign(s *Snapshot) {
	if s == nil || s.Root == nil {
		return
	}
	s.Root.Walk(func(n *Node, _ int) bool {
		if n.Key != "" {
			n.Ref = t.Ref(n.Key)
		}
		return true
	})
}
