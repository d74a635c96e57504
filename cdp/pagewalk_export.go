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
	return BuildWalkTree(&WalkDoc{Reply: reply, World: world}, gen, refs)
}

// WalkDoc is one document's walk, for BuildWalkTree: the walk's reply in
// the world its handles are of, the frame it is of ("" for the page's
// own document; the suffix of its nodes' keys, "@<frame>"), and the
// documents of the frames it holds by the handle of their <iframe> in
// this document — or, for a frame that could not be read, why, in words.
type WalkDoc struct {
	Reply      string
	World      int64
	Frame      string
	Frames     map[int64]*WalkDoc
	Unreadable map[int64]string
}

// BuildWalkTree builds the snapshot of a document and the frames below it
// from their walks, as the page road builds a page with its frames: each
// frame's nodes grafted under its <iframe>'s node, their keys the frame's
// handles with "@<frame>" after them (SplitFrameKey); an <iframe> whose
// frame could not be read is marked unreadable with the reason (the
// snapshot's census counts it). Refs and After as BuildWalkRefs.
func BuildWalkTree(doc *WalkDoc, gen int64, refs *target.RefTable) (*target.Snapshot, error) {
	page, err := walkPage(doc)
	if err != nil {
		return nil, err
	}
	s, holes := buildPageCut(page, gen)
	if refs != nil {
		AssignRefs(refs, s)
		if s.Truncated {
			s.After = firstHole(s.Root, holes, refs)
		}
	}
	return s, nil
}

// walkPage decodes the walks of doc and the frames below it into pages.
func walkPage(doc *WalkDoc) (*axPage, error) {
	var rec *frameRec
	if doc.Frame != "" {
		rec = &frameRec{id: doc.Frame}
	}
	wrapped, err := json.Marshal(map[string]map[string]string{"result": {"value": doc.Reply}})
	if err != nil {
		return nil, err
	}
	var res walkResult
	if err := res.UnmarshalJSON(wrapped); err != nil {
		return nil, fmt.Errorf("cdp: the walk's reply: %w", err)
	}
	page := &axPage{frame: rec, nodes: res.nodes, left: res.left, world: doc.World, cut: res.cut, unreadable: doc.Unreadable}
	for h, sub := range doc.Frames {
		sp, err := walkPage(sub)
		if err != nil {
			return nil, err
		}
		if page.byHandle == nil {
			page.byHandle = map[int64]*axPage{}
		}
		page.byHandle[h] = sp
	}
	return page, nil
}

// SplitFrameKey splits a key BuildWalkTree gave into the key of the node
// in its document (ParseHandleKey reads it) and its frame ("" in the
// page's own document).
func SplitFrameKey(key string) (base, frame string) { return splitFrame(key) }

// HandleKey is the key BuildWalkRefs gives the node of handle h.
func HandleKey(gen, h, world int64) string { return handleKey(gen, h, world) }

// ParseHandleKey splits a key BuildWalkRefs gave.
func ParseHandleKey(key string) (gen, h, world int64, ok bool) { return parseHandleKey(key) }
