package cdp

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

// A walk's reply is JSON in a string: its nodes in document order, eight
// values each, parents by index; the flags become the AX properties the
// builder reads and a handle becomes the node's key.
func TestWalkResultDecode(t *testing.T) {
	inner := `{"n":[-1,"RootWebArea","Page","","",6,0,0,` +
		`0,"button","OK","says ok","",262145,0,7,` +
		`1,"StaticText","O\u00e9K \"q\"","","",0,0,0,` +
		`0,"heading","Title","","",0,2,9],"left":3}`
	reply := `{"result":{"type":"string","value":` + strconv.Quote(inner) + `}}`
	var r walkResult
	if err := r.UnmarshalJSON([]byte(reply)); err != nil {
		t.Fatal(err)
	}
	if len(r.nodes) != 4 || r.left != 3 || r.exception != "" {
		t.Fatalf("got %d nodes, left %d, exception %q", len(r.nodes), r.left, r.exception)
	}
	root, button, text, heading := r.nodes[0], r.nodes[1], r.nodes[2], r.nodes[3]
	if got := strings.Join(root.ChildIDs, ","); got != "1,3" {
		t.Errorf("root's children %q, want 1,3", got)
	}
	if got := strings.Join(button.ChildIDs, ","); got != "2" {
		t.Errorf("button's children %q, want 2", got)
	}
	if root.Props.focusable != axTrue || root.Props.focused != axTrue || root.Name != "Page" {
		t.Errorf("root %+v", root)
	}
	if button.Role != "button" || button.Name != "OK" || button.Desc != "says ok" || button.Handle != 7 ||
		button.Props.disabled != axTrue || !button.Scripted {
		t.Errorf("button %+v", button)
	}
	if text.Name != `OéK "q"` {
		t.Errorf("text's name %q", text.Name)
	}
	if heading.Props.level != "2" || heading.Handle != 9 {
		t.Errorf("heading %+v", heading)
	}
	s := buildPage(&axPage{nodes: r.nodes, world: 2}, 5)
	b := s.Root.Find(func(n *target.Node) bool { return n.Role == "push button" })
	if b == nil || b.Key != "5:h7.2" {
		t.Fatalf("the button's node %+v, want key 5:h7.2", b)
	}

	var ex walkResult
	if err := ex.UnmarshalJSON([]byte(`{"result":{"type":"object"},"exceptionDetails":{"exceptionId":1,"text":"Uncaught","lineNumber":0,"columnNumber":0,"exception":{"type":"object","description":"TypeError: x is not a function"}}}`)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ex.exception, "TypeError") {
		t.Errorf("exception %q", ex.exception)
	}
	var bad walkResult
	if err := bad.UnmarshalJSON([]byte(`{"result":{"type":"string","value":"{\"n\":[-1,\"x\"}"}}`)); err == nil {
		t.Error("a broken reply decoded")
	}
}

// The flag bits of pagewalk.js and of walkProps are one list: each name
// of the script's F sets the property of that name.
func TestWalkFlagsAgree(t *testing.T) {
	m := regexp.MustCompile(`const F = \{([^}]*)\}`).FindStringSubmatch(pageWalkJS)
	if m == nil {
		t.Fatal("pagewalk.js has no const F")
	}
	entry := regexp.MustCompile(`(\w+): (\d+)(?: << (\d+))?`)
	checks := map[string]func(axProps) bool{
		"disabled":        func(p axProps) bool { return p.disabled == axTrue },
		"focusable":       func(p axProps) bool { return p.focusable == axTrue },
		"focused":         func(p axProps) bool { return p.focused == axTrue },
		"modal":           func(p axProps) bool { return p.modal == axTrue },
		"required":        func(p axProps) bool { return p.required == axTrue },
		"multiline":       func(p axProps) bool { return p.multiline == axTrue },
		"multiselectable": func(p axProps) bool { return p.multiselectable == axTrue },
		"checkedTrue":     func(p axProps) bool { return p.checked == axTrue },
		"checkedFalse":    func(p axProps) bool { return p.checked == axFalse },
		"checkedMixed":    func(p axProps) bool { return p.checked == axMixed },
		"pressedTrue":     func(p axProps) bool { return p.pressed == axTrue },
		"pressedFalse":    func(p axProps) bool { return p.pressed == axFalse },
		"pressedMixed":    func(p axProps) bool { return p.pressed == axMixed },
		"selected":        func(p axProps) bool { return p.selected == axTrue },
		"hasExpanded":     func(p axProps) bool { return p.hasExpanded && p.expanded == axFalse },
		"expanded":        func(p axProps) bool { return !p.hasExpanded }, // alone it says nothing: hasExpanded comes with it
		"readonly":        func(p axProps) bool { return p.readonly == axTrue },
		"invalid":         func(p axProps) bool { return p.invalid == axTrue },
		"editable":        func(p axProps) bool { return p.editable == axTrue },
		"clickable":       func(p axProps) bool { return p.clickable },
	}
	seen := 0
	for _, e := range entry.FindAllStringSubmatch(m[1], -1) {
		v, _ := strconv.ParseInt(e[2], 10, 64)
		if e[3] != "" {
			sh, _ := strconv.Atoi(e[3])
			v <<= sh
		}
		check, ok := checks[e[1]]
		if !ok {
			t.Errorf("pagewalk.js flag %s is not read by walkProps", e[1])
			continue
		}
		seen++
		if !check(walkProps(v)) {
			t.Errorf("flag %s (%d) does not set its property: %+v", e[1], v, walkProps(v))
		}
	}
	if seen != len(checks) {
		t.Errorf("pagewalk.js has %d of the %d flags walkProps reads", seen, len(checks))
	}
	if p := walkProps(1<<13 | 1<<14); !p.hasExpanded || p.expanded != axTrue {
		t.Errorf("expanded with hasExpanded: %+v", p)
	}
}

// A handle's key is told from a backend node's.
func TestHandleKey(t *testing.T) {
	k := handleKey(3, 42, 7)
	if gen, h, w, ok := parseHandleKey(k); !ok || gen != 3 || h != 42 || w != 7 {
		t.Errorf("parseHandleKey(%q) = %d, %d, %d, %v", k, gen, h, w, ok)
	}
	if _, _, ok := parseKey(k); ok {
		t.Errorf("parseKey took the handle key %q", k)
	}
	for _, k := range []string{"3:42", "3:h", "3:h0.1", "x:h4.1", "3:h-2.1", "3:h4", "3:h4.0", "3:h4.x"} {
		if _, _, _, ok := parseHandleKey(k); ok {
			t.Errorf("parseHandleKey took %q", k)
		}
	}
}

// The flow pagewalk.js gives a node's text is target.Flow's, at flowShift.
func TestWalkFlowAgrees(t *testing.T) {
	m := regexp.MustCompile(`const FLOW = \{line: (\d), cell: (\d), space: (\d), run: (\d), shift: (\d+)\}`).FindStringSubmatch(pageWalkJS)
	if m == nil {
		t.Fatal("pagewalk.js has no const FLOW of the shape this test reads")
	}
	if m[5] != strconv.Itoa(flowShift) {
		t.Fatalf("FLOW.shift %s, flowShift %d", m[5], flowShift)
	}
	for i, want := range []target.Flow{target.FlowLine, target.FlowCell, target.FlowSpace, target.FlowRun} {
		v, _ := strconv.ParseInt(m[i+1], 10, 64)
		if got := walkProps(v << flowShift).flow; got != want {
			t.Errorf("FLOW value %d reads as %d, want %d", v, got, want)
		}
	}
}
