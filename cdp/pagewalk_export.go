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

// BuildWalk builds the snapshot of one document without frames from reply,
// the JSON text the walk answered, exactly as the page road builds a
// page's (buildPage): its nodes' keys are the walk's handles in document
// generation gen and world world ("<gen>:h<handle>.<world>").
func BuildWalk(reply string, gen, world int64) (*target.Snapshot, error) {
	wrapped, err := json.Marshal(map[string]map[string]string{"result": {"value": reply}})
	if err != nil {
		return nil, err
	}
	var res walkResult
	if err := res.UnmarshalJSON(wrapped); err != nil {
		return nil, fmt.Errorf("cdp: the walk's reply: %w", err)
	}
	return buildPage(&axPage{nodes: res.nodes, left: res.left, world: world, cut: res.cut}, gen), nil
}

// HandleKey is the key BuildWalk gives the node of handle h.
func HandleKey(gen, h, world int64) string { return handleKey(gen, h, world) }

// ParseHandleKey splits a key BuildWalk gave.
func ParseHandleKey(key string) (gen, h, world int64, ok bool) { return parseHandleKey(key) }
