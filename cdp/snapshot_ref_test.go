package cdp

import (
	"fmt"
	"reflect"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// refSnapshot is how a getFullAXTree reply was decoded before it was
// decoded by hand: cdproto's JSON package into plain structs. Tests hold
// the new path to it.
func refSnapshot(raw []byte, gen int64) (*target.Snapshot, error) {
	var res struct {
		Nodes []*refAXNode `json:"nodes"`
	}
	if err := jsonv2.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return refBuild(res.Nodes, gen), nil
}

// refBuild builds the snapshot of nodes decoded the reference way: each
// node as the hand decoder would hold it, then buildSnapshot. What the
// reference holds the hand decoder to is the decoding; the building is
// one (it has changed since: frames, script-clickable elements, wrappers).
func refBuild(nodes []*refAXNode, gen int64) *target.Snapshot {
	out := make([]*axNode, len(nodes))
	for i, n := range nodes {
		a := &axNode{NodeID: n.NodeID, Ignored: n.Ignored, Role: n.Role.str(), Name: n.Name.str(),
			Desc: n.Desc.str(), Value: n.Value.str(), ChildIDs: n.ChildIDs, BackendID: n.BackendID}
		for _, p := range n.Properties {
			a.Props.set(p.Name, p.Value.str())
		}
		out[i] = a
	}
	return buildSnapshot(out, gen)
}

// sameSnapshot builds the snapshot of a raw reply both ways and says where
// they differ (nil when they are equal, keys and all).
func sameSnapshot(raw []byte, gen int64) error {
	want, err := refSnapshot(raw, gen)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	var tree axTree
	if err := jsonv2.Unmarshal(raw, &tree); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	got := buildSnapshot(tree.nodes, gen)
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("snapshots differ:\n got %s\nwant %s", got.Text(), want.Text())
	}
	if got.Root == nil || got.Census.Nodes == 0 {
		return fmt.Errorf("empty snapshot")
	}
	return nil
}
