package target

import "testing"

// TestDecideSelect: select takes a choice control (Selection) or one of
// its options, on the tree road; anything else is refused by code, never
// a pointer at a guessed place.
func TestDecideSelect(t *testing.T) {
	tree := Probe{Tree: true, Injection: "xtest"}
	combo := &NodeTraits{Role: "combo box", Name: "Colour", Interfaces: []string{"Action", "Selection"}, Sensitive: true}
	option := &NodeTraits{Role: "list item", Name: "Green", Sensitive: true}
	button := &NodeTraits{Role: "push button", Name: "OK", Interfaces: []string{"Action"}, Sensitive: true}
	off := &NodeTraits{Role: "list box", Interfaces: []string{"Selection"}}
	for _, tc := range []struct {
		name string
		p    Probe
		node *NodeTraits
		road Road
		code Code
	}{
		{"a combo box with Selection", tree, combo, RoadTree, ""},
		{"an option of a control", tree, option, RoadTree, ""},
		{"a tab's node (by input) still takes the tree road", Probe{Tree: true, Injection: "cdp", NodeInput: true}, combo, RoadTree, ""},
		{"a button offers no selection", tree, button, "", CodeNoAction},
		{"a disabled list box", tree, off, "", CodeNotSensitive},
		{"no node", tree, nil, "", CodeBadRef},
		{"no tree", Probe{TreeWhy: "not on the bus"}, combo, "", CodeNoTree},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Decide(VerbSelect, tc.p, tc.node)
			if c.Road != tc.road || CodeOf(c.Err()) != tc.code {
				t.Fatalf("road %q code %q (%s), want road %q code %q", c.Road, CodeOf(c.Err()), c.Why, tc.road, tc.code)
			}
			if c.Why == "" {
				t.Error("no why")
			}
		})
	}
}
