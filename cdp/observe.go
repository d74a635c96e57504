package cdp

import (
	"context"

	"github.com/chromedp/cdproto/accessibility"
	proto "github.com/chromedp/cdproto/cdp"
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
// it. A node that is gone is stale_ref.
func (t *Tab) NodeFacts(ctx context.Context, nr NodeRef) (NodeFacts, error) {
	n, err := t.resolve(ctx, nr)
	if err != nil {
		return NodeFacts{}, err
	}
	_, id, _ := parseKey(nr.Key) // resolve checked it
	var ax axTree
	axErr := t.sess.Call(ctx, accessibility.CommandGetPartialAXTree, &accessibility.GetPartialAXTreeParams{BackendNodeID: proto.BackendNodeID(id), FetchRelatives: new(false)}, &ax)
	var out struct {
		NodeFacts
		Gone bool `json:"gone"`
	}
	err = t.call(ctx, n, nodeFactsJS, &out)
	t.releaseNode(ctx, n)
	if err != nil {
		return NodeFacts{}, err
	}
	if out.Gone {
		return NodeFacts{}, staleRef(nr.Ref)
	}
	if axErr == nil {
		for _, a := range ax.nodes {
			if a.BackendID == id && !a.Ignored {
				out.Role, out.Name = roleName(a.Role), a.Name
			}
		}
	}
	return out.NodeFacts, nil
}

// contentDigestJS digests what a person reads of the page: its text, every
// field's value, every checked box and chosen option; the focus, hover, the
// caret and styles are left out. The digest is a
// 32-bit FNV-1a of that, in hex, with the text's length beside it.
const contentDigestJS = `(() => {
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
})()`

// ContentDigest answers a short digest of what a person reads of the page
// now (its text, field values, checked states): two reads of an unchanged
// page answer the same.
func (t *Tab) ContentDigest(ctx context.Context) (string, error) {
	var s string
	err := t.EvalInto(ctx, contentDigestJS, &s)
	return s, err
}
