package cdp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	proto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// NodeFacts is what a page says of one element now, for comparing it before
// and after an action: its own value, text and states.
type NodeFacts struct {
	Tag      string `json:"tag"`
	Role     string `json:"role"`
	Name     string `json:"name"`
	Value    string `json:"value"` // a field's value; "" for an element that has none
	Text     string `json:"text"`  // the first characters of its text
	TextLen  int    `json:"textLen"`
	Checked  bool   `json:"checked"`
	Selected bool   `json:"selected"`
	Focused  bool   `json:"focused"`
	Disabled bool   `json:"disabled"`
	Expanded string `json:"expanded"` // aria-expanded, as the page has it
	Pressed  string `json:"pressed"`  // aria-pressed
}

// nodeFactsJS reads the element it is called on; nothing is changed.
const nodeFactsJS = `function () {
	const e = this;
	if (!e.isConnected) return {gone: true};
	const attr = (n) => (e.getAttribute && e.getAttribute(n)) || "";
	const text = (e.innerText !== undefined ? e.innerText : e.textContent) || "";
	const name = attr("aria-label") || (e.labels && e.labels[0] && e.labels[0].innerText) || attr("title") || (text.length <= 80 ? text.trim() : "");
	return {
		tag: (e.tagName || "").toLowerCase(), role: attr("role"), name: name,
		value: ("value" in e && typeof e.value === "string") ? e.value : "",
		text: text.slice(0, 120), textLen: text.length,
		checked: !!e.checked, selected: !!e.selected, focused: document.activeElement === e,
		disabled: !!e.disabled, expanded: attr("aria-expanded"), pressed: attr("aria-pressed"),
	};
}`

// NodeFacts reads an element's role and name (as a snapshot names them),
// value, text and states without scrolling, focusing or otherwise touching
// it, all on the session of the element's frame. A node that is gone is
// stale_ref.
func (t *Tab) NodeFacts(ctx context.Context, nr NodeRef) (NodeFacts, error) {
	var out struct {
		NodeFacts
		Gone bool `json:"gone"`
	}
	a, axErr, err := t.callWithAX(ctx, nr, nodeFactsJS, &out)
	if err != nil {
		return NodeFacts{}, err
	}
	if out.Gone {
		return NodeFacts{}, staleRef(nr.Ref)
	}
	if axErr == nil && a != nil { // a tree that did not answer leaves them empty
		out.Role, out.Name = roleName(a.Role), a.Name
	}
	return out.NodeFacts, nil
}

// callWithAX resolves node nr once, on its frame's session, and there
// runs fn on it while, pipelined, the page's tree answers its AX node
// (axNodeParams): two round trips. a is nil where the tree leaves the
// node out; axErr is the tree's failure, err the resolve's or fn's.
func (t *Tab) callWithAX(ctx context.Context, nr NodeRef, fn string, out any, args ...any) (a *axNode, axErr, err error) {
	n, err := t.resolve(ctx, nr)
	if err != nil {
		return nil, nil, err
	}
	id := n.backend
	axCall, axErr := n.sess.send(ctx, accessibility.CommandGetPartialAXTree, axNodeParams(id))
	err = t.call(ctx, n, fn, out, args...)
	t.releaseNode(ctx, n)
	if axErr == nil {
		a, axErr = t.axNodeReply(ctx, nr.Ref, n.sess, axCall, id)
	}
	return a, axErr, err
}

// axNodeParams asks for the AX node of one backend node, without its
// relatives.
func axNodeParams(id int64) *accessibility.GetPartialAXTreeParams {
	return &accessibility.GetPartialAXTreeParams{BackendNodeID: proto.BackendNodeID(id), FetchRelatives: new(false)}
}

// axNodeReply reads the reply of a GetPartialAXTree sent on sess for
// backend node id (axNodeParams): the node's AX node, nil when the tree
// leaves it out. A node the page no longer has is stale_ref.
func (t *Tab) axNodeReply(ctx context.Context, ref string, sess *Session, call *inflight, id int64) (*axNode, error) {
	var tree axTree
	if err := sess.wait(ctx, call, &tree); err != nil {
		return nil, t.nodeFail(ref, sess, err)
	}
	for _, a := range tree.nodes {
		if a.BackendID == id && !a.Ignored {
			return a, nil
		}
	}
	return nil, nil
}

// nodeFail maps an error of a call about ref's node on sess: a node the
// page does not have is stale_ref; on a frame's session its ending is too.
func (t *Tab) nodeFail(ref string, sess *Session, err error) error {
	if e, ok := asError(err); ok && e.Code == codeServerError {
		return staleRef(ref).Wrap(err)
	}
	if sess != t.sess {
		return t.frameFail(ref, err)
	}
	return t.fail(err)
}

// contentDigestJS digests what a person reads of the page: its text, every
// field's value, every checked box and chosen option; the focus, hover, the
// caret and styles are left out. The digest is a
// 32-bit FNV-1a of that, in hex, with the text's length beside it.
const contentDigestJS = `function () {
	const document = this;
	let h = 0x811c9dc5, n = 0;
	const add = (s) => { s = String(s); n += s.length; for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; } h ^= 0x1f; };
	const b = document.body || document.documentElement;
	add(b ? b.innerText : "");
	for (const e of document.querySelectorAll("input, textarea, select, option, [aria-checked], [aria-expanded], [aria-pressed], [aria-selected]")) {
		add(e.value === undefined ? "" : e.value); add(e.checked ? 1 : 0); add(e.selected ? 1 : 0);
		add(e.getAttribute("aria-checked") || ""); add(e.getAttribute("aria-expanded") || ""); add(e.getAttribute("aria-pressed") || ""); add(e.getAttribute("aria-selected") || "");
	}
	add(document.querySelectorAll("*").length);
	return h.toString(16) + "/" + n;
}`

// ContentDigest answers a short digest of what a person reads of the page
// now (its text, field values, checked states), the main frame's and that
// of each frame the latest snapshot read (a frame that went reads "-"): two
// reads of an unchanged page answer the same.
func (t *Tab) ContentDigest(ctx context.Context) (string, error) {
	var s string
	if err := t.EvalInto(ctx, "("+contentDigestJS+").call(document)", &s); err != nil {
		return "", err
	}
	return t.withFrames(ctx, s)
}

// withFrames is s, the main frame's digest, followed by that of each
// frame the latest snapshot read (ContentDigest's).
func (t *Tab) withFrames(ctx context.Context, s string) (string, error) {
	frames := t.frames.recorded(t.gen.Load())
	if len(frames) == 0 {
		return s, nil
	}
	sort.Slice(frames, func(i, j int) bool { return frames[i].id < frames[j].id })
	var b strings.Builder
	b.WriteString(s)
	for _, f := range frames {
		b.WriteString(" ")
		d, err := t.frameDigest(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return "", t.fail(err)
			}
			d = "-"
		}
		b.WriteString(d)
	}
	return b.String(), nil
}

// frameDigest digests frame f's document, on its session.
func (t *Tab) frameDigest(ctx context.Context, f *frameRec) (string, error) {
	doc := t.frames.docOf(f)
	if doc == 0 {
		return "", errors.New("cdp: the frame's document is not known")
	}
	n, err := t.resolveIn(ctx, "", f.sess, f, doc)
	if err != nil {
		return "", err
	}
	var s string
	err = t.call(ctx, n, contentDigestJS, &s)
	t.releaseNode(ctx, n)
	return s, err
}

// waitChangeJS resolves true at the first sign that the page changed — a
// mutation of its document (a node added or removed, an attribute, a
// text), a field's input or change, the address's fragment or history
// moving, the document being left — and false when ms pass without one.
// It cleans up after itself either way.
const waitChangeJS = `new Promise((resolve) => {
	let done = false, timer = 0;
	const evs = [[document, 'input'], [document, 'change'], [window, 'hashchange'], [window, 'popstate'], [window, 'beforeunload'], [window, 'pagehide']];
	const obs = new MutationObserver(() => end(true));
	const on = () => end(true);
	const end = (v) => {
		if (done) return;
		done = true;
		obs.disconnect();
		clearTimeout(timer);
		for (const [t, k] of evs) t.removeEventListener(k, on, true);
		resolve(v);
	};
	obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
	for (const [t, k] of evs) t.addEventListener(k, on, true);
	timer = setTimeout(() => end(false), %d);
})`

// WaitChange waits, in one call, until the page shows a sign of change (a
// mutation of its main document, a field's input, its address moving, the
// document left: waitChangeJS) or d passes, and says whether it saw one.
// A document that went while it waited (the tab navigated) is a change.
// It tells that something moved, not what: the caller looks.
func (t *Tab) WaitChange(ctx context.Context, d time.Duration) (bool, error) {
	ms := max(d.Milliseconds(), 1)
	var res runtime.EvaluateResult
	// The call outlives the page's own timer by a little: its bound.
	cctx, cancel := context.WithTimeout(ctx, d+time.Second)
	defer cancel()
	err := t.sess.Call(cctx, runtime.CommandEvaluate, &runtime.EvaluateParams{
		Expression:    fmt.Sprintf(waitChangeJS, ms),
		ReturnByValue: new(true),
		AwaitPromise:  new(true),
	}, &res)
	if err != nil {
		if e, ok := asError(err); ok && e.Code == codeServerError {
			return true, nil // its context was destroyed: the document went
		}
		return false, t.fail(err)
	}
	if res.ExceptionDetails != nil {
		return false, scriptError(res.ExceptionDetails)
	}
	changed := res.Result != nil && string(res.Result.Value) == "true"
	return changed, nil
}
