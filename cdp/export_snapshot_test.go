package cdp

import (
	"context"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// Hooks for the snapshot breakdown benchmark (snapshot_bench_test.go): the
// steps of Tab.Snapshot one at a time.

// DecodeAXTree decodes a raw Accessibility.getFullAXTree result.
func DecodeAXTree(raw []byte) ([]*axNode, error) {
	var res axTree
	err := jsonv2.Unmarshal(raw, &res)
	return res.nodes, err
}

// RefSnapshot decodes and builds the way it was done before the decoder by
// hand (snapshot_ref_test.go), for comparison.
func RefSnapshot(raw []byte) (*target.Snapshot, error) { return refSnapshot(raw, 1) }

// BuildSnapshot is buildSnapshot.
func BuildSnapshot(nodes []*axNode, gen int64) *target.Snapshot { return buildSnapshot(nodes, gen) }

// SameSnapshot builds the snapshot of a raw getFullAXTree reply the way it
// is built and the way it was built before (snapshot_ref_test.go), and says
// where they differ.
func SameSnapshot(raw []byte, gen int64) error { return sameSnapshot(raw, gen) }

// ScanAXTree decodes a raw reply with the hand decoder alone, not through
// cdproto's JSON package (which checks the whole reply first).
func ScanAXTree(raw []byte) ([]*axNode, error) {
	var res axTree
	err := res.UnmarshalJSON(raw)
	return res.nodes, err
}

// RefTabSnapshot is Tab.Snapshot as it was before the decoder by hand: the
// reply decoded by cdproto's JSON package into plain structs, and built
// from those (snapshot_ref_test.go).
func (t *Tab) RefTabSnapshot(ctx context.Context, refs *target.RefTable, interactive bool) (*target.Snapshot, error) {
	var res struct {
		Nodes []*refAXNode `json:"nodes"`
	}
	gen := t.gen.Load()
	if err := t.sess.Call(ctx, accessibility.CommandGetFullAXTree, &accessibility.GetFullAXTreeParams{}, &res); err != nil {
		return nil, t.fail(err)
	}
	s := refBuild(res.Nodes, gen)
	AssignRefs(refs, s)
	if interactive {
		return s.InteractiveView(), nil
	}
	return s, nil
}
