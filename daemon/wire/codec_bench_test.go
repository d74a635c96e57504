package wire

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
)

// clickRequest is a typical click: a window's handle and a ref.
var clickRequest = Request{Verb: "click", Session: "agent-1", Target: "win:0x400007"}.With(map[string]string{"ref": "@e12"})

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
// The client's halves are the ones a CLI links (requestLine,
// decodeResponse); the daemon's are encoding/json.
func BenchmarkCodec(b *testing.B) {
	b.Run("click_request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			line, err := requestLine(&clickRequest)
			if err != nil {
				b.Fatal(err)
			}
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

// TestColdCodec is a command line's one exchange on a fresh process,
// without the rest of the call: with VIBESPACE_COLD_CODEC set to status,
// click or snapshot, it encodes that request and decodes a typical answer
// to it (read from VIBESPACE_COLD_DIR, which a run with
// VIBESPACE_COLD_CODEC=write fills), once, and prints how long that took. Run alone (-test.run
// '^TestColdCodec$'), in a fresh process each time, so encoding/json has
// built nothing yet.
func TestColdCodec(t *testing.T) {
	kind, dir := os.Getenv("VIBESPACE_COLD_CODEC"), os.Getenv("VIBESPACE_COLD_DIR")
	if kind == "" || dir == "" {
		t.Skip("VIBESPACE_COLD_CODEC or VIBESPACE_COLD_DIR unset: a measurement, run by hand")
	}
	reqs := map[string]Request{
		"status":   {Verb: "status", Session: "agent-1"},
		"click":    clickRequest,
		"snapshot": {Verb: "snapshot", Session: "agent-1", Target: "win:0x400007"},
	}
	if kind == "write" {
		answers := map[string]Response{
			"status": {OK: true, Status: &Status{PID: 9565, Socket: "/run/vibespace/window-25b039cd.sock", StateDir: "/srv/state", Targets: 1, Yours: 1,
				Started: "2026-11-30T04:32:34Z", AuditPath: "/srv/state/audit.jsonl", MaxRequest: 1048576, Kept: []string{"audit.jsonl", "daemon.log"}}},
			"click": {OK: true, Did: `clicked push button "Alpha" @e12`, By: "action",
				Target: &TargetInfo{ID: "win:0x400007", Title: "vibespace fixture", Lease: "held by agent-1", Input: "agent", Holder: "agent-1"},
				Effect: &target.Effect{Word: "confirmed", Seen: []string{`label "Clicked": "" → "Alpha"`}, WaitedMS: 12}},
			"snapshot": snapshotAnswer(),
		}
		for k, a := range answers {
			var buf bytes.Buffer
			if err := WriteResponse(&buf, a); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, k+".json"), buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	req, ok := reqs[kind]
	if !ok {
		t.Fatalf("VIBESPACE_COLD_CODEC=%s: status, click, snapshot or write", kind)
	}
	line, err := os.ReadFile(filepath.Join(dir, kind+".json"))
	if err != nil {
		t.Fatal(err)
	}
	// VIBESPACE_COLD_HALF=encode or decode does that half alone.
	half := os.Getenv("VIBESPACE_COLD_HALF")
	t0 := time.Now()
	var out []byte
	if half != "decode" {
		out, err = requestLine(&req)
	}
	resp := Response{OK: true}
	if half != "encode" {
		err = decodeResponse(line, &resp)
	}
	d := time.Since(t0)
	if err != nil || (half != "decode" && len(out) == 0) || !resp.OK {
		t.Fatal(err)
	}
	fmt.Printf("cold %s%s %d\n", kind, map[string]string{"": "", "encode": "_encode", "decode": "_decode"}[half], d.Nanoseconds())
}
