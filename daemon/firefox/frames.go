package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Frames. An <iframe>'s document is a browsing context of its own, a
// child of the context holding the <iframe> (same-origin or not: Firefox
// runs a cross-origin frame in another process, BiDi names it alike). A
// snapshot runs the same walk in each frame's context, in our sandbox
// there, and grafts its lines under the <iframe>'s node; their keys carry
// the frame's context ("…@<context>", cdp.BuildWalkTree) and the frame's
// document's generation, so a ref acts in its frame's context. Pointer
// input goes to the tab's context at the node's point in the tab's
// viewport: the frames' offsets added, each read in its parent's
// document.

// Bounds of the frame walk, as the Chromium page road's: how deep frames
// nest, how many one snapshot reads; and how long one frame's walk may
// take (a frame that does not answer by then is marked unreadable): long
// enough for the walk of a frame of a budget's nodes on a loaded machine
// (it passed 5 s at a load of 25 on 2 cores).
const (
	maxFrameDepth = 4
	maxFrames     = 32
	frameWait     = 15 * time.Second
)

// frameRec is a frame a snapshot read: its context, where its <iframe> is
// (the parent's context, "" for the tab's, its document's token and the
// element's handle there), its own document's token, and the generation
// of the tab's document it was read in.
type frameRec struct {
	ctx      bidi.Context
	parent   bidi.Context
	ownerDoc string
	owner    int64
	doc      string
	gen      int64
}

// windowJS answers the window of a handle's <iframe> (BiDi serialises it
// as its browsing context), or null.
const windowJS = `function(doc, h) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return null;
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  return (el && el.isConnected && el.contentWindow) || null;
}`

// frameReader reads the frames of one snapshot, within its bounds.
type frameReader struct {
	t      *Tab
	gen    int64
	budget int
	read   map[bidi.Context]*frameRec
	// skip is an <iframe> of the walked document whose frame is not read
	// (0: none): the one a page read on after (Tab.snapshot).
	skip   int64
	skipIn bidi.Context
}

// readFrames reads the frames below the document r is the walk of (in w),
// but the frame of its <iframe> skip, and answers the documents for the
// builder and the frames read.
func (t *Tab) readFrames(ctx context.Context, w where, r walked, gen, skip int64) (*cdp.WalkDoc, map[bidi.Context]*frameRec) {
	fr := &frameReader{t: t, gen: gen, budget: maxFrames, read: map[bidi.Context]*frameRec{}, skip: skip, skipIn: w.tgt.Context}
	depth := 0
	for f := w.frame; f != nil; f = t.frameNamed(f.parent) {
		depth++
	}
	return fr.doc(ctx, w.tgt.Context, r, depth), fr.read
}

// ownerKey is the key of the <iframe> that holds frame f, as the
// snapshots key it (in the tab's document, or in the frame above f).
func (t *Tab) ownerKey(f *frameRec) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.frames[f.parent]
	if p == nil {
		return cdp.HandleKey(f.gen, f.owner, world)
	}
	return cdp.HandleKey(p.gen, f.owner, t.docs[p.doc]) + "@" + string(p.ctx)
}

// frameNamed is the frame of context c the last snapshot read (nil for
// the tab's context).
func (t *Tab) frameNamed(c bidi.Context) *frameRec {
	if c == "" || c == t.id {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.frames[c]
}

// doc is the builder's document of the walk r of context c, with its
// frames read.
func (fr *frameReader) doc(ctx context.Context, c bidi.Context, r walked, depth int) *cdp.WalkDoc {
	d := &cdp.WalkDoc{Reply: r.Walk, World: world}
	if c != fr.t.id {
		d.World, d.Frame = r.gen, string(c)
	}
	for _, fe := range r.Frames {
		h := fe.H
		if ctx.Err() != nil {
			return d
		}
		if h == fr.skip && c == fr.skipIn {
			continue
		}
		why := ""
		switch {
		case depth >= maxFrameDepth:
			why = fmt.Sprintf("frames nested deeper than %d are not read", maxFrameDepth)
		case fr.budget <= 0:
			why = fmt.Sprintf("a snapshot reads at most %d frames", maxFrames)
		}
		var sub *cdp.WalkDoc
		if why == "" {
			fr.budget--
			sub, why = fr.frame(ctx, c, r.Doc, h, fe.Src, depth)
		}
		if sub != nil {
			if d.Frames == nil {
				d.Frames = map[int64]*cdp.WalkDoc{}
			}
			d.Frames[h] = sub
		}
		if why != "" {
			if d.Unreadable == nil {
				d.Unreadable = map[int64]string{}
			}
			d.Unreadable[h] = why
		}
	}
	return d
}

// frame reads the frame of the <iframe> h of the document doc in context
// parent: its context (the element's window), then its walk, bounded by
// frameWait. It answers the frame's document and why it is not whole
// ("": it is) — a frame still loading its document (src, the address its
// <iframe> loads, not yet in it; or its document not parsed to its end)
// is read as it stands and said to be loading — or nil and why it could
// not be read ("" and nil for a frame that went meanwhile).
func (fr *frameReader) frame(ctx context.Context, parent bidi.Context, doc string, h int64, src string, depth int) (*cdp.WalkDoc, string) {
	t := fr.t
	v, err := t.conn.CallFunction(ctx, bidi.Target{Context: parent, Sandbox: sandbox}, windowJS, bidi.Str(doc), bidi.Num(float64(h)))
	if err != nil {
		return nil, "the frame's element could not be read: " + err.Error()
	}
	var win struct {
		Context bidi.Context `json:"context"`
	}
	if v.Type != "window" || json.Unmarshal(v.Value, &win) != nil || win.Context == "" {
		return nil, "the frame has no document"
	}
	fctx, cancel := context.WithTimeout(ctx, frameWait)
	defer cancel()
	var r walked
	err = t.conn.CallJSON(fctx, bidi.Target{Context: win.Context, Sandbox: sandbox}, walkJS, &r, bidi.Num(rawBudget), bidi.Str(""), bidi.Num(0))
	var se *bidi.ScriptError
	switch {
	case bidi.ErrorCode(err) == bidi.CodeNoSuchFrame:
		return nil, ""
	case errors.As(err, &se):
		return nil, "the frame refused our script: " + se.Text
	case err != nil && fctx.Err() != nil && ctx.Err() == nil:
		return nil, fmt.Sprintf("the frame did not answer within %s (still loading?)", frameWait)
	case err != nil:
		return nil, "the frame could not be read: " + err.Error()
	}
	r.gen = t.generation(r.Doc)
	fr.read[win.Context] = &frameRec{ctx: win.Context, parent: parent, ownerDoc: doc, owner: h, doc: r.Doc, gen: fr.gen}
	why := ""
	switch {
	case r.URL == "about:blank" && src != "" && src != "about:blank":
		why = "the frame has not loaded its document yet (" + src + "); take a snapshot again"
	case r.State == "loading":
		why = "the frame was still loading its document: what it held so far is shown; take a snapshot again"
	}
	return fr.doc(ctx, win.Context, r, depth+1), why
}

// ownerJS is where the content of a handle's <iframe> starts in its
// document's viewport (the corner of its content box), after scrolling
// it into view when scroll is set and the point (px, py) of its frame's
// viewport lies outside its document's viewport; whether that point is
// outside the viewport, and what covers it there when not the <iframe>.
const ownerJS = `function(doc, h, scroll, px, py) {
  const G = globalThis;
  if (G.__vibespaceDoc !== doc) return {stale: true};
  const el = G.__vibespaceHandles && G.__vibespaceHandles.get(h);
  if (!el || !el.isConnected) return {stale: true};
  const at = () => {
    const r = el.getBoundingClientRect(), st = getComputedStyle(el);
    const x = r.left + el.clientLeft + parseFloat(st.paddingLeft), y = r.top + el.clientTop + parseFloat(st.paddingTop);
    return {x, y, outside: x + px < 0 || y + py < 0 || x + px >= innerWidth || y + py >= innerHeight};
  };
  let o = at();
  if (o.outside && scroll) { el.scrollIntoView({block: "center", inline: "center", behavior: "instant"}); o = at(); }
  if (!o.outside) {
    const top = document.elementFromPoint(o.x + px, o.y + py);
    if (top && top !== el) o.covered = top.tagName.toLowerCase() + (top.id ? "#" + top.id : "");
  }
  return o;
}`

// toTab turns a point of w's document's viewport into the tab's viewport:
// the offsets of its frame's <iframe> and of each one above it added,
// each checked to show the point (not outside its document's viewport,
// nothing of that document on top of it).
func (t *Tab) toTab(ctx context.Context, w where, n kind.Node, x, y float64, scroll bool) (float64, float64, error) {
	for f := w.frame; f != nil; f = t.frameNamed(f.parent) {
		var o struct {
			Stale   bool    `json:"stale"`
			X       float64 `json:"x"`
			Y       float64 `json:"y"`
			Outside bool    `json:"outside"`
			Covered string  `json:"covered"`
		}
		pw := where{tgt: bidi.Target{Context: f.parent, Sandbox: sandbox}, frame: t.frameNamed(f.parent)}
		if err := t.conn.CallJSON(ctx, pw.tgt, ownerJS, &o, bidi.Str(f.ownerDoc), bidi.Num(float64(f.owner)), bidi.Bool(scroll), bidi.Num(x), bidi.Num(y)); err != nil {
			return 0, 0, t.failIn(pw, n, err)
		}
		switch {
		case o.Stale:
			return 0, 0, frameGone(n)
		case o.Outside:
			return 0, 0, target.Refuse(target.CodeNotVisible, "%s lies outside the viewport of the page holding its frame, even scrolled into view", n.Ref)
		case o.Covered != "":
			return 0, 0, target.Refuse(target.CodeCovered, "%s is covered at its centre by %s, over its frame", n.Ref, o.Covered).With("covered_by", o.Covered)
		}
		x, y = x+o.X, y+o.Y
	}
	return x, y, nil
}

// clickIn clicks at a point of w's document's viewport (a frame's: moved
// into the tab's viewport first).
func (t *Tab) clickIn(ctx context.Context, w where, n kind.Node, x, y float64, scroll bool) error {
	x, y, err := t.toTab(ctx, w, n, x, y, scroll)
	if err != nil {
		return err
	}
	return t.click(ctx, math.Floor(x), math.Floor(y))
}

// focusFrames makes w's frame, and each frame above it, the focused frame
// of its parent's document (its <iframe> focused), outermost first, as a
// person's click into it would: a script's focus() inside a frame of another origin moves no
// focus out of the page holding it, so keys would not reach it.
func (t *Tab) focusFrames(ctx context.Context, w where, n kind.Node) error {
	var chain []*frameRec
	for f := w.frame; f != nil; f = t.frameNamed(f.parent) {
		chain = append(chain, f)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		f := chain[i]
		pw := where{tgt: bidi.Target{Context: f.parent, Sandbox: sandbox}, doc: f.ownerDoc, h: f.owner, frame: t.frameNamed(f.parent)}
		s, err := t.focusOn(ctx, pw, n)
		if err != nil {
			return err
		}
		switch s {
		case "stale":
			return frameGone(n)
		case "not":
			return target.Refuse(target.CodeNoFocus, "the frame of %s does not take the focus", n.Ref)
		}
	}
	return nil
}

// frameGone is stale_ref for a node whose frame the tab no longer has as
// the last snapshot read it.
func frameGone(n kind.Node) error {
	return target.Refuse(target.CodeStaleRef, "the frame of %s is gone from the page, or has loaded another document; take a new snapshot", n.Ref).With("ref", n.Ref)
}
