package cdp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	proto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/vibespace/vibespace/target"
)

// NodeRef names a node of one of the tab's snapshots: its ref, which
// messages name, and the key the ref was minted for (target.Node.Key:
// "generation:backendNodeId"). Whoever keeps the tab's ref table maps one
// to the other.
type NodeRef struct {
	Ref string
	Key string
}

// node is a ref resolved to a live DOM node: its JS object in the page,
// and the session and frame it lives in.
type node struct {
	ref      string
	objectID runtime.RemoteObjectID
	sess     *Session
	frame    *frameRec // nil: the main frame
	backend  int64     // its backend node id
	held     bool      // its object is one of the tab's held (heldNodes): not released after use
}

// maxHeld bounds the nodes' objects a tab holds (heldNodes).
const maxHeld = 16

// heldNode is the JS object resolve made for a ref's node, held for the
// next read of or act on the same node.
type heldNode struct {
	sess     *Session
	gen      int64 // the document's (Tab.gen) it was resolved in
	backend  int64
	objectID runtime.RemoteObjectID
}

// heldNodes are the objects of the last nodes a tab's verbs resolved
// (at most maxHeld, the oldest released first): an acting verb reads its
// node for the look before, acts on it and reads it again after, and the
// next verb often takes the same ref; each would otherwise resolve it
// (DOM.resolveNode, one round trip) and release it. An object dies with
// its document: those of an earlier document are dropped, not released.
type heldNodes struct {
	mu    sync.Mutex
	nodes []heldNode // oldest first
}

// get is the object held for backend node id of sess in document gen.
func (h *heldNodes) get(sess *Session, gen, id int64) (runtime.RemoteObjectID, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nodes = slices.DeleteFunc(h.nodes, func(x heldNode) bool { return x.gen != gen })
	for _, x := range h.nodes {
		if x.sess == sess && x.backend == id {
			return x.objectID, true
		}
	}
	return "", false
}

// add holds n's object, and answers the one it lets go (nil: none).
func (h *heldNodes) add(n *node, gen int64) *heldNode {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nodes = append(h.nodes, heldNode{sess: n.sess, gen: gen, backend: n.backend, objectID: n.objectID})
	if len(h.nodes) <= maxHeld {
		return nil
	}
	out := h.nodes[0]
	h.nodes = slices.Delete(h.nodes, 0, 1)
	return &out
}

// drop lets go of n's object (a call on it failed).
func (h *heldNodes) drop(n *node) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nodes = slices.DeleteFunc(h.nodes, func(x heldNode) bool { return x.objectID == n.objectID && x.sess == n.sess })
}

// resolve finds the DOM node of nr, in its frame's session: the object
// held for it when there is one (heldNodes), else one resolved now and
// held. A key that names no DOM node, or whose node (or frame) is gone
// (removed, or the page navigated), is stale_ref.
func (t *Tab) resolve(ctx context.Context, nr NodeRef) (*node, error) {
	gen := t.gen.Load()
	f, sess, id, err := t.backendOf(ctx, nr.Ref, nr.Key)
	if err != nil {
		return nil, err
	}
	if obj, ok := t.held.get(sess, gen, id); ok {
		return &node{ref: nr.Ref, objectID: obj, sess: sess, frame: f, backend: id, held: true}, nil
	}
	n, err := t.resolveIn(ctx, nr.Ref, sess, f, id)
	if err != nil {
		return nil, err
	}
	if out := t.held.add(n, gen); out != nil {
		_, _ = out.sess.send(context.WithoutCancel(ctx), runtime.CommandReleaseObject, &runtime.ReleaseObjectParams{ObjectID: out.objectID})
	}
	n.held = true
	return n, nil
}

// backendOf is the backend node id key names, with its frame (nil: the
// main frame) and that frame's session: a key of the AX road carries it,
// a handle of the page road is asked of its world. A key of an earlier
// document, or of a frame or node that is gone, is stale_ref.
func (t *Tab) backendOf(ctx context.Context, ref, key string) (*frameRec, *Session, int64, error) {
	base, frame := splitFrame(key)
	gen, id, ok := parseKey(base)
	var h, w int64
	if !ok {
		if gen, h, w, ok = parseHandleKey(base); !ok {
			return nil, nil, 0, target.Refuse(target.CodeStaleRef, "ref %s has no DOM node; take a new snapshot", ref).With("ref", ref)
		}
	}
	if gen != t.gen.Load() {
		return nil, nil, 0, target.Refuse(target.CodeStaleRef, "ref %s is of a page this tab has navigated away from; take a new snapshot", ref).With("ref", ref)
	}
	f, sess, err := t.frameOf(ref, frame, gen)
	if err != nil {
		return nil, nil, 0, err
	}
	if h != 0 {
		if id, err = t.handleBackend(ctx, ref, key, sess, f, gen, h, w); err != nil {
			return nil, nil, 0, err
		}
	}
	return f, sess, id, nil
}

// resolveIn finds the DOM node of backend node id in sess, the session of
// frame f (nil: the main frame).
func (t *Tab) resolveIn(ctx context.Context, ref string, sess *Session, f *frameRec, id int64) (*node, error) {
	var res dom.ResolveNodeResult
	err := sess.Call(ctx, dom.CommandResolveNode, &dom.ResolveNodeParams{BackendNodeID: proto.BackendNodeID(id)}, &res)
	if err != nil {
		if e, ok := asError(err); ok && e.Code == codeServerError {
			return nil, staleRef(ref).Wrap(err)
		}
		if sess != t.sess {
			return nil, t.frameFail(ref, err)
		}
		return nil, t.fail(err)
	}
	if res.Object == nil || res.Object.ObjectID == "" {
		return nil, staleRef(ref)
	}
	return &node{ref: ref, objectID: res.Object.ObjectID, sess: sess, frame: f, backend: id}, nil
}

// releaseNode lets the page drop the handle resolveIn made for n, without
// waiting for the answer (the reply is discarded when it comes): every
// handle would otherwise live as long as the document, keeping even
// removed nodes in memory on a long-lived page. A ref's node (resolve) is
// held instead, a bounded few per tab (heldNodes), released as newer ones
// come.
func (t *Tab) releaseNode(ctx context.Context, n *node) {
	if n.held {
		return // the tab's to release (heldNodes)
	}
	_, _ = n.sess.send(context.WithoutCancel(ctx), runtime.CommandReleaseObject, &runtime.ReleaseObjectParams{ObjectID: n.objectID})
}

// notFound reports whether a server error's message says the object or
// its context is not there (so the function called on it never ran).
func notFound(msg string) bool {
	return strings.Contains(msg, "Could not find object") || strings.Contains(msg, "Cannot find context")
}

func staleRef(ref string) *target.Refusal {
	return target.Refuse(target.CodeStaleRef, "the node of %s is gone from the page; take a new snapshot", ref).With("ref", ref)
}

// call runs a JS function with the node as this and decodes its JSON
// result into out (nil to discard).
func (t *Tab) call(ctx context.Context, n *node, fn string, out any, args ...any) error {
	return t.callAs(ctx, n, false, fn, out, args...)
}

// callAs is call, run as a user's gesture where gesture is set (as Eval
// runs its expressions).
func (t *Tab) callAs(ctx context.Context, n *node, gesture bool, fn string, out any, args ...any) error {
	var cargs []*runtime.CallArgument
	for _, a := range args {
		v, err := jsonv2.Marshal(a)
		if err != nil {
			return err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: v})
	}
	var res runtime.CallFunctionOnResult
	callOn := func(n *node) error {
		return n.sess.Call(ctx, runtime.CommandCallFunctionOn, &runtime.CallFunctionOnParams{
			FunctionDeclaration: fn,
			ObjectID:            n.objectID,
			Arguments:           cargs,
			ReturnByValue:       new(true),
			AwaitPromise:        new(true),
			UserGesture:         gestureOf(gesture),
		}, &res)
	}
	err := callOn(n)
	if err != nil && n.held {
		// A held object the page no longer has (its context went: a
		// frame's document replaced) ran nothing: let it go, and call
		// once more on the node resolved afresh.
		t.held.drop(n)
		if e, ok := asError(err); ok && e.Code == codeServerError && notFound(e.Message) {
			fresh, rerr := t.resolveIn(ctx, n.ref, n.sess, n.frame, n.backend)
			if rerr != nil {
				return rerr
			}
			err = callOn(fresh)
			t.releaseNode(ctx, fresh)
		}
	}
	if err != nil {
		if e, ok := asError(err); ok && e.Code == codeServerError {
			return staleRef(n.ref).Wrap(err) // the object died with its document
		}
		if n.sess != t.sess {
			return t.frameFail(n.ref, err)
		}
		return t.fail(err)
	}
	if res.ExceptionDetails != nil {
		return scriptError(res.ExceptionDetails)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return jsonv2.Unmarshal(res.Result.Value, out)
}

// gestureOf is a command's userGesture: set only where it is (the
// protocol's default is false).
func gestureOf(on bool) *bool {
	if on {
		return new(true)
	}
	return nil
}

// probe is what the page says about a node before we act on it.
type probe struct {
	Gone     bool    `json:"gone"`
	Visible  bool    `json:"visible"`
	InView   bool    `json:"inView"`
	Disabled bool    `json:"disabled"`
	Covered  bool    `json:"covered"`
	By       string  `json:"by"`
	Editable bool    `json:"editable"`
	Focused  bool    `json:"focused"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Tag      string  `json:"tag"`
}

// focusMode is what the probe does to a text field that passes it; the
// values are probeJS's focus argument.
type focusMode int

const (
	noFocus        focusMode = 0
	focusCaretEnd  focusMode = 1 // focus, caret at the end (type)
	focusSelectAll focusMode = 2 // focus, all of the content selected (fill)
)

// probeJS scrolls the node into view when it is not wholly inside the
// viewport (and scroll is set), then reports whether it is connected,
// visible, in the viewport, disabled, editable, and whether another element
// is on top of its centre (the element hit-testing finds there, asked in the
// node's own tree scope so shadow DOM works; one round trip, where
// DOM.getNodeForLocation would take two more). With a focus mode (fill,
// type) it also focuses the node, in the same round trip, but only when it
// passes every check actionable makes of a text field: visible, in view,
// enabled and editable.
const probeJS = `function(scroll, focus) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el || !el.isConnected) return {gone: true};
  let r = el.getBoundingClientRect();
  const outside = r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > window.innerWidth;
  if (scroll && outside) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = el.getBoundingClientRect();
  }
  const st = getComputedStyle(el);
  let visible = r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
  if (visible && el.checkVisibility) visible = el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const inView = x >= 0 && y >= 0 && x < window.innerWidth && y < window.innerHeight;
  const disabled = el.matches(':disabled') || el.closest('[aria-disabled="true"]') !== null;
  const tag = el.tagName.toLowerCase();
  const noText = ['checkbox','radio','button','submit','reset','image','file','range','color','hidden'];
  const editable = el.isContentEditable || (((tag === 'input' && !noText.includes(el.type)) || tag === 'textarea') && !el.readOnly);
  let covered = false, by = '';
  if (visible && inView) {
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
    const mine = h => h && (h === el || el.contains(h) || (el.labels && Array.from(el.labels).some(l => l.contains(h))));
    if (!mine(hit)) {
      covered = true;
      if (hit) by = hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') + (typeof hit.className === 'string' && hit.className ? '.' + hit.className.trim().split(/\s+/).join('.') : '');
    }
  }
  let focused = false;
  if (focus && visible && inView && !disabled && editable) {
    el.focus();
    const field = tag === 'input' || tag === 'textarea';
    if (focus === 2) {
      if (field) el.select();
      else { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
    } else if (field) {
      try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) {}
    } else {
      const r = document.createRange(); r.selectNodeContents(el); r.collapse(false);
      const s = getSelection(); s.removeAllRanges(); s.addRange(r);
    }
    focused = true;
  }
  return {visible, inView, disabled, covered, by, editable, focused, x, y, tag};
}`

// NodeState is what the page says of a node now.
type NodeState struct {
	Visible  bool   // it has a box, and is not hidden or transparent
	InView   bool   // its centre is inside the viewport
	Disabled bool   // :disabled, or inside aria-disabled="true"
	Editable bool   // a text field (or contenteditable) that is not read-only
	Covered  bool   // another element is on top of its centre
	Tag      string // its element's tag name
}

// probeNode resolves nr and runs probeJS on it (scrolling it into view with
// scroll, focusing it with a focus mode), in one round trip.
func (t *Tab) probeNode(ctx context.Context, nr NodeRef, scroll bool, focus focusMode) (probe, error) {
	n, err := t.resolve(ctx, nr)
	if err != nil {
		return probe{}, err
	}
	var p probe
	err = t.call(ctx, n, probeJS, &p, scroll, int(focus))
	t.releaseNode(ctx, n)
	if err != nil || p.Gone || n.frame == nil {
		return p, err
	}
	// The probe's point is in its frame's viewport; the pointer goes
	// through the tab's.
	dx, dy, err := t.frameOffset(ctx, nr.Ref, n.frame)
	p.X, p.Y = p.X+dx, p.Y+dy
	return p, err
}

// actionable resolves nr and checks the node can be acted on: present,
// visible, inside the viewport (after scrolling it into view), enabled and,
// when pointer is set, not covered at its centre. A focus mode (never with
// pointer) requires a text field and focuses it once it passes, in the same
// round trip as the checks.
func (t *Tab) actionable(ctx context.Context, nr NodeRef, pointer bool, focus focusMode) (probe, error) {
	p, err := t.probeNode(ctx, nr, true, focus)
	if err != nil {
		return p, err
	}
	return p, t.checkActionable(nr.Ref, p, pointer, focus)
}

// checkActionable is actionable's judgement of a probe of ref's node.
func (t *Tab) checkActionable(ref string, p probe, pointer bool, focus focusMode) error {
	editable := focus != noFocus
	switch {
	case p.Gone:
		return staleRef(ref)
	case !p.Visible:
		return target.Refuse(target.CodeNotVisible, "%s is not visible (no box, hidden, or transparent)", ref).With("ref", ref)
	case !p.InView:
		return target.Refuse(target.CodeNotVisible, "%s cannot be scrolled into the viewport", ref).With("ref", ref)
	case p.Disabled:
		return target.Refuse(target.CodeNotSensitive, "%s is disabled", ref).With("ref", ref)
	case editable && !p.Editable:
		return target.Refuse(target.CodeNotEditable, "%s is not a text field (<%s>)", ref, p.Tag).With("ref", ref)
	case pointer && p.Covered:
		r := target.Refuse(target.CodeCovered, "%s is covered by another element at its centre", ref).With("ref", ref)
		if p.By != "" {
			r = r.With("by", p.By)
		}
		return r
	case editable && !p.Focused: // the page's checks and these disagree
		return fmt.Errorf("cdp: %s passed the checks but the page did not focus it", ref)
	}
	return nil
}

// BackendNodeID is the backend node id of the DOM node key names (a key of
// one of the tab's snapshots, by either road), in the process of its frame:
// the node click, fill and type act on. A key whose node is gone is
// stale_ref.
func (t *Tab) BackendNodeID(ctx context.Context, key string) (int64, error) {
	_, _, id, err := t.backendOf(ctx, key, key)
	return id, err
}
