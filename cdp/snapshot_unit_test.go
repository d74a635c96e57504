package cdp

import (
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// A recorded getFullAXTree answer (trimmed) becomes the shared shape:
// ignored and unnamed generic nodes drop out, inline text boxes and text
// repeating the parent's name are skipped, roles and states are AT-SPI's,
// a heading keeps its level.
func TestBuildSnapshot(t *testing.T) {
	const answer = `{"nodes":[
 {"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"name":{"type":"computedString","value":"T"},"properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}}],"childIds":["2"],"backendDOMNodeId":1},
 {"nodeId":"2","ignored":true,"role":{"type":"role","value":"none"},"childIds":["3"],"backendDOMNodeId":2},
 {"nodeId":"3","ignored":false,"role":{"type":"role","value":"generic"},"name":{"type":"computedString","value":""},"childIds":["9","4","6","7"],"backendDOMNodeId":3},
 {"nodeId":"9","ignored":false,"role":{"type":"role","value":"heading"},"name":{"type":"computedString","value":"Intro"},"properties":[{"name":"level","value":{"type":"integer","value":2}}],"childIds":[],"backendDOMNodeId":9},
 {"nodeId":"4","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Go"},"properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},{"name":"disabled","value":{"type":"boolean","value":true}}],"childIds":["5"],"backendDOMNodeId":4},
 {"nodeId":"5","ignored":false,"role":{"type":"internalRole","value":"StaticText"},"name":{"type":"computedString","value":"Go"},"childIds":["8"],"backendDOMNodeId":5},
 {"nodeId":"8","ignored":false,"role":{"type":"internalRole","value":"InlineTextBox"},"name":{"type":"computedString","value":"Go"},"childIds":[]},
 {"nodeId":"6","ignored":false,"role":{"type":"role","value":"textbox"},"name":{"type":"computedString","value":"Name"},"value":{"type":"string","value":"bob"},"properties":[{"name":"editable","value":{"type":"token","value":"plaintext"}},{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},{"name":"focused","value":{"type":"booleanOrUndefined","value":true}}],"childIds":[],"backendDOMNodeId":6},
 {"nodeId":"7","ignored":false,"role":{"type":"role","value":"checkbox"},"name":{"type":"computedString","value":"Agree"},"properties":[{"name":"checked","value":{"type":"tristate","value":"true"}}],"childIds":[],"backendDOMNodeId":7}
]}`
	var res struct {
		Nodes []*axNode `json:"nodes"`
	}
	if err := jsonv2.Unmarshal([]byte(answer), &res); err != nil {
		t.Fatal(err)
	}
	s := buildSnapshot(res.Nodes, 3)
	// A tab's snapshot is compact: no "[click]" when click is the only
	// action, no "editable" on an entry, no zero unreadable count, no line
	// for the document (the header names it).
	const want = `# "T": 5 nodes, 2 action, 1 editable
heading "Intro" h2
push button "Go" disabled
entry "Name" focused ="bob"
check box "Agree" checked
`
	if got := s.Text(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if k := s.Root.Children[2].Key; k != "3:6" {
		t.Fatalf("entry key %q, want generation:backend node id", k)
	}
	if s.Root.Key != "" {
		t.Fatal("the document has a key")
	}
}
