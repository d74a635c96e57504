package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"strconv"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/target"
)

// selectOptions sets a choice control (@ref: a combo box, a list box, a
// page's <select>, or one of their options) to the options named — by
// label, or a page's option by value — through the control's own
// selection, never a pointer at a guessed place in an open list. A single
// choice takes exactly one; a multiple one ends holding exactly those.
// The answer is what the control holds, read back from it (Value, as a
// JSON array of labels); a control that ends holding something else is
// value_not_set, an option it lacks no_option.
func (d *Daemon) selectOptions(ctx context.Context, c *call) Response {
	e, a := c.e, c.Args.(args.Select)
	probe := d.probe(ctx, e)
	if !probe.Tree {
		return d.fail(c, target.Decide(target.VerbSelect, probe, nil).Err())
	}
	c.Road = target.RoadTree
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	n, err := e.node(a.Ref)
	if err != nil {
		return d.fail(c, err)
	}
	// The node is read once: the road is decided on it and the look
	// before acting takes it (kind.ReadForAct; its facts go to the watcher).
	read, err := kind.ReadForAct(ctx, e.t, n)
	if err != nil {
		return d.fail(c, d.cut(ctx, e, c.Req.Session, err))
	}
	tr := read.Traits
	c.Acted = &tr
	s, ok := e.t.(kind.Selector)
	if !ok {
		c.Road = ""
		return d.fail(c, target.Refuse(target.CodeNoAction, "this %s's node %s offers no selection: select does not reach it (click its options instead)", e.words().Noun, strings.TrimSpace(a.Ref+" "+describe(tr))).
			With("ref", a.Ref).With("interfaces", strings.Join(tr.Interfaces, ",")))
	}
	if err := d.decide(c, target.VerbSelect, probe, &tr); err != nil {
		return d.fail(c, err)
	}
	if err := d.still(e, c.Req.Session); err != nil {
		return d.fail(c, err)
	}
	w := c.watchEffect(ctx, d, stage.Acting{Node: &n, Read: factsOf(&read)})
	held, err := s.Select(ctx, n, a.Options)
	if err != nil {
		return d.fail(c, d.cut(ctx, e, c.Req.Session, err))
	}
	v, err := json.Marshal(held)
	if err != nil {
		return d.fail(c, err)
	}
	resp := Response{Did: selectedWords(held, a.Ref, tr), Value: v}
	w.After(ctx, &resp)
	return d.finish(c, resp, nil)
}

// selectedWords is select's answer: `selected "Green" in combo box
// "Colour" @e12`; several: `selected "Ham", "Olives" in list box
// "Toppings" @e36 (it holds exactly these)`; one in a list box, which may
// take several: `(it holds only this)`.
func selectedWords(held []string, ref string, tr target.NodeTraits) string {
	q := make([]string, len(held))
	for i, h := range held {
		q[i] = strconv.Quote(h)
	}
	what := strings.Join(q, ", ")
	if len(held) == 0 {
		what = "nothing"
	}
	in := ref
	switch {
	case tr.Role != "" && tr.Name != "":
		in = fmt.Sprintf("%s %q %s", tr.Role, tr.Name, ref)
	case tr.Role != "":
		in = tr.Role + " " + ref
	}
	did := "selected " + what + " in " + in
	if !tr.Has("Selection") && tr.Role != "" {
		did = "selected " + what + " by its option " + in
	}
	switch {
	case len(held) > 1:
		did += " (it holds exactly these)"
	case len(held) == 1 && tr.Role == "list box":
		// A list box may take several: say the pick replaced the others.
		did += " (it holds only this)"
	}
	return did
}
