package cdp

import (
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// The reply decoder by hand (axScan) is checked against cdproto's JSON
// package decoding the same reply into plain structs, the way the snapshot
// read it before: same nodes, ids, flags, strings and properties.

type refAXNode struct {
	NodeID     string          `json:"nodeId"`
	Ignored    bool            `json:"ignored"`
	Role       *refAXValue     `json:"role"`
	Name       *refAXValue     `json:"name"`
	Desc       *refAXValue     `json:"description"`
	Value      *refAXValue     `json:"value"`
	Properties []refAXProperty `json:"properties"`
	ChildIDs   []string        `json:"childIds"`
	BackendID  int64           `json:"backendDOMNodeId"`
}

type refAXValue struct {
	Value jsonv2.Value `json:"value"`
}

type refAXProperty struct {
	Name  string      `json:"name"`
	Value *refAXValue `json:"value"`
}

func (v *refAXValue) str() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	if v.Value[0] == '"' {
		var s string
		if jsonv2.Unmarshal(v.Value, &s) == nil {
			return s
		}
	}
	return string(v.Value)
}

// want is what the decoder must give for n.
func (n *refAXNode) want() axNode {
	out := axNode{
		NodeID: n.NodeID, Ignored: n.Ignored, Role: n.Role.str(), Name: n.Name.str(),
		Desc: n.Desc.str(), Value: n.Value.str(), ChildIDs: n.ChildIDs, BackendID: n.BackendID,
	}
	for _, p := range n.Properties {
		out.Props.set(p.Name, p.Value.str())
	}
	return out
}

func checkDecode(t *testing.T, answer []byte) {
	t.Helper()
	var ref struct {
		Nodes []*refAXNode `json:"nodes"`
	}
	if err := jsonv2.Unmarshal(answer, &ref); err != nil {
		t.Fatalf("reference decode: %v", err)
	}
	var got axTree
	if err := jsonv2.Unmarshal(answer, &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(got.nodes) != len(ref.Nodes) {
		t.Fatalf("%d nodes, want %d", len(got.nodes), len(ref.Nodes))
	}
	for i, r := range ref.Nodes {
		w := r.want()
		g := *got.nodes[i]
		if len(g.ChildIDs) == 0 && len(w.ChildIDs) == 0 {
			g.ChildIDs, w.ChildIDs = nil, nil // [] and absent read the same
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("node %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	// And node by node, as the unit test decodes.
	var each struct {
		Nodes []*axNode `json:"nodes"`
	}
	if err := jsonv2.Unmarshal(answer, &each); err != nil {
		t.Fatalf("decode node by node: %v", err)
	}
	for i := range each.Nodes {
		if !reflect.DeepEqual(each.Nodes[i], got.nodes[i]) {
			t.Fatalf("node %d differs decoded alone:\n%+v\n%+v", i, each.Nodes[i], got.nodes[i])
		}
	}
}

func TestDecodeAXTreeEdges(t *testing.T) {
	const answer = ` { "nodes" : [
 {"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"chromeRole":{"type":"internalRole","value":144},
  "name":{"type":"computedString","value":"T \"q\" \u00e9\ud83d\ude00 \\ \/ \n","sources":[{"type":"attribute","attribute":"aria-label","attributeValue":{"type":"string","value":"x]}\"{["}},{"type":"contents","value":{"type":"computedString","value":"T"}}]},
  "properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},{"name":"level","value":{"type":"integer","value":2}},
   {"name":"valuemin","value":{"type":"number","value":-1.5e3}},{"name":"expanded","value":{"type":"booleanOrUndefined"}},
   {"name":"checked","value":{"type":"tristate","value":"mixed"}},{"name":"checked","value":{"type":"tristate","value":"true"}},
   {"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"backendDOMNodeId":9,"text":"a,b"}]}},
   {"name":"invalid","value":{"type":"token","value":null}},{"name":"hidden","value":null},{"name":"disabled","value":{"type":"boolean","value":{"odd":[1,2]}}}],
  "childIds":["2","3"],"backendDOMNodeId":1,"frameId":"F"},
 {"nodeId":"2","ignored":true,"ignoredReasons":[{"name":"uninteresting","value":{"type":"boolean","value":true}}],"role":{"type":"role","value":"none"},"childIds":[],"backendDOMNodeId":2,"parentId":"1"},
 {"nodeId":"3","ignored":null,"role":null,"name":{"type":"computedString","value":""},"description":{"type":"computedString","value":"d\u0041"},"value":{"type":"string","value":"v\tw"},"properties":null,"childIds":null,"backendDOMNodeId":null},
 {"nodeId":"4","role":{"type":"role","value":"textbox"},"value":{"type":"number","value":0.25},"properties":[]},
 {"nodeId":"5","role":{"type":"role","value":"x"},"value":{"type":"string","value":true},"ignored":true,"unknown":{"a":[{"b":"}"}]}},
 {"nodeId":"\u0036", "n\u0061me":{"value":"escaped key"}}
] , "extra": 1 }
`
	checkDecode(t, []byte(answer))
	var got axTree
	if err := jsonv2.Unmarshal([]byte(answer), &got); err != nil {
		t.Fatal(err)
	}
	if n := got.nodes[0]; !strings.Contains(n.Name, "😀") || n.Props.checked != axTrue || !n.Props.hasExpanded || n.Props.level != "2" {
		t.Fatalf("node 1: %+v", n)
	}
	if got.nodes[5].NodeID != "6" || got.nodes[5].Name != "escaped key" {
		t.Fatalf("node 6: %+v", got.nodes[5])
	}
}

func TestDecodeAXTreeBad(t *testing.T) {
	for _, bad := range []string{
		`{"nodes":[{"nodeId":1}]}`,
		`{"nodes":[{"backendDOMNodeId":"1"}]}`,
		`{"nodes":[{"ignored":1}]}`,
		`{"nodes":{}}`,
		`{"nodes":[{"nodeId":"1"]}`,
		`{"nodes":[{"nodeId":"1"}`,
		`{"nodes":[{"nodeId":"1}]}`,
		`[]`,
	} {
		var got axTree
		if err := got.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// The unit test's reply, and the edge cases', build the same snapshot both
// ways.
func TestSameSnapshotRecorded(t *testing.T) {
	answer := `{"nodes":[
 {"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"name":{"type":"computedString","value":"T"},"childIds":["2","9","3","4","4"],"backendDOMNodeId":1},
 {"nodeId":"2","ignored":true,"role":{"type":"role","value":"none"},"childIds":["5"],"backendDOMNodeId":2},
 {"nodeId":"5","role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Go"},"properties":[{"name":"expanded","value":{"type":"booleanOrUndefined","value":false}},{"name":"disabled","value":{"type":"boolean","value":true}},{"name":"hidden","value":{"type":"boolean","value":true}}],"childIds":["6","7"],"backendDOMNodeId":5},
 {"nodeId":"6","role":{"type":"internalRole","value":"StaticText"},"name":{"type":"computedString","value":"Go"},"childIds":["8"],"backendDOMNodeId":6},
 {"nodeId":"7","role":{"type":"internalRole","value":"StaticText"},"name":{"type":"computedString","value":"Go"},"backendDOMNodeId":7},
 {"nodeId":"8","role":{"type":"internalRole","value":"InlineTextBox"},"name":{"type":"computedString","value":"Go"}},
 {"nodeId":"3","role":{"type":"role","value":"heading"},"name":{"type":"computedString","value":"H"},"properties":[{"name":"level","value":{"type":"integer","value":3}}],"childIds":["10"],"backendDOMNodeId":3},
 {"nodeId":"10","role":{"type":"internalRole","value":"StaticText"},"name":{"type":"computedString","value":"H"},"childIds":["11"],"backendDOMNodeId":10},
 {"nodeId":"11","role":{"type":"role","value":"link"},"name":{"type":"computedString","value":"L"},"properties":[{"name":"expanded","value":{"type":"booleanOrUndefined"}}],"backendDOMNodeId":11},
 {"nodeId":"4","role":{"type":"role","value":"textbox"},"name":{"type":"computedString","value":""},"value":{"type":"string","value":"` + strings.Repeat("é", 300) + `"},"properties":[{"name":"editable","value":{"type":"token","value":"plaintext"}},{"name":"readonly","value":{"type":"boolean","value":true}},{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}}],"backendDOMNodeId":4},
 {"nodeId":"4","role":{"type":"role","value":"generic"},"childIds":["1"],"backendDOMNodeId":12}
]}`
	if err := sameSnapshot([]byte(answer), 7); err != nil {
		t.Fatal(err)
	}
}
