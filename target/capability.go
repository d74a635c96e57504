package target

import (
	"fmt"
	"strings"
)

// Verb is an agent verb whose capability the law decides.
type Verb string

// The verbs the capability law covers (README.md, "How it is built").
const (
	VerbSnapshot   Verb = "snapshot"
	VerbScreenshot Verb = "screenshot"
	VerbClickRef   Verb = "click"     // click @ref
	VerbClickAt    Verb = "click_at"  // click --at x,y
	VerbTypeRef    Verb = "type"      // type @ref "…"
	VerbTypeFocus  Verb = "type_keys" // type "…" (no ref): keys into the focused node
	VerbKey        Verb = "key"
	VerbScroll     Verb = "scroll"
	VerbSelect     Verb = "select" // select @ref <option…>: a choice control's own selection
)

// Road is how a verb reaches the application. The audit log records it.
type Road string

// The roads.
const (
	RoadNone   Road = ""
	RoadTree   Road = "tree"   // the accessibility tree: an action or text call on a node
	RoadPoint  Road = "point"  // injected pointer input at coordinates
	RoadKeys   Road = "keys"   // injected key events into the focused node
	RoadPixels Road = "pixels" // a capture of the window's pixels
)

// Probe is what a target's backend found at run time: which roads exist
// for this target now. A false field carries the reason in its Why, which
// doctor and refusals print verbatim.
type Probe struct {
	Tree         bool   `json:"tree"`                    // an accessibility tree to read (a window's app on the bus, a tab's AX tree)
	TreeWhy      string `json:"tree_why,omitempty"`      // why not
	TreeVia      string `json:"tree_via,omitempty"`      // what the tree road reads, in words ("the AT-SPI tree")
	Injection    string `json:"injection,omitempty"`     // the injection backend found ("xtest", "cdp"), "" for none
	InjectionWhy string `json:"injection_why,omitempty"` // why none
	Capture      bool   `json:"capture"`                 // the target's pixels can be read
	CaptureWhy   string `json:"capture_why,omitempty"`   // why not
	CaptureVia   string `json:"capture_via,omitempty"`   // what a screenshot reads, in words
	// NodeInput is set where verbs on a node (click @ref, type @ref) reach
	// it by injected input at the node — the backend finds the node by its
	// own identity and checks it is visible, enabled and uncovered first —
	// rather than through an accessibility action or text call on the node
	// itself (a CDP tab's nodes, which have no AT-SPI Action).
	NodeInput bool `json:"node_input,omitempty"`
	// Provider names the provider row the target comes from (package
	// provider: "chromium", "cdp", "cloud:browserless", "desktop-app",
	// "local-window"); "" when it comes from none (a window of the user's
	// own desktop). ProviderCannot is what that row says it cannot do
	// among the law's verbs, each with why: the law refuses such a verb
	// not_on_this_provider before it considers any road. The daemon
	// fills both from the row; a backend's own probe leaves them empty.
	Provider       string          `json:"provider,omitempty"`
	ProviderCannot map[Verb]string `json:"provider_cannot,omitempty"`
}

// LawVerbs are the verbs the capability law decides, in the order a
// listing shows them.
func LawVerbs() []Verb {
	return []Verb{VerbSnapshot, VerbScreenshot, VerbClickRef, VerbTypeRef, VerbClickAt, VerbTypeFocus, VerbKey, VerbScroll, VerbSelect}
}

// IsLawVerb reports whether s names a verb of the capability law.
func IsLawVerb(s string) bool {
	for _, v := range LawVerbs() {
		if string(v) == s {
			return true
		}
	}
	return false
}

// ProviderRefusal is the law's first clause: nil when p's provider can do
// verb, else not_on_this_provider naming the provider and why (facts
// provider, feature, reason). It holds whatever roads the probe found.
func (p Probe) ProviderRefusal(verb Verb) *Refusal {
	why, ok := p.ProviderCannot[verb]
	if !ok {
		return nil
	}
	why = orDefault(why, "its provider row says it cannot")
	name := orDefault(p.Provider, "unnamed")
	return Refuse(CodeNotOnThisProvider, "%s is not done on provider %s: %s", modeVerbWords(verb), name, why).
		With("provider", name).With("feature", string(verb)).With("reason", why)
}

// NodeTraits is what the tree says about one node, for the verbs that take a
// ref. Interfaces are AT-SPI interface names without the org.a11y.atspi.
// prefix ("Action", "EditableText", "Text", "Component").
type NodeTraits struct {
	Role       string   `json:"role,omitempty"`
	Name       string   `json:"name,omitempty"`
	Interfaces []string `json:"interfaces"`
	// Actions are the node's action names; nil when not known. A node
	// with the Action interface but no actions cannot be clicked.
	Actions   []string `json:"actions,omitempty"`
	Sensitive bool     `json:"sensitive"` // Node.Sensitive: SENSITIVE or ENABLED, as its toolkit means them
	Editable  bool     `json:"editable"`  // STATE_EDITABLE
	Focusable bool     `json:"focusable"` // STATE_FOCUSABLE
	// InSelection is set when the node's parent implements Selection and
	// counts the node among its children (a notebook's page tab, a list
	// box's row): a node with no Action is clicked by its parent selecting
	// it. The backend reads it only for nodes with no Action.
	InSelection bool `json:"in_selection,omitempty"`
}

// Has reports whether the node implements interface name.
func (n NodeTraits) Has(name string) bool {
	for _, i := range n.Interfaces {
		if i == name || strings.TrimPrefix(i, "org.a11y.atspi.") == name {
			return true
		}
	}
	return false
}

// Capability is the law's answer for one verb: the road it takes and why, or
// the refusal that stands in for "no road".
type Capability struct {
	Verb Verb `json:"verb"`
	Road Road `json:"road,omitempty"`
	// Means is how a node is acted on along the road where the law
	// chose among several (click @ref on the tree: the node's Action or
	// its parent's Selection); the backend is handed it and does that,
	// never deciding again. "" where the road has one means.
	Means   Means    `json:"means,omitempty"`
	Why     string   `json:"why"`
	Refusal *Refusal `json:"refusal,omitempty"`
}

// Means is how a node is acted on along the tree road.
type Means string

// The means of click @ref on the tree.
const (
	MeansAction    Means = "action"    // Action.DoAction on the node
	MeansSelection Means = "selection" // Selection.SelectChild of it on its parent
)

// Words are the means as an answer says what was done: "its Action",
// "its parent's Selection".
func (m Means) Words() string {
	switch m {
	case MeansAction:
		return "its Action"
	case MeansSelection:
		return "its parent's Selection"
	}
	return string(m)
}

// OK reports whether the verb has a road.
func (c Capability) OK() bool { return c.Refusal == nil && c.Road != RoadNone }

// Err is the refusal as an error, or nil when the verb has a road.
func (c Capability) Err() error {
	if c.Refusal == nil {
		return nil
	}
	return c.Refusal
}

// Decide applies the capability law to verb on a display probed as p. node
// is the target node for the verbs that take a ref (click @ref, type @ref)
// and is ignored by the others. It never degrades silently: a ref'd click
// whose node has no Action is refused even when injection exists.
func Decide(verb Verb, p Probe, node *NodeTraits) Capability {
	c := Capability{Verb: verb}
	refuse := func(r *Refusal) Capability { c.Refusal = r; c.Why = r.Message; return c }
	noInjection := func() Capability {
		why := p.InjectionWhy
		if why == "" {
			why = "no injection backend was found on this display"
		}
		return refuse(Refuse(CodeNoInjectionBackend, "%s needs injected input, and there is none: %s", verbWords(verb), why).
			With("probe", "injection: none").With("reason", why))
	}
	if r := p.ProviderRefusal(verb); r != nil {
		return refuse(r)
	}
	switch verb {
	case VerbSnapshot:
		if !p.Tree {
			why := orDefault(p.TreeWhy, "the application is not on the accessibility bus")
			return refuse(Refuse(CodeNoTree, "no accessibility tree for this window (%s); ask for a screenshot instead", why).With("reason", why))
		}
		c.Road, c.Why = RoadTree, orDefault(p.TreeVia, "the accessibility tree")
		return c
	case VerbScreenshot:
		if !p.Capture {
			why := orDefault(p.CaptureWhy, "window pixels cannot be read on this display")
			return refuse(Refuse(CodeNoCapture, "no screenshot: %s", why).With("reason", why))
		}
		c.Road, c.Why = RoadPixels, orDefault(p.CaptureVia, "a grab of the window's pixels")
		return c
	case VerbClickRef:
		if p.NodeInput {
			if p.Injection == "" {
				return noInjection()
			}
			c.Road, c.Why = RoadPoint, "input through "+p.Injection+" at the node's centre, once it is visible, enabled and uncovered"
			return c
		}
		if node == nil {
			return refuse(Refuse(CodeBadRef, "click @ref needs a node"))
		}
		noAction := !node.Has("Action") || (node.Actions != nil && len(node.Actions) == 0)
		if noAction && node.InSelection {
			if !node.Sensitive {
				return refuse(Refuse(CodeNotSensitive, "%s is not sensitive (disabled)", nodeWords(node)))
			}
			c.Road, c.Means, c.Why = RoadTree, MeansSelection, "Selection.SelectChild on its parent (it has no Action; its parent selects it, as a click on a page tab does)"
			return c
		}
		if noAction {
			return refuse(Refuse(CodeNoAction, "%s exposes no Action, so it cannot be clicked through the tree; a coordinate click (--at) is a separate, explicit choice", nodeWords(node)).
				With("interfaces", strings.Join(node.Interfaces, ",")))
		}
		if !node.Sensitive {
			return refuse(Refuse(CodeNotSensitive, "%s is not sensitive (disabled)", nodeWords(node)))
		}
		c.Road, c.Means, c.Why = RoadTree, MeansAction, "Action.DoAction on the node"
		return c
	case VerbTypeRef:
		if p.NodeInput {
			if p.Injection == "" {
				return noInjection()
			}
			c.Road, c.Why = RoadKeys, "focus the field, then key events through "+p.Injection
			return c
		}
		if node == nil {
			return refuse(Refuse(CodeBadRef, "type @ref needs a node"))
		}
		if !node.Sensitive {
			return refuse(Refuse(CodeNotSensitive, "%s is not sensitive (disabled); nothing was typed", nodeWords(node)))
		}
		if node.Has("EditableText") {
			if !node.Editable {
				return refuse(Refuse(CodeNotEditable, "%s is read-only (not EDITABLE); nothing was typed", nodeWords(node)))
			}
			c.Road, c.Why = RoadTree, "EditableText on the node"
			return c
		}
		if node.Focusable && p.Injection != "" {
			c.Road, c.Why = RoadKeys, fmt.Sprintf("the node has no EditableText but takes focus: focus it, then keys through %s", p.Injection)
			return c
		}
		why := "it takes no focus"
		if node.Focusable {
			why = "it takes focus but there is no injection backend (" + orDefault(p.InjectionWhy, "none found") + ")"
		}
		return refuse(Refuse(CodeNoEditableText, "%s has no EditableText and %s; nothing was typed", nodeWords(node), why).
			With("interfaces", strings.Join(node.Interfaces, ",")))
	case VerbSelect:
		// A choice control is set through its own selection (AT-SPI
		// Selection; a page's DOM selected flags), never by a pointer
		// at a guessed place in an open list.
		if !p.Tree {
			why := orDefault(p.TreeWhy, "the application is not on the accessibility bus")
			return refuse(Refuse(CodeNoTree, "select needs the tree, and there is none (%s)", why).With("reason", why))
		}
		if node == nil {
			return refuse(Refuse(CodeBadRef, "select @ref needs a node"))
		}
		if !node.Has("Selection") && !optionRoles[node.Role] {
			return refuse(Refuse(CodeNoAction, "%s offers no selection: select takes a choice control (a combo box, a list box, a page tab list) or one of its options", nodeWords(node)).
				With("interfaces", strings.Join(node.Interfaces, ",")))
		}
		if !node.Sensitive {
			return refuse(Refuse(CodeNotSensitive, "%s is not sensitive (disabled); nothing was selected", nodeWords(node)))
		}
		c.Road, c.Why = RoadTree, "the control's own selection on the node"
		return c
	case VerbTypeFocus, VerbKey:
		if p.Injection == "" {
			return noInjection()
		}
		c.Road, c.Why = RoadKeys, "key events through "+p.Injection
		return c
	case VerbClickAt, VerbScroll:
		if p.Injection == "" {
			return noInjection()
		}
		c.Road, c.Why = RoadPoint, "pointer events through "+p.Injection
		return c
	}
	return refuse(Refuse(CodeBadRequest, "unknown verb %s", Echo(string(verb))))
}

// Capabilities applies the law to every verb on a target probed as p, for
// list. For the verbs on a node (click @ref, type @ref) the answer is the
// road the nodes will take; each node is decided again at use.
func Capabilities(p Probe) []Capability {
	out := []Capability{Decide(VerbSnapshot, p, nil), Decide(VerbScreenshot, p, nil)}
	tree := out[0]
	for _, v := range []struct {
		verb Verb
		why  string
	}{
		{VerbClickRef, "Action.DoAction where the node has an Action; its parent's Selection.SelectChild where it has none but its parent selects it (a page tab); no_action otherwise"},
		{VerbTypeRef, "EditableText, or focus and keys where the node takes focus and injection exists"},
	} {
		var c Capability
		switch r := p.ProviderRefusal(v.verb); {
		case r != nil:
			c = Capability{Verb: v.verb, Road: RoadNone, Why: r.Message, Refusal: r}
		case p.NodeInput:
			c = Decide(v.verb, p, nil)
		case tree.OK():
			c = Capability{Verb: v.verb, Road: RoadTree, Why: v.why}
		default:
			c = Capability{Verb: v.verb, Road: RoadNone, Why: tree.Why, Refusal: tree.Refusal}
		}
		if c.OK() {
			c.Why = "per node: " + c.Why
		}
		out = append(out, c)
	}
	for _, v := range []Verb{VerbClickAt, VerbTypeFocus, VerbKey, VerbScroll} {
		out = append(out, Decide(v, p, nil))
	}
	return out
}

// optionRoles are the roles of a choice control's options: select on one
// chooses it (its control is the one changed).
var optionRoles = map[string]bool{"list item": true, "menu item": true, "page tab": true, "option": true}

func verbWords(v Verb) string {
	switch v {
	case VerbClickAt:
		return "click --at"
	case VerbTypeFocus:
		return "type without a ref"
	}
	return string(v)
}

func nodeWords(n *NodeTraits) string {
	switch {
	case n.Role != "" && n.Name != "":
		return fmt.Sprintf("the %s %q", n.Role, n.Name)
	case n.Role != "":
		return "the " + n.Role
	}
	return "the node"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TraitsOf reads the traits the law needs from a snapshot node.
func TraitsOf(n *Node) NodeTraits {
	return NodeTraits{
		Role:       n.Role,
		Name:       n.Name,
		Interfaces: n.Interfaces,
		Actions:    append([]string{}, n.Actions...),
		Sensitive:  n.Sensitive(),
		Editable:   n.Has("editable"),
		Focusable:  n.Has("focusable"),
	}
}
