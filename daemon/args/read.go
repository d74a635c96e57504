package args

// The arguments of the verbs that read a target: snapshot, find, get,
// eval, wait.

import (
	"strings"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Observe is how much of a target's tree a snapshot answers: a part
// (@ref), the nodes one acts on, levels, what changed. JSON is the
// command line's --json: the tree as JSON instead of text (no tool's
// argument: a tool answers text).
type Observe struct {
	Ref         string `json:"ref,omitempty" jsonschema:"only this node's subtree (@eN)"`
	Interactive bool   `json:"interactive,omitempty" jsonschema:"only nodes you can act on, and the labels around them"`
	Depth       int    `json:"depth,omitempty" jsonschema:"keep N levels below the root (or the ref)"`
	Diff        bool   `json:"diff,omitempty" jsonschema:"only what changed since your last snapshot of it"`
	JSON        bool   `json:"-"`
}

// Snapshot is snapshot's: Observe, and After, which reads on past a
// snapshot its budget cut (only a target that pages takes it: a tab).
type Snapshot struct {
	Observe
	After string `json:"after,omitempty" jsonschema:"what follows this node (@eN) in the page: the next page of a snapshot its budget cut, whose header names the ref"`
}

// SnapshotOf reads snapshot's arguments from req.
func SnapshotOf(req wire.Request) Snapshot {
	return Snapshot{Observe: Observe{Ref: req.Ref, Interactive: req.Interactive, Depth: req.Depth, Diff: req.Diff, JSON: req.JSON}, After: req.After}
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

func (a Snapshot) Into(req *wire.Request) {
	req.Ref, req.Interactive, req.Depth, req.Diff, req.JSON = a.Ref, a.Interactive, a.Depth, a.Diff, a.JSON
	req.After = a.After
}

// Find is find's: the text a node's name or value contains (any case).
// JSON is the command line's --json.
type Find struct {
	Text string `json:"text" jsonschema:"the text a name or value contains (any case)"`
	JSON bool   `json:"-"`
}

// FindOf reads find's arguments from req.
func FindOf(req wire.Request) Find { return Find{Text: req.Text, JSON: req.JSON} }

func (a Find) Validate() error {
	if strings.TrimSpace(a.Text) == "" {
		return badRequest("find needs the text to look for: find \"Save\"")
	}
	return nil
}

func (a Find) Into(req *wire.Request) { req.Text, req.JSON = a.Text, a.JSON }

// GetNode is a window's get: get <handle> text @ref, its node's text.
// What is the word after the handle, text its only one (a tool sets it).
type GetNode struct {
	What string `json:"-"`
	Ref  string `json:"ref" jsonschema:"the node (@eN)"`
}

// GetNodeOf reads a window's get's arguments from req.
func GetNodeOf(req wire.Request) GetNode { return GetNode{What: req.Action, Ref: req.Ref} }

func (a GetNode) Validate() error {
	if a.What != "text" || a.Ref == "" {
		return badRequest("get %s: a window's get is get <handle> text @ref (its node's text)", target.Echo(a.What))
	}
	return nil
}

func (a GetNode) Into(req *wire.Request) { req.Action, req.Ref = a.What, a.Ref }

// Get is a tab's get: its text (or a node's, @ref), its URL or its title.
type Get struct {
	What string `json:"what" jsonschema:"text, url or title"`
	Ref  string `json:"ref,omitempty" jsonschema:"with text: that node's text (@eN)"`
}

// GetOf reads a tab's get's arguments from req.
func GetOf(req wire.Request) Get { return Get{What: req.Action, Ref: req.Ref} }

func (a Get) Validate() error {
	switch a.What {
	case "text", "url", "title":
		return nil
	}
	return badRequest("get %s: use text, url or title", target.Echo(a.What))
}

func (a Get) Into(req *wire.Request) { req.Action, req.Ref = a.What, a.Ref }

// Eval is eval's: an expression evaluated in the page.
type Eval struct {
	Expr string `json:"expr"`
}

// EvalOf reads eval's arguments from req.
func EvalOf(req wire.Request) Eval { return Eval{Expr: req.Expr} }

func (a Eval) Validate() error {
	if strings.TrimSpace(a.Expr) == "" {
		return badRequest("eval needs an expression")
	}
	return nil
}

func (a Eval) Into(req *wire.Request) { req.Expr = a.Expr }

// Wait is wait's: what the page must show (a selector, a text, a URL).
type Wait struct {
	Selector string `json:"selector,omitempty"`
	Text     string `json:"text,omitempty"`
	URL      string `json:"url,omitempty"`
}

// WaitOf reads wait's arguments from req.
func WaitOf(req wire.Request) Wait { return Wait{Selector: req.Selector, Text: req.Text, URL: req.URL} }

// Validate refuses nothing: what a wait needs is the daemon's to say.
func (a Wait) Validate() error { return nil }

func (a Wait) Into(req *wire.Request) { req.Selector, req.Text, req.URL = a.Selector, a.Text, a.URL }

// isBlank reports whether s is only white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
