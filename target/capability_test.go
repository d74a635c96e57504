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
