package args

// The arguments of the verbs that read a target: snapshot, find, get,
// eval, wait.

import (
	"strings"

	"github.com/vibespace/vibespace/target"
)

// Observe is how much of a target's tree a snapshot answers: a part
// (@ref), the nodes one acts on, levels, what changed. (The command
// line's --json, the tree as JSON instead of text, is the request's
// envelope's: the answer's form.)
type Observe struct {
	Ref         string `json:"ref,omitempty" jsonschema:"only this node's subtree (@eN)"`
	Interactive bool   `json:"interactive,omitempty" jsonschema:"only actionable nodes and their labels"`
	Depth       int    `json:"depth,omitempty" jsonschema:"N levels below the root (or the ref)"`
	Diff        bool   `json:"diff,omitempty" jsonschema:"what changed since your last snapshot of it"`
}

// Snapshot is snapshot's: Observe, and After, which reads on past a
// snapshot its budget cut (only a target that pages takes it: a tab).
type Snapshot struct {
	Observe
	After string `json:"after,omitempty" jsonschema:"read on after this node (@eN): the ref a cut snapshot names"`
}

// Validate checks the observing fields of a snapshot request.
func (a Snapshot) Validate() error {
	if a.Depth < 0 {
		return badRequest("--depth takes a number of levels below the root, 1 or more (0: all)").With("depth", a.Depth)
	}
	if a.Diff && a.Depth > 0 {
		return badRequest("--diff answers what changed, not levels: drop --depth (snapshot @ref --diff narrows a diff to one part)")
	}
	if a.After != "" && a.Ref != "" {
		return badRequest("--after reads on past a snapshot its budget cut, and snapshot @ref reads one part whole: give one of them").With("ref", target.Clip(a.Ref)).With("after", target.Clip(a.After))
	}
	if a.After != "" && a.Diff {
		return badRequest("--diff answers what changed since your last whole snapshot, and a page read --after is only the part after a node: drop one of them (snapshot --diff diffs the page from its start)")
	}
	return nil
}

// Find is find's: the text a node's name or value contains (any case).
type Find struct {
	Text string `json:"text" jsonschema:"text in a name or value (any case)"`
}

func (a Find) Validate() error {
	if strings.TrimSpace(a.Text) == "" {
		return badRequest("find needs the text to look for: find \"Save\"")
	}
	return nil
}

// GetNode is a window's get: get <handle> text @ref, its node's text.
// What is the word after the handle, text its only one (a tool sets it:
// its input takes no word).
type GetNode struct {
	What string `json:"what"`
	Ref  string `json:"ref" jsonschema:"the node (@eN)"`
}

func (a GetNode) Validate() error {
	if a.What != "text" || a.Ref == "" {
		return badRequest("get %s: a window's get is get <handle> text @ref (its node's text)", target.Echo(a.What))
	}
	return nil
}

// Get is a tab's get: its text (or a node's, @ref), its URL or its title.
type Get struct {
	What string `json:"what" jsonschema:"text, url or title"`
	Ref  string `json:"ref,omitempty" jsonschema:"with text: that node's text (@eN)"`
}

func (a Get) Validate() error {
	switch a.What {
	case "text", "url", "title":
		return nil
	}
	return badRequest("get %s: use text, url or title", target.Echo(a.What))
}

// Eval is eval's: an expression evaluated in the page.
type Eval struct {
	Expr string `json:"expr" jsonschema:"a JavaScript expression"`
}

func (a Eval) Validate() error {
	if strings.TrimSpace(a.Expr) == "" {
		return badRequest("eval needs an expression")
	}
	return nil
}

// Wait is wait's: what the page must show (a selector, a text, a URL).
type Wait struct {
	Selector string `json:"selector,omitempty" jsonschema:"a CSS selector"`
	Text     string `json:"text,omitempty" jsonschema:"a text of the page"`
	URL      string `json:"url,omitempty" jsonschema:"a part of the URL"`
}

// Validate refuses nothing: what a wait needs is the daemon's to say.
func (a Wait) Validate() error { return nil }

// isBlank reports whether s is only white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
