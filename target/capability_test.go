package target

import "testing"

func TestDecide(t *testing.T) {
	full := Probe{Tree: true, Injection: "xtest", Capture: true}
	none := Probe{Tree: true, InjectionWhy: "no X server answered XTEST", Capture: true}
	button := &NodeTraits{Role: "push button", Name: "Alpha", Interfaces: []string{"Accessible", "Action", "Component"}, Sensitive: true, Focusable: true}
	label := &NodeTraits{Role: "label", Name: "Press area", Interfaces: []string{"Accessible", "Component", "Text"}, Sensitive: true}
	entry := &NodeTraits{Role: "text", Name: "Name", Interfaces: []string{"org.a11y.atspi.EditableText", "Text"}, Sensitive: true, Editable: true, Focusable: true}
	disabled := &NodeTraits{Role: "text", Name: "Disabled", Interfaces: []string{"EditableText"}, Editable: true}
	readonly := &NodeTraits{Role: "text", Interfaces: []string{"EditableText"}, Sensitive: true}
	focusOnly := &NodeTraits{Role: "terminal", Interfaces: []string{"Component"}, Sensitive: true, Focusable: true}
	page := Probe{Tree: true, TreeVia: "the page's tree", Injection: "cdp", Capture: true, NodeInput: true}
	tests := []struct {
		name string
		verb Verb
		p    Probe
		node *NodeTraits
		road Road
		code Code
	}{
		{"snapshot with tree", VerbSnapshot, full, nil, RoadTree, ""},
		{"snapshot without tree", VerbSnapshot, Probe{TreeWhy: "not on the bus"}, nil, "", CodeNoTree},
		{"screenshot", VerbScreenshot, full, nil, RoadPixels, ""},
		{"screenshot without capture", VerbScreenshot, Probe{}, nil, "", CodeNoCapture},
		{"click @ref with Action", VerbClickRef, full, button, RoadTree, ""},
		{"click @ref with Action, no injection", VerbClickRef, none, button, RoadTree, ""},
		{"click @ref without Action never falls back to a point", VerbClickRef, full, label, "", CodeNoAction},
		{"click @ref without Action, no injection", VerbClickRef, none, label, "", CodeNoAction},
		{"click @ref with Action but no actions", VerbClickRef, full, &NodeTraits{Interfaces: []string{"Action"}, Actions: []string{}, Sensitive: true}, "", CodeNoAction},
		{"click @ref insensitive", VerbClickRef, full, &NodeTraits{Interfaces: []string{"Action"}}, "", CodeNotSensitive},
		{"click @ref without node", VerbClickRef, full, nil, "", CodeBadRef},
		{"click @ref on a page tab: its parent's Selection", VerbClickRef, none, &NodeTraits{Role: "page tab", Name: "Second", Interfaces: []string{"Accessible", "Component"}, Sensitive: true, InSelection: true}, RoadTree, ""},
		{"click @ref on a disabled page tab", VerbClickRef, full, &NodeTraits{Role: "page tab", Interfaces: []string{"Accessible"}, InSelection: true}, "", CodeNotSensitive},
		{"type @ref EditableText", VerbTypeRef, full, entry, RoadTree, ""},
		{"type @ref EditableText, no injection", VerbTypeRef, none, entry, RoadTree, ""},
		{"type @ref insensitive", VerbTypeRef, full, disabled, "", CodeNotSensitive},
		{"type @ref read-only", VerbTypeRef, full, readonly, "", CodeNotEditable},
		{"type @ref focusable, injection", VerbTypeRef, full, focusOnly, RoadKeys, ""},
		{"type @ref focusable, no injection", VerbTypeRef, none, focusOnly, "", CodeNoEditableText},
		{"type @ref not focusable", VerbTypeRef, full, label, "", CodeNoEditableText},
		{"type without ref", VerbTypeFocus, full, nil, RoadKeys, ""},
		{"type without ref, no injection", VerbTypeFocus, none, nil, "", CodeNoInjectionBackend},
		{"key", VerbKey, full, nil, RoadKeys, ""},
		{"key, no injection", VerbKey, none, nil, "", CodeNoInjectionBackend},
		{"click --at", VerbClickAt, full, nil, RoadPoint, ""},
		{"click --at, no injection", VerbClickAt, none, nil, "", CodeNoInjectionBackend},
		{"scroll", VerbScroll, full, nil, RoadPoint, ""},
		{"scroll, no injection", VerbScroll, none, nil, "", CodeNoInjectionBackend},
		{"unknown verb", Verb("dance"), full, nil, "", CodeBadRequest},
		// A target whose nodes are reached by input at the node (a tab):
		// the backend checks each node itself; no traits are needed, and
		// without injection there is no road.
		{"click @ref by input at the node", VerbClickRef, page, nil, RoadPoint, ""},
		{"click @ref by input, no injection", VerbClickRef, Probe{Tree: true, NodeInput: true, InjectionWhy: "the tab has closed"}, nil, "", CodeNoInjectionBackend},
		{"type @ref by input at the node", VerbTypeRef, page, nil, RoadKeys, ""},
		{"type @ref by input, traits ignored", VerbTypeRef, page, label, RoadKeys, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Decide(tc.verb, tc.p, tc.node)
			if c.Road != tc.road || CodeOf(c.Err()) != tc.code {
				t.Fatalf("Decide = road %q code %q (%v), want road %q code %q", c.Road, CodeOf(c.Err()), c.Err(), tc.road, tc.code)
			}
			if c.OK() != (tc.code == "") {
				t.Fatalf("OK() = %v with code %q", c.OK(), tc.code)
			}
			if c.Why == "" {
				t.Fatal("every answer carries a reason")
			}
		})
	}
}

// Capabilities answers every verb once, in words the probe gives, for a
// window (the tree road per node) and a page (input at the node).
func TestCapabilities(t *testing.T) {
	window := Capabilities(Probe{Tree: true, TreeVia: "the AT-SPI tree", Injection: "xtest", Capture: true})
	page := Capabilities(Probe{Tree: true, TreeVia: "the page's tree", Injection: "cdp", Capture: true, CaptureVia: "the viewport", NodeInput: true})
	noTree := Capabilities(Probe{TreeWhy: "not on the bus", Injection: "xtest", Capture: true})
	road := func(cs []Capability) map[Verb]Road {
		m := map[Verb]Road{}
		for _, c := range cs {
			if c.Why == "" {
				t.Errorf("%s: no reason", c.Verb)
			}
			m[c.Verb] = c.Road
		}
		return m
	}
	w, p, n := road(window), road(page), road(noTree)
	if len(w) != 8 || len(p) != 8 || len(n) != 8 {
		t.Fatalf("verbs: %d %d %d", len(w), len(p), len(n))
	}
	if w[VerbClickRef] != RoadTree || w[VerbTypeRef] != RoadTree || w[VerbSnapshot] != RoadTree {
		t.Errorf("window %v", w)
	}
	if p[VerbClickRef] != RoadPoint || p[VerbTypeRef] != RoadKeys || p[VerbSnapshot] != RoadTree {
		t.Errorf("page %v", p)
	}
	if n[VerbClickRef] != RoadNone || n[VerbSnapshot] != RoadNone || n[VerbKey] != RoadKeys {
		t.Errorf("no tree %v", n)
	}
	for _, c := range page {
		if c.Verb == VerbScreenshot && c.Why != "the viewport" {
			t.Errorf("the probe's words are not used: %q", c.Why)
		}
	}
}

func TestNoInjectionNamesProbe(t *testing.T) {
	c := Decide(VerbKey, Probe{InjectionWhy: "XTEST missing"}, nil)
	if c.Refusal.Facts["reason"] != "XTEST missing" {
		t.Fatalf("refusal facts %v do not carry the probe reason", c.Refusal.Facts)
	}
}

func TestNoActionNamesInterfaces(t *testing.T) {
	c := Decide(VerbClickRef, Probe{Injection: "xtest"}, &NodeTraits{Interfaces: []string{"Component", "Text"}, Sensitive: true})
	if c.Refusal.Facts["interfaces"] != "Component,Text" {
		t.Fatalf("facts %v", c.Refusal.Facts)
	}
}

func TestTraitsOf(t *testing.T) {
	n := &Node{Role: "push button", Name: "A", Interfaces: []string{"Action"}, States: []string{"sensitive", "focusable"}}
	tr := TraitsOf(n)
	if !tr.Sensitive || !tr.Focusable || tr.Editable || tr.Actions == nil {
		t.Fatalf("%+v", tr)
	}
	if c := Decide(VerbClickRef, Probe{}, &tr); CodeOf(c.Err()) != CodeNoAction {
		t.Fatal("a node whose Action lists no action is not clickable")
	}
}
