package daemon

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"

	"github.com/vibespace/vibespace/target"
)

// findCap bounds find's answer: the matches past it are counted, not shown.
const findCap = 25

// findText answers the refs of the target's nodes whose name or text value
// contains args.Find's Text, case-insensitively, each with its nearest named
// ancestors; no match is an answer, saying how many nodes were searched.
// It reads the whole tree but is not a snapshot: the session's last
// snapshot (what --diff compares with) stays the one the agent saw.
func (d *Daemon) findText(ctx context.Context, c *call) Response {
	e := c.e
	if err := d.decide(c, target.VerbSnapshot, d.probe(ctx, e), nil); err != nil {
		return d.fail(c, err)
	}
	ctx, end, err := d.begin(ctx, e)
	if err != nil {
		return d.fail(c, err)
	}
	defer end()
	snap, err := d.readTree(ctx, c, "")
	if err != nil {
		return d.fail(c, err)
	}
	f := snap.FindText(c.Args.(args.Find).Text, findCap)
	resp := Response{}
	if c.Req.JSON {
		resp.Found = f
		resp.Did = fmt.Sprintf("%d matches among %d nodes", len(f.Matches)+f.More, f.Searched)
	} else {
		resp.Text = f.Text()
	}
	return d.finish(c, resp, nil)
}

// getNode answers a window's node's text (get <handle> text @ref): the
// same reading as a tab's get text @ref.
func (d *Daemon) getNode(ctx context.Context, c *call) Response {
	if err := d.decide(c, target.VerbSnapshot, d.probe(ctx, c.e), nil); err != nil {
		return d.fail(c, err)
	}
	return d.locked(ctx, c, func(ctx context.Context) (Response, error) { return d.nodeText(ctx, c, args.Ref(c.Args)) })
}

// nodeText reads c's target's tree and answers the text of the node ref
// names (target.NodeText): bad_ref for a ref never minted for it,
// stale_ref for one whose node is gone. The caller holds the target
// (begin).
func (d *Daemon) nodeText(ctx context.Context, c *call, ref string) (Response, error) {
	key, err := c.e.refs.Key(ref)
	if err != nil {
		return Response{}, err
	}
	snap, err := d.readTree(ctx, c, "")
	if err != nil {
		return Response{}, err
	}
	canon := c.e.refs.Ref(key)
	var n *target.Node
	if snap.Root != nil {
		n = snap.Root.Find(func(n *target.Node) bool { return n.Key == key })
	}
	if n == nil {
		return Response{}, goneRef(c.e, canon)
	}
	text, cut := target.NodeText(n)
	resp := Response{Text: text}
	if text == "" {
		resp.Did = canon + " has no text"
	}
	if cut {
		resp.Did = fmt.Sprintf("the first %d characters of %s's value of %d (a value is read up to that)", len([]rune(text)), canon, n.TextLen)
	}
	return resp, nil
}
