package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"sync"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/capture"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Provider is the provider row a Firefox tab's probe names.
const Provider = "firefox"

// sandbox is our isolated realm in every document.
const sandbox = "vibespace"

// world is the world part of every key: one sandbox per document, whose
// generation the key names already.
const world = 1

// rawBudget is how many nodes one walk emits at most (as the page road's).
const rawBudget = cdp.SnapshotBudget * 3 / 2

// walkJS runs the page road's walk in the sandbox and answers it with the
// document's token, which the sandbox keeps while the document lives, and
// the handles of the <iframe> elements it emitted (frames.go reads their
// frames); with a document's token and a handle, only what follows that
// element (snapshot --after), or {stale} when it is gone.
var walkJS = `function(budget, doc, h) {
  const G = globalThis;
  if (!G.__vibespaceDoc) G.__vibespaceDoc = Math.random().toString(36).slice(2) + "." + Date.now();
  let after = null;
  if (doc) {
    after = G.__vibespaceDoc === doc && G.__vibespaceHandles ? G.__vibespaceHandles.get(h) : null;
    if (!after || !after.isConnected) return {stale: true};
  }
  const walk = (` + cdp.WalkJS() + `)(budget, after), frames = [];
  if (walk.includes('"Iframe"')) {
    const n = JSON.parse(walk).n;
    for (let i = 0; i + 7 < n.length; i += 8) {
      const el = n[i + 1] === "Iframe" && n[i + 7] && G.__vibespaceHandles.get(n[i + 7]);
      if (el) frames.push({h: n[i + 7], src: el.hasAttribute("srcdoc") ? "" : (el.src || "")});
    }
  }
  return {doc: G.__vibespaceDoc, walk, frames, state: document.readyState, url: location.href};
}`

// locateJS finds a handle's element in the document whose token is doc,
// (scrolled into view's centre when scroll is set), and says what a click
// there would meet: its centre in the viewport's CSS pixels, whether it is
// disabled or editable, has no box, lies outside the viewport, or is
// covered (by what) at its centre.
const locateJS = `function(doc, h, scroll) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return {stale: true};
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  if (!el || !el.isConnected) return {stale: true};
  if (scroll && el.scrollIntoView) el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  const disabled = !!((el.matches && el.matches(":disabled")) || (el.getAttribute && el.getAttribute("aria-disabled") === "true"));
  const editable = !!(el.isContentEditable || (el.matches && el.matches("textarea, input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]):not([type=reset]):not([type=image]):not([type=range]):not([type=color]):not([type=file]):not([type=hidden])") && !el.readOnly && !el.disabled));
  const role = ((el.getAttribute && el.getAttribute("role")) || "").trim();
  const choice = el.localName === "select" || role === "listbox" || role === "combobox";
  const r = el.getBoundingClientRect();
  const out = {disabled, editable, choice};
  if (!(r.width > 0 && r.height > 0)) { out.hidden = true; return out; }
  out.x = r.left + r.width / 2; out.y = r.top + r.height / 2;
  if (out.x < 0 || out.y < 0 || out.x >= innerWidth || out.y >= innerHeight) { out.outside = true; return out; }
  let top = document.elementFromPoint(out.x, out.y);
  while (top && top.shadowRoot) { const inner = top.shadowRoot.elementFromPoint(out.x, out.y); if (!inner || inner === top) break; top = inner; }
  const within = (n) => { for (; n; n = n.parentNode || (n instanceof ShadowRoot ? n.host : null)) if (n === el) return true; return false; };
  if (top && !within(top)) {
    out.covered = top.tagName.toLowerCase() + (top.id ? "#" + top.id : "") + (typeof top.className === "string" && top.className ? "." + top.className.trim().split(/\s+/).join(".") : "");
  }
  return out;
}`

// focusJS focuses a handle's element and says whether it holds the focus.
const focusJS = `function(doc, h) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return "stale";
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  if (!el || !el.isConnected) return "stale";
  el.focus();
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a === el || el.contains(a) ? "focused" : "not";
}`

// insertJS puts text into a handle's element as a paste would (the
// editing command insertText: the page sees its input events), at the end
// of what it holds, or in place of all of it when replace is set; it
// answers the element's value (or text) after.
const insertJS = `function(doc, h, text, replace) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return {stale: true};
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  if (!el || !el.isConnected) return {stale: true};
  el.focus();
  const field = "value" in el && typeof el.setSelectionRange === "function";
  if (field) {
    const n = el.value.length;
    if (replace) el.setSelectionRange(0, n); else el.setSelectionRange(n, n);
  } else {
    const s = getSelection(), r = document.createRange();
    r.selectNodeContents(el);
    if (!replace) r.collapse(false);
    s.removeAllRanges(); s.addRange(r);
  }
  const ok = text === "" ? (replace ? document.execCommand("delete") : true) : document.execCommand("insertText", false, text);
  return {ok, value: field ? el.value : el.textContent};
}`

// Tab is a Firefox tab (a top-level browsing context) as a target.
type Tab struct {
	conn *bidi.Conn
	id   bidi.Context

	mu     sync.Mutex
	docs   map[string]int64 // a document's token (the tab's, or a frame's) → its generation
	byGen  map[int64]string
	gen    int64
	frames map[bidi.Context]*frameRec  // the frames the last snapshot read (frames.go)
	seen   map[string][2]string        // a key's role and name in the last snapshot
	live   map[*capture.Shots]struct{} // the live views' sources, woken after input

	presses kind.Presses // a person's presses from the live view, waiting for their release
}

var (
	_ kind.Target     = (*Tab)(nil)
	_ kind.Filler     = (*Tab)(nil)
	_ kind.Navigator  = (*Tab)(nil)
	_ kind.Evaluator  = (*Tab)(nil)
	_ kind.PageReader = (*Tab)(nil)
	_ kind.Waiter     = (*Tab)(nil)
	_ kind.Selector   = (*Tab)(nil)
	// The daemon's pager (snapshot --after, daemon/verb_read.go).
	_ interface {
		SnapshotAfter(ctx context.Context, refs *target.RefTable, key string) (*target.Snapshot, error)
	} = (*Tab)(nil)
)

// NewTab is the tab id of the browser conn reaches.
func NewTab(conn *bidi.Conn, id bidi.Context) *Tab {
	return &Tab{conn: conn, id: id, docs: map[string]int64{}, byGen: map[int64]string{}, live: map[*capture.Shots]struct{}{}}
}

// ID is the tab's browsing context.
func (t *Tab) ID() bidi.Context { return t.id }

func (t *Tab) sandbox() bidi.Target { return bidi.Target{Context: t.id, Sandbox: sandbox} }

// fail turns what the browser said into the kind's words: a tab that is
// gone (its context, or the whole browser) is tab_gone, a script that threw
// script_error.
func (t *Tab) fail(err error) error {
	if err == nil {
		return nil
	}
	var r *target.Refusal
	if errors.As(err, &r) {
		return err
	}
	switch {
	case bidi.ErrorCode(err) == bidi.CodeNoSuchFrame:
		return target.Refuse(target.CodeTabGone, "the tab has closed")
	case errors.Is(err, bidi.ErrClosed):
		return target.Refuse(target.CodeTabGone, "the tab's Firefox has exited")
	}
	var se *bidi.ScriptError
	if errors.As(err, &se) {
		return target.Refuse(target.CodeScriptError, "%s", se.Text)
	}
	return err
}

// infoLoadMS bounds infoJS's wait for a loading document.
const infoLoadMS = 500

// infoJS answers the document's address and title, read together from
// one document; a document still loading (a navigation just committed:
// its <title> may not be parsed yet) is first given until its
// DOMContentLoaded, at most infoLoadMS. An error page (about:neterror…)
// answers no address: the browser's tree says which it was to load.
var infoJS = fmt.Sprintf(`(async () => {
  if (document.readyState === "loading") await new Promise((r) => { document.addEventListener("DOMContentLoaded", r, {once: true}); setTimeout(r, %d); });
  const u = location.href;
  return JSON.stringify([u.startsWith("about:") && u !== "about:blank" ? "" : u, document.title]);
})()`, infoLoadMS)

// Info reads the tab's URL and title, from the same document (one
// script.evaluate in the sandbox: infoJS). An error page's address is the
// browser's tree's; so is a blank page's, to tell it from the about:blank
// Firefox shows for a moment between a document and the next (measured:
// read mid-navigation under the race detector), which is read again until
// the next one comes, for at most infoLoadMS.
func (t *Tab) Info(ctx context.Context) (kind.Info, error) {
	deadline := time.Now().Add(infoLoadMS * time.Millisecond)
	for {
		v, err := t.conn.Evaluate(ctx, t.sandbox(), infoJS)
		if err != nil {
			return kind.Info{}, t.fail(err)
		}
		var ut [2]string
		if s, ok := v.String(); !ok || json.Unmarshal([]byte(s), &ut) != nil {
			return kind.Info{}, fmt.Errorf("firefox: the tab's facts answered a %s", v.Type)
		}
		if ut[0] != "" && ut[0] != "about:blank" {
			return kind.Info{Key: string(t.id), Title: ut[1], App: ut[0], Viewable: true}, nil
		}
		tree, err := t.conn.GetTree(ctx, t.id)
		if err != nil {
			return kind.Info{}, t.fail(err)
		}
		if len(tree) == 0 {
			return kind.Info{}, target.Refuse(target.CodeTabGone, "the tab has closed")
		}
		if ut[0] == "" || tree[0].URL == "about:blank" || time.Now().After(deadline) {
			return kind.Info{Key: string(t.id), Title: ut[1], App: tree[0].URL, Viewable: true}, nil
		}
		select { // between two documents: read again
		case <-ctx.Done():
			return kind.Info{}, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Title is the document's title.
func (t *Tab) Title(ctx context.Context) (string, error) {
	v, err := t.conn.Evaluate(ctx, t.sandbox(), "document.title")
	if err != nil {
		return "", t.fail(err)
	}
	s, _ := v.String()
	return s, nil
}

// Probe: the page's tree by the page road's walk, BiDi input, and the
// viewport's pixels; nodes are acted on by input at their centre.
func (t *Tab) Probe(ctx context.Context) target.Probe {
	p := target.Probe{
		Tree: true, TreeVia: "the page's DOM, walked in a sandbox through WebDriver BiDi",
		Injection: "bidi",
		Capture:   true, CaptureVia: "the page's viewport, through browsingContext.captureScreenshot",
		NodeInput: true,
		Provider:  Provider,
	}
	select {
	case <-t.conn.Done():
		why := "the tab's Firefox has exited"
		p = target.Probe{TreeWhy: why, InjectionWhy: why, CaptureWhy: why, NodeInput: true, Provider: Provider}
	default:
	}
	return p
}

// walked is one document's walk: its reply, its document's token and
// generation, and the handles of the <iframe> elements it emitted.
type walked struct {
	Stale  bool   `json:"stale"`
	Doc    string `json:"doc"`
	Walk   string `json:"walk"`
	State  string `json:"state"` // document.readyState
	URL    string `json:"url"`
	Frames []struct {
		H   int64  `json:"h"`
		Src string `json:"src"` // the address its <iframe> loads ("" for srcdoc)
	} `json:"frames"`
	gen int64
}

// walk runs the walk in the document w is in (after the node of w.h when
// set) and answers its reply with the document's generation.
func (t *Tab) walk(ctx context.Context, w where, key kind.Node) (walked, error) {
	var r walked
	if err := t.conn.CallJSON(ctx, w.tgt, walkJS, &r, bidi.Num(rawBudget), bidi.Str(w.doc), bidi.Num(float64(w.h))); err != nil {
		return r, t.failIn(w, key, err)
	}
	if r.Stale {
		return r, staleRef(key)
	}
	r.gen = t.generation(r.Doc)
	return r, nil
}

// generation is the number of the document whose token is doc.
func (t *Tab) generation(doc string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	gen, ok := t.docs[doc]
	if !ok {
		t.gen++
		gen = t.gen
		t.docs[doc] = gen
		t.byGen[gen] = doc
	}
	return gen
}

// Snapshot reads the page's tree by the page road.
func (t *Tab) Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error) {
	return t.snapshot(ctx, refs, kind.Node{})
}

// SnapshotAfter reads what follows the node key names in the page (its
// descendants, then every later node): one more page past a snapshot its
// budget cut (snapshot --after).
func (t *Tab) SnapshotAfter(ctx context.Context, refs *target.RefTable, key string) (*target.Snapshot, error) {
	if key == "" {
		return nil, target.Refuse(target.CodeBadRequest, "snapshot --after needs the ref of a node of the page")
	}
	return t.snapshot(ctx, refs, kind.Node{Ref: refs.Ref(key), Key: key})
}

func (t *Tab) snapshot(ctx context.Context, refs *target.RefTable, after kind.Node) (*target.Snapshot, error) {
	w := where{tgt: t.sandbox()}
	if after.Key != "" {
		var err error
		if w, err = t.handle(after); err != nil {
			return nil, err
		}
	}
	s, seen, frames, err := t.readPage(ctx, refs, w, after, 0)
	if err != nil {
		return nil, err
	}
	// A page after a node in a frame reads to the frame's end, then on
	// after the frame's <iframe> in the document above (not into that
	// frame again), up to the tab's document, as a Chromium tab's does.
	for f := w.frame; f != nil && !s.Truncated; {
		up := t.frameNamed(f.parent)
		ow := where{tgt: t.sandbox(), doc: f.ownerDoc, h: f.owner, frame: up}
		if up != nil {
			ow.tgt = bidi.Target{Context: up.ctx, Sandbox: sandbox}
		}
		owner := kind.Node{Key: t.ownerKey(f)}
		owner.Ref = refs.Ref(owner.Key)
		rest, seen2, frames2, err := t.readPage(ctx, refs, ow, owner, f.owner)
		if err != nil {
			return nil, err
		}
		s = joinPages(s, rest)
		maps.Copy(seen, seen2)
		maps.Copy(frames, frames2)
		f = up
	}
	t.mu.Lock()
	if after.Key == "" || t.seen == nil {
		t.seen, t.frames = seen, frames
	} else {
		maps.Copy(t.seen, seen)
		if t.frames == nil {
			t.frames = map[bidi.Context]*frameRec{}
		}
		maps.Copy(t.frames, frames)
	}
	t.mu.Unlock()
	if s.Title == "" {
		s.Title, _ = t.Title(ctx)
	}
	return s, nil
}

// readPage is one document's page: its walk in w (after the node after, when
// it names one), its frames read but the frame of its <iframe> skip, and
// the role and name of each node it holds, by key.
func (t *Tab) readPage(ctx context.Context, refs *target.RefTable, w where, after kind.Node, skip int64) (*target.Snapshot, map[string][2]string, map[bidi.Context]*frameRec, error) {
	r, err := t.walk(ctx, w, after)
	if err != nil {
		return nil, nil, nil, err
	}
	gen := r.gen
	if w.frame != nil {
		gen = w.frame.gen // a page of a frame: its keys are of the tab's document it was read in
	}
	doc, frames := t.readFrames(ctx, w, r, gen, skip)
	s, err := cdp.BuildWalkTree(doc, gen, refs)
	if err != nil {
		return nil, nil, nil, err
	}
	seen := map[string][2]string{}
	if s.Root != nil {
		s.Root.Walk(func(n *target.Node, _ int) bool {
			if n.Key != "" {
				seen[n.Key] = [2]string{n.Role, n.Name}
			}
			return true
		})
	}
	return s, seen, frames, nil
}

// joinPages is the page a, then the page b that reads on after it (the
// document above a frame a read to its end): one page under one root,
// cut where b is.
func joinPages(a, b *target.Snapshot) *target.Snapshot {
	nodes := func(s *target.Snapshot) []*target.Node {
		switch {
		case s.Root == nil:
			return nil
		case s.Root.Key == "":
			return s.Root.Children // the builder's root over a page's nodes
		}
		return []*target.Node{s.Root}
	}
	out := *b
	out.Root = &target.Node{Role: "document web", Children: append(nodes(a), nodes(b)...)}
	out.Title = ""
	out.Census = out.Root.Count()
	return &out
}

// where is the document a node of the tab is in: the script target
// (the tab's, or its frame's, context in our sandbox), the document's
// token, the node's handle, and its frame (nil: the tab's own document).
type where struct {
	tgt   bidi.Target
	doc   string
	h     int64
	frame *frameRec
}

// handle is where the node a key names is; a key of a document that is no
// longer the tab's, or of a frame the tab no longer has as the last
// snapshot read it, is stale_ref.
func (t *Tab) handle(n kind.Node) (where, error) {
	base, frame := cdp.SplitFrameKey(n.Key)
	gen, h, world, ok := cdp.ParseHandleKey(base)
	if !ok {
		return where{}, target.Refuse(target.CodeStaleRef, "%s is not a node of this page; take a new snapshot", n.Ref)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if frame == "" {
		return where{tgt: t.sandbox(), doc: t.byGen[gen], h: h}, nil
	}
	// A frame's key names its document by the world part: the frame's
	// document's generation.
	f := t.frames[bidi.Context(frame)]
	if f == nil || f.gen != gen || t.docs[f.doc] != world {
		return where{}, frameGone(n)
	}
	return where{tgt: bidi.Target{Context: f.ctx, Sandbox: sandbox}, doc: f.doc, h: h, frame: f}, nil
}

// failIn is fail for a call in w's document: a frame's context that is
// gone is its node going (stale_ref), not the tab closing.
func (t *Tab) failIn(w where, n kind.Node, err error) error {
	if w.frame != nil && bidi.ErrorCode(err) == bidi.CodeNoSuchFrame {
		return staleRef(n)
	}
	return t.fail(err)
}

func staleRef(n kind.Node) error {
	return target.Refuse(target.CodeStaleRef, "%s is gone from the page; take a new snapshot", n.Ref)
}

type located struct {
	Stale    bool    `json:"stale"`
	Hidden   bool    `json:"hidden"`
	Outside  bool    `json:"outside"`
	Disabled bool    `json:"disabled"`
	Editable bool    `json:"editable"`
	Choice   bool    `json:"choice"` // a <select>, a list box, a combo box
	Covered  string  `json:"covered"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
}

// locate finds a node and says what a click there would meet, in the
// viewport of its document (a frame's: locateIn adds its offset).
func (t *Tab) locate(ctx context.Context, n kind.Node, scroll bool) (located, where, error) {
	var l located
	w, err := t.handle(n)
	if err != nil {
		return l, w, err
	}
	if err := t.conn.CallJSON(ctx, w.tgt, locateJS, &l, bidi.Str(w.doc), bidi.Num(float64(w.h)), bidi.Bool(scroll)); err != nil {
		return l, w, t.failIn(w, n, err)
	}
	if l.Stale {
		return l, w, staleRef(n)
	}
	return l, w, nil
}

// Node reads a node's state now (without scrolling), and its role and
// name as the last snapshot gave them.
func (t *Tab) Node(ctx context.Context, n kind.Node) (target.NodeTraits, error) {
	l, _, err := t.locate(ctx, n, false)
	if err != nil {
		return target.NodeTraits{}, err
	}
	tr := target.NodeTraits{Sensitive: !l.Disabled, Editable: l.Editable, Focusable: !l.Hidden}
	if l.Choice {
		tr.Interfaces = []string{"Selection"} // what select sets (the law's choice, as a Chromium tab's)
	}
	t.mu.Lock()
	rn := t.seen[n.Key]
	t.mu.Unlock()
	tr.Role, tr.Name = rn[0], rn[1]
	return tr, nil
}

// Act clicks a node at its centre, once it is scrolled into view and
// checked: it has a box, is enabled, lies in the viewport, and nothing
// else is on top of its centre.
func (t *Tab) Act(ctx context.Context, n kind.Node) error {
	l, w, err := t.locate(ctx, n, true)
	if err != nil {
		return err
	}
	switch {
	case l.Hidden:
		return target.Refuse(target.CodeNotVisible, "%s has no visible box in the page", n.Ref)
	case l.Disabled:
		return target.Refuse(target.CodeNotSensitive, "%s is disabled", n.Ref)
	case l.Outside:
		return target.Refuse(target.CodeNotVisible, "%s lies outside the viewport even scrolled into view", n.Ref)
	case l.Covered != "":
		return target.Refuse(target.CodeCovered, "%s is covered at its centre by %s", n.Ref, l.Covered).With("covered_by", l.Covered)
	}
	return t.clickIn(ctx, w, n, l.X, l.Y, true)
}

func (t *Tab) click(ctx context.Context, x, y float64) error {
	defer t.wake()
	return t.fail(t.conn.PerformActions(ctx, t.id, bidi.Mouse(bidi.MoveTo(int(math.Floor(x)), int(math.Floor(y))), bidi.Down(0), bidi.Up(0))))
}

// Focus gives a node the keyboard focus.
func (t *Tab) Focus(ctx context.Context, n kind.Node) error {
	w, err := t.handle(n)
	if err != nil {
		return err
	}
	if err := t.focusFrames(ctx, w, n); err != nil {
		return err
	}
	s, err := t.focusOn(ctx, w, n)
	if err != nil {
		return err
	}
	switch s {
	case "stale":
		return staleRef(n)
	case "focused":
		return nil
	}
	return target.Refuse(target.CodeNoFocus, "%s does not take the focus", n.Ref)
}

// focusOn focuses the element w names: "focused", "not" (it does not
// take the focus) or "stale".
func (t *Tab) focusOn(ctx context.Context, w where, n kind.Node) (string, error) {
	v, err := t.conn.CallFunction(ctx, w.tgt, focusJS, bidi.Str(w.doc), bidi.Num(float64(w.h)))
	if err != nil {
		return "", t.failIn(w, n, err)
	}
	s, _ := v.String()
	return s, nil
}

func (t *Tab) insert(ctx context.Context, n kind.Node, text string, replace bool) error {
	w, err := t.handle(n)
	if err != nil {
		return err
	}
	var r inserted
	if err := t.conn.CallJSON(ctx, w.tgt, insertJS, &r, bidi.Str(w.doc), bidi.Num(float64(w.h)), bidi.Str(text), bidi.Bool(replace)); err != nil {
		return t.failIn(w, n, err)
	}
	return r.check(n, text, replace)
}

// inserted is insertJS's answer.
type inserted struct {
	Stale bool   `json:"stale"`
	OK    bool   `json:"ok"`
	Value string `json:"value"`
}

// check refuses an insert that did not take.
func (r inserted) check(n kind.Node, text string, replace bool) error {
	switch {
	case r.Stale:
		return staleRef(n)
	case !r.OK:
		return target.Refuse(target.CodeNotEditable, "%s takes no text", n.Ref)
	case replace && r.Value != text:
		return target.Refuse(target.CodeValueNotSet, "%s holds %q after the fill, not the text given", n.Ref, r.Value)
	}
	return nil
}

// InsertText appends text to a field, as a paste would.
func (t *Tab) InsertText(ctx context.Context, n kind.Node, text string) error {
	return t.insert(ctx, n, text, false)
}

// viewport is the page's viewport size in CSS pixels.
func (t *Tab) viewport(ctx context.Context) (w, h float64, err error) {
	var v struct{ W, H float64 }
	if err := t.conn.CallJSON(ctx, t.sandbox(), `() => ({W: innerWidth, H: innerHeight})`, &v); err != nil {
		return 0, 0, t.fail(err)
	}
	return v.W, v.H, nil
}

// inside refuses a point outside the tab's viewport (CSS pixels, as the
// screenshot's): an event there reaches no element. It answers the
// viewport's size.
func (t *Tab) inside(ctx context.Context, p kind.Point) (w, h float64, err error) {
	if w, h, err = t.viewport(ctx); err != nil {
		return 0, 0, err
	}
	if float64(p.X) < 0 || float64(p.Y) < 0 || float64(p.X) >= w || float64(p.Y) >= h {
		return w, h, target.Refuse(target.CodeOutsidePage, "%d,%d is outside the tab's viewport, which is %gx%g CSS pixels (its screenshot's size)", p.X, p.Y, w, h).
			With("x", p.X).With("y", p.Y).With("width", w).With("height", h)
	}
	return w, h, nil
}

// ClickAt clicks at a pixel of the viewport (the screenshot's pixels are
// the viewport's CSS pixels: a headless Firefox's device pixel ratio is 1).
func (t *Tab) ClickAt(ctx context.Context, p kind.Point) error {
	if _, _, err := t.inside(ctx, p); err != nil {
		return err
	}
	return t.click(ctx, float64(p.X), float64(p.Y))
}

// scrollStep is how many CSS pixels one scroll step turns the wheel (a
// Chromium tab's step).
const scrollStep = 100

// Scroll turns the wheel with BiDi input actions (a wheel source's scroll
// action: the page gets a trusted wheel event and scrolls as it would for
// a person's) at a point of the viewport, or its centre.
func (t *Tab) Scroll(ctx context.Context, at *kind.Point, dir string, steps int) error {
	dx, dy, err := kind.WheelDelta(dir, steps, scrollStep)
	if err != nil {
		return err
	}
	var x, y int
	if at != nil {
		if _, _, err := t.inside(ctx, *at); err != nil {
			return err
		}
		x, y = at.X, at.Y
	} else {
		w, h, err := t.viewport(ctx)
		if err != nil {
			return err
		}
		x, y = int(w/2), int(h/2)
	}
	return t.wheel(ctx, x, y, dx, dy)
}

func (t *Tab) wheel(ctx context.Context, x, y int, dx, dy float64) error {
	defer t.wake()
	return t.fail(t.conn.PerformActions(ctx, t.id, bidi.Wheel(bidi.ScrollBy(x, y, int(dx), int(dy)))))
}

// Wait polls the page (in our sandbox: the page's scripts cannot fake
// the answer) until the selector matches a visible element, the text is
// in its visible text or its URL holds the text (cdp.WaitUntil, the
// Chromium tab's loop and expressions).
func (t *Tab) Wait(ctx context.Context, w kind.Wait) error {
	return cdp.WaitUntil(ctx, cdp.WaitFor{Selector: w.Selector, Text: w.Text, URL: w.URL}, t.conn.Done(),
		func() error { return t.fail(bidi.ErrClosed) },
		func(ctx context.Context, js string) (bool, error) {
			v, err := t.conn.Evaluate(ctx, t.sandbox(), js)
			if err != nil {
				return false, t.fail(err)
			}
			return v.Type == "boolean" && string(v.Value) == "true", nil
		})
}

// onNodeJS runs fn with the element of a handle as this and args (a JSON
// array): {v: what it answered}, or {stale: true}.
func onNodeJS(fn string) string {
	return `async function(doc, h, args) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return {stale: true};
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  if (!el || !el.isConnected) return {stale: true};
  return {v: await (` + fn + `).apply(el, JSON.parse(args))};
}`
}

// choiceNode is a node of the tab as cdp.SelectOn drives it.
type choiceNode struct {
	t *Tab
	n kind.Node
	w where
}

func (c choiceNode) Call(ctx context.Context, fn string, out any, args ...any) error {
	a, err := json.Marshal(args)
	if args == nil {
		a = []byte("[]")
	}
	if err != nil {
		return err
	}
	var r struct {
		Stale bool            `json:"stale"`
		V     json.RawMessage `json:"v"`
	}
	if err := c.t.conn.CallJSON(ctx, c.w.tgt, onNodeJS(fn), &r, bidi.Str(c.w.doc), bidi.Num(float64(c.w.h)), bidi.Str(string(a))); err != nil {
		return c.t.failIn(c.w, c.n, err)
	}
	if r.Stale {
		return staleRef(c.n)
	}
	return json.Unmarshal(r.V, out)
}

func (c choiceNode) ClickAt(ctx context.Context, x, y float64) error {
	return c.t.clickIn(ctx, c.w, c.n, x, y, false)
}

// Select sets a choice control's options (a <select>, an ARIA list box,
// or an option's control) and answers what it holds, read back: the
// Chromium tab's page functions and checks (cdp.SelectOn), run in our
// sandbox on the node's element, an ARIA option clicked with BiDi input.
func (t *Tab) Select(ctx context.Context, n kind.Node, opts []string) ([]string, error) {
	w, err := t.handle(n)
	if err != nil {
		return nil, err
	}
	return cdp.SelectOn(ctx, n.Ref, choiceNode{t: t, n: n, w: w}, opts)
}

// Key presses a chord in the focused element.
func (t *Tab) Key(ctx context.Context, c target.Chord) error {
	acts, err := chordActions(c)
	if err != nil {
		return err
	}
	defer t.wake()
	return t.fail(t.conn.PerformActions(ctx, t.id, bidi.Keyboard(acts...)))
}

// typeChunk is how many characters one input.performActions types: a
// cancelled context stops the typing between chunks.
const typeChunk = 16

// Type types text as keys into the focused element.
func (t *Tab) Type(ctx context.Context, text string) error {
	defer t.wake()
	rs := []rune(text)
	for i := 0; i < len(rs); i += typeChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.conn.PerformActions(ctx, t.id, bidi.Keyboard(bidi.TypeText(string(rs[i:min(i+typeChunk, len(rs))]))...)); err != nil {
			return t.fail(err)
		}
	}
	return nil
}

// ReleaseAll releases every key and button held in the tab, and forgets
// a press a person made from the live view.
func (t *Tab) ReleaseAll(ctx context.Context) error {
	t.presses.Forget()
	return t.fail(t.conn.ReleaseActions(ctx, t.id))
}

// Screenshot is the viewport's PNG.
func (t *Tab) Screenshot(ctx context.Context) ([]byte, error) {
	png, err := t.conn.Screenshot(ctx, t.id)
	return png, t.fail(err)
}

// liveQuality is the JPEG quality of the live view's pictures: JPEG
// rather than PNG, as Chromium's screencast: Firefox answers it sooner
// (measured: 244 ms against 355 ms a picture with the decode, at a load
// of 37 on 2 cores) and libjpeg-turbo decodes it.
const liveQuality = 0.8

// shooter takes the tab's live pictures.
type shooter struct{ t *Tab }

func (s shooter) Shoot(ctx context.Context) ([]byte, string, error) {
	pic, err := s.t.conn.Capture(ctx, s.t.id, bidi.ImageJPEG, liveQuality)
	return pic, "jpeg", s.t.fail(err)
}

// liveSource is one live view's source of the tab: Close forgets it.
type liveSource struct {
	*capture.Shots
	t *Tab
}

func (l liveSource) Close() error {
	l.t.mu.Lock()
	delete(l.t.live, l.Shots)
	l.t.mu.Unlock()
	return l.Shots.Close()
}

// Frames is the tab's live picture: its viewport taken again and again
// as a JPEG through browsingContext.captureScreenshot (WebDriver BiDi has
// no screencast), at most o.FPS a second, less often while it does not
// change (capture.Shots), and at once after input went in. A tab that is
// gone is tab_gone.
func (t *Tab) Frames(ctx context.Context, o kind.FrameOptions) (target.FrameSource, error) {
	if _, err := t.conn.GetTree(ctx, t.id); err != nil {
		return nil, t.fail(err)
	}
	s := capture.NewShots(shooter{t}, capture.ShotsOptions{FPS: o.FPS})
	t.mu.Lock()
	t.live[s] = struct{}{}
	t.mu.Unlock()
	return liveSource{Shots: s, t: t}, nil
}

// wake tells the tab's live views that input went in: their next picture
// is taken without the wait of a still page.
func (t *Tab) wake() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.live {
		s.Wake()
	}
}

// Input delivers a person's event from the live view through BiDi input
// actions: keys as key actions, text typed as keys, the wheel as a wheel
// action, and a press of the left button and its release as one click at
// the release, at the point of the viewport the picture's point is.
func (t *Tab) Input(ctx context.Context, ev kind.Input) error {
	switch ev.Type {
	case kind.InputMove:
		return nil
	case kind.InputKey:
		return t.Key(ctx, ev.Chord)
	case kind.InputText:
		return t.Type(ctx, ev.Text)
	}
	x, y, err := kind.InViewport(ctx, ev, t.viewport)
	if err != nil {
		return err
	}
	if ev.Type == kind.InputWheel {
		return t.wheel(ctx, int(x), int(y), ev.DX*scrollStep, ev.DY*scrollStep)
	}
	if click, err := t.presses.Clicks(ev); !click {
		return err
	}
	return t.click(ctx, x, y)
}

// Close closes the tab; one already gone is not an error.
func (t *Tab) Close(ctx context.Context) error {
	err := t.conn.CloseContext(ctx, t.id)
	if bidi.ErrorCode(err) == bidi.CodeNoSuchFrame || errors.Is(err, bidi.ErrClosed) {
		return nil
	}
	return err
}

// Navigate loads url and waits for its load.
func (t *Tab) Navigate(ctx context.Context, url string) error {
	_, err := t.conn.Navigate(ctx, t.id, url, bidi.ReadyComplete)
	if err != nil && bidi.ErrorCode(err) == bidi.CodeUnknownError {
		return target.Refuse(target.CodeNavigationFailed, "%s did not load: %s", url, err.(*bidi.Error).Message)
	}
	return t.fail(err)
}

func (t *Tab) traverse(ctx context.Context, delta int) error {
	return t.fail(t.conn.Call(ctx, "browsingContext.traverseHistory", map[string]any{"context": t.id, "delta": delta}, nil))
}

// Back and Forward go through the tab's history.
func (t *Tab) Back(ctx context.Context) error    { return t.traverse(ctx, -1) }
func (t *Tab) Forward(ctx context.Context) error { return t.traverse(ctx, 1) }

// Reload loads the page again and waits for its load.
func (t *Tab) Reload(ctx context.Context) error {
	return t.fail(t.conn.Call(ctx, "browsingContext.reload", map[string]any{"context": t.id, "wait": bidi.ReadyComplete}, nil))
}

// Eval evaluates expr in the page's own realm (its globals, as the
// page's scripts see them) and answers its value as JSON (a promise's
// result once it settles); a thrown error is script_error.
func (t *Tab) Eval(ctx context.Context, expr string) (json.RawMessage, error) {
	lit, err := json.Marshal(expr) // a JSON string is a JavaScript string literal
	if err != nil {
		return nil, err
	}
	src := `Promise.resolve(globalThis.eval(` + string(lit) + `)).then(v => { const j = JSON.stringify(v); return j === undefined ? "null" : j; })`
	v, err := t.conn.Evaluate(ctx, bidi.Target{Context: t.id}, src)
	if err != nil {
		return nil, t.fail(err)
	}
	s, ok := v.String()
	if !ok {
		return nil, fmt.Errorf("firefox: eval answered a %s", v.Type)
	}
	return json.RawMessage(s), nil
}

// Text is the page's text as it reads (the body's innerText).
func (t *Tab) Text(ctx context.Context) (string, error) {
	v, err := t.conn.Evaluate(ctx, t.sandbox(), `document.body ? document.body.innerText : ""`)
	if err != nil {
		return "", t.fail(err)
	}
	s, _ := v.String()
	return s, nil
}
