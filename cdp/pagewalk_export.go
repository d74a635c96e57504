package cdp

import (
	"encoding/json"
	"fmt"

	"github.com/vibespace/vibespace/target"
)

// WalkJS is the page road's walk (pagewalk.js), for a driver of another
// browser (daemon/firefox, over WebDriver BiDi) to run the same walk in
// its pages: called as function(budget, after, ...clickable), it answers
// a JSON text.
func WalkJS() string { return pageWalkJS }

// BuildWalkRefs builds the snapshot of one document without frames from
// reply, the JSON text the walk answered, exactly as the page road builds
// a page's (buildPage): its nodes' keys are the walk's handles in document
// generation gen and world world ("<gen>:h<handle>.<world>"). Its refs
// are assigned from refs (AssignRefs; none when refs is nil)
// and, when the walk's budget cut it, the ref to read on from is set
// (target.Snapshot.After), as the page road's snapshot has them.
func BuildWalkRefs(reply string, gen, world int64, refs *target.RefTable) (*target.Snapshot, error) {
	wrapped, err := json.Marshal(map[string]map[string]string{"result": {"value": reply}})
	if err != nil {
		return nil, err
	}
	var res walkResult
	if err := res.UnmarshalJSON(wrapped); err != nil {
		return nil, fmt.Errorf("cdp: the walk's reply: %w", err)
	}
	s, holes := buildPageCut(&axPage{nodes: res.nodes, left: res.left, world: world, cut: res.cut}, gen)
	if refs != nil {
		AssignRefs(refs, s)
		if s.Truncated {
			s.After = firstHole(s.Root, holes, refs)
		}
	}
	return s, nil
}

// HandleKey is the key BuildWalkRefs gives the node of handle h.
func HandleKey(gen, h, world int64) string { return handleKey(gen, h, world) }

// ParseHandleKey splits a key BuildWalkRefs gave.
func ParseHandleKey(key string) (gen, h, world int64, ok bool) { return parseHandleKey(key) }
