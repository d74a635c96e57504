package firefox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/pagewatch"
	"github.com/vibespace/vibespace/target"
)

// The effect check's page watcher on a Firefox tab: the Chromium tab's
// scripts (cdp.WatchArmJS, cdp.WatchToldJS, cdp.WaitChangeJS,
// cdp.ContentDigestJS, cdp.NodeFactsJS) run through BiDi's script module,
// and told in the same words (daemon/pagewatch).
//
// The watcher runs in the page's own realm (the main world), as
// Chromium's does, not in our sandbox: it counts what the act's handlers
// start (the page's setTimeout, requestAnimationFrame, fetch and
// XMLHttpRequest, wrapped while it is armed, and window.event in them),
// and a sandbox sees the page's window through an Xray view whose
// properties it sets are its own: wrapped there, the page's scripts would
// never call the wrappers. Its mutation observer sees the same document
// either way. What is only read — the content's digest and a node's
// facts — runs in the sandbox, where the walk's handles are and where the
// page's scripts cannot change the answer.

var (
	_ kind.NodeReader      = (*Tab)(nil)
	_ kind.ContentDigester = (*Tab)(nil)
	_ kind.ChangeWaiter    = (*Tab)(nil)
	_ kind.ChangeTeller    = (*Tab)(nil)
)

// page is the tab's main world: the page's own realm.
func (t *Tab) page() bidi.Target { return bidi.Target{Context: t.id} }

// Changes tells what changed in the page after mark (since 0: arms its
// watcher for pagewatch.Life), waiting up to d for a change or for the
// page to be quiet: one script.evaluate each.
func (t *Tab) Changes(ctx context.Context, since uint64, d time.Duration) (kind.Changes, error) {
	if since == 0 {
		if _, err := t.conn.Evaluate(ctx, t.page(), cdp.WatchArmJS(pagewatch.Life.Milliseconds())); err != nil {
			return kind.Changes{}, t.fail(err)
		}
		return kind.Changes{Mark: 1}, nil
	}
	cctx, cancel := context.WithTimeout(ctx, d+time.Second) // its bound: the page's own timer, and a little
	defer cancel()
	v, err := t.conn.Evaluate(cctx, t.page(), `(async () => JSON.stringify(await `+cdp.WatchToldJS(since, d.Milliseconds(), false)+`))()`)
	if t.left(ctx, cctx, err) {
		return pagewatch.Changes(cdp.Told{Mark: since, Gone: true}), nil
	}
	if err != nil {
		return kind.Changes{}, t.fail(err)
	}
	s, ok := v.String()
	if !ok {
		return kind.Changes{}, fmt.Errorf("firefox: the page's watcher answered a %s", v.Type)
	}
	told, err := cdp.DecodeTold([]byte(s), since)
	if err != nil {
		return kind.Changes{}, err
	}
	if told.Gone || unloads(told) {
		t.awaitLeft(ctx, max(d, leaveWait))
	}
	return pagewatch.Changes(told), nil
}

// leaveWait bounds the wait for a document that began to unload to be
// replaced (Tab.awaitLeft), when the question waited less.
const leaveWait = 500 * time.Millisecond

// unloads reports whether the watcher told that its document began to
// unload (beforeunload, pagehide): a navigation leaving it.
func unloads(told cdp.Told) bool {
	for _, c := range told.Changes {
		if c.What == "beforeunload" || c.What == "pagehide" {
			return true
		}
	}
	return false
}

// awaitLeft waits, up to d, until the document whose watcher told it
// began to unload (or that is gone already) is replaced by the next (no watcher is armed in the
// page's realm): the watcher answers at beforeunload, before the next
// document is committed, and the look that follows must see the next
// one (its address, its title), as a Chromium tab's does. Firefox shows
// an about:blank between the two (measured: a look under the race
// detector read the address about:blank and no title), which is not
// taken for the next document (a navigation to about:blank itself waits
// out d). One
// script.evaluate each 25 ms; a navigation that never commits (a 204,
// a download) costs d.
func (t *Tab) awaitLeft(ctx context.Context, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := t.conn.Evaluate(ctx, t.page(), `!window[Symbol.for('vibespace.watch')] && location.href !== "about:blank"`)
		if err == nil && v.Type == "boolean" && string(v.Value) == "true" {
			return
		}
		if err != nil && ctx.Err() == nil && t.fail(err) != err {
			return // the tab is gone: the look says so
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// left reports whether a call in the page that was not answered within
// its bound (cctx's deadline passed, ctx's did not) went unanswered because
// its document went: Firefox never answers a script whose realm was
// destroyed while it awaited a promise (measured: the call waits out any
// deadline). The watcher and the sign of change resolve at the document's
// beforeunload and pagehide, before it goes; this is for a document that
// went without them. It asks the page, once, whether a watcher is still
// armed in it: none is a new document.
func (t *Tab) left(ctx, cctx context.Context, err error) bool {
	if err == nil || cctx.Err() == nil || ctx.Err() != nil {
		return false
	}
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	v, qerr := t.conn.Evaluate(qctx, t.page(), `!!window[Symbol.for('vibespace.watch')]`)
	return qerr == nil && v.Type == "boolean" && string(v.Value) == "false"
}

// WaitChange waits, in one script.evaluate in the page, until it shows a
// sign of change (a mutation of its document, a field's input, its address
// moving, the document left) or d passes, and says whether it saw one. A
// wait the page did not answer within its bound (its document may have
// gone: Tab.left) is a sign too.
func (t *Tab) WaitChange(ctx context.Context, d time.Duration) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, d+time.Second)
	defer cancel()
	v, err := t.conn.Evaluate(cctx, t.page(), cdp.WaitChangeJS(d.Milliseconds()))
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		// Unanswered past the page's own timer: its document may have
		// gone (t.left). A sign is no judgement: the verifier looks.
		return true, nil
	}
	if err != nil {
		return false, t.fail(err)
	}
	return v.Type == "boolean" && string(v.Value) == "true", nil
}

// ContentDigest digests what a person reads of the page now (its text,
// fields' values, checked states: cdp.ContentDigestJS), in the sandbox,
// and of each frame the last snapshot read, in that frame's context (one
// command each), as a Chromium tab's digest does: an act inside an
// <iframe> changes what a person reads there, which the page's watcher,
// armed in the top document, does not see. A frame that cannot be asked
// now (gone, navigating) digests as "-".
func (t *Tab) ContentDigest(ctx context.Context) (string, error) {
	s, err := t.digestIn(ctx, t.sandbox())
	if err != nil {
		return "", t.fail(err)
	}
	t.mu.Lock()
	frames := make([]bidi.Context, 0, len(t.frames))
	for c := range t.frames {
		frames = append(frames, c)
	}
	t.mu.Unlock()
	if len(frames) == 0 {
		return s, nil
	}
	slices.Sort(frames)
	var b strings.Builder
	b.WriteString(s)
	for _, c := range frames {
		d, err := t.digestIn(ctx, bidi.Target{Context: c, Sandbox: sandbox})
		if err != nil {
			if ctx.Err() != nil {
				return "", t.fail(err)
			}
			d = "-"
		}
		b.WriteString(" ")
		b.WriteString(d)
	}
	return b.String(), nil
}

// digestJS is the expression of cdp.ContentDigestJS's answer in one
// document.
var digestJS = "(" + cdp.ContentDigestJS() + ").call(document)"

// digestIn is cdp.ContentDigestJS's answer in one document.
func (t *Tab) digestIn(ctx context.Context, tgt bidi.Target) (string, error) {
	v, err := t.conn.Evaluate(ctx, tgt, digestJS)
	if err != nil {
		return "", err
	}
	s, ok := v.String()
	if !ok {
		return "", fmt.Errorf("firefox: the content's digest answered a %s", v.Type)
	}
	return s, nil
}

// ReadNode reads what the page says of an element now, in the sandbox on
// the walk's handle (cdp.NodeFactsJS, called as select's page functions
// are: choiceNode): its states, and its value (a
// field's) or text as the node's text; its role and name as the last
// snapshot gave them. A node that is gone is stale_ref.
func (t *Tab) ReadNode(ctx context.Context, n kind.Node) (*target.Node, error) {
	w, err := t.handle(n)
	if err != nil {
		return nil, err
	}
	var f struct {
		cdp.NodeFacts
		Gone bool `json:"gone"`
	}
	if err := (choiceNode{t: t, n: n, w: w}).Call(ctx, cdp.NodeFactsJS(), &f); err != nil {
		return nil, err
	}
	if f.Gone {
		return nil, staleRef(n)
	}
	t.mu.Lock()
	rn := t.seen[n.Key]
	t.mu.Unlock()
	f.Role, f.Name = rn[0], rn[1]
	return pagewatch.FactsNode(f.NodeFacts), nil
}
