package wire

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// clickRequest is a typical click: a window's handle and a ref.
var clickRequest = Request{Verb: "click", Session: "agent-1", Target: "win:0x400007", Ref: "@e12"}

// snapshotAnswer is a typical snapshot answer, as the daemon writes it: a
// window of 80 nodes (the fixture's size), the tree and its text, the
// target named.
func snapshotAnswer() Response {
	root := &target.Node{Ref: "@e1", Role: "frame", Name: "vibespace fixture", States: []string{"active", "showing", "visible"},
		Interfaces: []string{"Component"}, Bounds: &target.Rect{X: 0, Y: 0, W: 900, H: 700}}
	var text bytes.Buffer
	for i := range 79 {
		n := &target.Node{Ref: fmt.Sprintf("@e%d", i+2), Role: "push button", Name: fmt.Sprintf("Button %d", i),
			States: []string{"enabled", "focusable", "sensitive", "showing", "visible"}, Interfaces: []string{"Action", "Component"},
			Actions: []string{"click"}, Bounds: &target.Rect{X: 12, Y: 12 + 30*i, W: 120, H: 26}}
		if i%4 == 0 {
			n.Role, n.Interfaces, n.Text, n.TextLen = "text", []string{"Component", "EditableText", "Text"}, "some text in it", 15
		}
		root.Children = append(root.Children, n)
		fmt.Fprintf(&text, "  %s %q %s [click] (12,%d 120x26)\n", n.Role, n.Name, n.Ref, 12+30*i)
	}
	return Response{V: ProtocolVersion, OK: true,
		Target: &TargetInfo{ID: "win:0x400007", Title: "vibespace fixture", App: "python3", PID: 4242, Lease: "held by agent-1 since 2026-12-05T13:00:00Z",
			Input: "agent", Holder: "agent-1", Since: "2026-12-05T13:00:00Z", Mode: "auto", Resolved: "tree", ModeWhy: "its tree is readable"},
		Snapshot: &target.Snapshot{Target: "win:0x400007", Title: "vibespace fixture", Census: target.Census{Nodes: 80, Action: 60, Editable: 20}, Root: root},
		Text:     text.String()}
}

// BenchmarkCodec is one whole exchange of each kind, warm: a click
// request encoded by the client and decoded by the daemon; a snapshot
// answer encoded by the daemon (WriteResponse) and decoded by the client.
// The client's halves are the ones a CLI links (appendRequest,
// decodeResponse); the daemon's are encoding/json either way.
func BenchmarkCodec(b *testing.B) {
	b.Run("click_request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			line := appendRequest(make([]byte, 0, 256), &clickRequest)
			if _, err := DecodeRequest(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	answer := snapshotAnswer()
	b.Run("snapshot_answer", func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := WriteResponse(&buf, answer); err != nil {
				b.Fatal(err)
			}
			var resp Response
			if err := decodeResponse(buf.Bytes(), &resp); err != nil || resp.Snapshot == nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "bytes/answer")
	})
}
