package cdp

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/accessibility"
	proto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	cdptarget "github.com/chromedp/cdproto/target"

	"github.com/vibespace/vibespace/target"
)

// The page road. Chromium's getFullAXTree grows faster than the page (five
// times the rows, twelve times the time) and serialises every ignored node:
// a page of 20,000 rows is 220,000 nodes and 84 MB. The page road computes the same tree
// in the page instead: one pass over each document's flat tree
// (pagewalk.js), in an isolated world of ours (the page's scripts cannot
// see it, and nothing of the page is changed), that emits the accessible
// nodes in Chromium's vocabulary, roles by the HTML and ARIA mappings and
// names by the accname rules as Chromium applies them, and only those: the
// reply of a 5,000-row page is a tenth of the AX tree's. The same builder
// (buildPage) turns either road's nodes into the snapshot, so the two can
// be held equal (snapshot_roads_test.go); the AX road stays the oracle and
// the fallback.
//
// A DOM node is named across the road by a handle: a number the world
// keeps for the element while it lives (a WeakRef), stable from snapshot
// to snapshot of one document, so a node keeps its ref. A handle's key is
// "<generation>:h<handle>.<world>" (handleKey); acting on it asks the world for the element
// and DOM.describeNode for its backend node id (once: the tab remembers
// it), and from there a ref is acted on exactly as one of the AX road.
// What a page's own scripts made clickable (a click listener) is not
// visible to a script: one DOMDebugger.getEventListeners over the document
// lists those elements, and they are handed to the walk.

//go:embed pagewalk.js
var pageWalkJS string

// worldName names our isolated world in every frame.
const worldName = "vibespace"

// walkGroup names the object groups of the handles walks are given, released
// after it.
const walkGroup = "vibespace-walk"

// rawBudget is how many nodes one walk emits at most: the builder drops
// wrappers and text only the layout needs, so a page's snapshot has fewer
// nodes than its walk; past SnapshotBudget the builder stops anyway.
const rawBudget = SnapshotBudget * 3 / 2

// frameFloor is how many nodes a frame's walk reads at least, whatever
// the documents before it left of rawBudget.
const frameFloor = 2000

// worldRec is a frame's isolated world: its execution context, in the
// generation it was made.
type worldRec struct {
	id     runtime.ExecutionContextID
	gen    int64
	sess   *Session
	serial int64 // the tab's count of worlds made: a handle's key names its world by it
}

// worldSet is the tab's isolated worlds by frame id, and the backend node
// ids its handles were found to name.
type worldSet struct {
	mk       sync.Mutex // held while a world is made: one at a time, so two snapshots make one
	mu       sync.Mutex
	byFrame  map[string]worldRec
	made     int64            // worlds made (worldRec.serial)
	walks    atomic.Int64     // walks begun: each has an object group of its own
	backends map[string]int64 // by key
	gen      int64            // of backends
}

// world is our isolated world in frame id (on sess), made on first use in
// a document generation; one whose context is stale is made anew (the
// frame navigated: its document has lost it).
func (t *Tab) world(ctx context.Context, sess *Session, id string, gen int64, stale runtime.ExecutionContextID) (worldRec, error) {
	ws := &t.worlds
	current := func() (worldRec, bool) {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		w, ok := ws.byFrame[id]
		return w, ok && w.gen == gen && w.sess == sess && (stale == 0 || w.id != stale)
	}
	if w, ok := current(); ok {
		return w, nil
	}
	ws.mk.Lock()
	defer ws.mk.Unlock()
	if w, ok := current(); ok { // another snapshot made it meanwhile
		return w, nil
	}
	var res page.CreateIsolatedWorldResult
	if err := sess.Call(ctx, page.CommandCreateIsolatedWorld, &page.CreateIsolatedWorldParams{FrameID: proto.FrameID(id), WorldName: worldName}, &res); err != nil {
		return worldRec{}, err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.byFrame == nil {
		ws.byFrame = map[string]worldRec{}
	}
	ws.made++
	w := worldRec{id: res.ExecutionContextID, gen: gen, sess: sess, serial: ws.made}
	ws.byFrame[id] = w
	return w, nil
}

// lostWorld reports whether err is a call into a world that is gone: its
// frame navigated (a document of its own has a world of its own).
func lostWorld(err error) bool {
	e, ok := asError(err)
	return ok && e.Code == codeServerError && strings.Contains(e.Message, "context")
}

// readPageRoad reads the tab's documents by the page road: the main
// frame's and every frame's below it, within the frame bounds; with an
// after key, what follows that node in the main document (a node in a
// frame: what follows the frame's <iframe>).
func (t *Tab) readPageRoad(ctx context.Context, gen int64, after string) (*axPage, error) {
	budget := maxFrames
	nodes := rawBudget
	// A node in a frame is read on from in its frame, and the frames
	// above it from their <iframe> on: from is the chain of backend node
	// ids, the main document's first.
	var from []int64
	if after != "" {
		f, _, id, err := t.backendOf(ctx, after, after)
		if err != nil {
			return nil, err
		}
		from = []int64{id}
		for ; f != nil; f = f.parent {
			from = append([]int64{f.owner}, from...)
		}
	}
	read := t.frames.begin()
	root, err := t.walkDoc(ctx, t.sess, t.sess.targetID, nil, 0, from, gen, read, 0, &budget, &nodes)
	if err == nil {
		t.detach(t.frames.finish(read, gen))
	}
	return root, err
}

// walkDoc reads one document by the page road: the document of frame id
// on sess (the top of sess when doc is 0, else the document whose backend
// node id is doc), and then the frames it holds.
func (t *Tab) walkDoc(ctx context.Context, sess *Session, id string, rec *frameRec, doc int64, after []int64, gen, read int64, depth int, budget, nodes *int) (*axPage, error) {
	var stale runtime.ExecutionContextID
	for {
		w, err := t.world(ctx, sess, id, gen, stale)
		if err != nil {
			return nil, err
		}
		pg, err := t.walkIn(ctx, sess, w, rec, doc, after, gen, read, depth, budget, nodes)
		if err != nil && stale == 0 && lostWorld(err) {
			stale = w.id // the frame's document changed under its world: once more in a new one
			continue
		}
		return pg, err
	}
}

// walkIn is walkDoc in the world w.
func (t *Tab) walkIn(ctx context.Context, sess *Session, w worldRec, rec *frameRec, doc int64, after []int64, gen, read int64, depth int, budget, nodes *int) (*axPage, error) {
	wid := w.id
	// The objects a walk is handed go in a group of its own, released
	// after it: another snapshot's walk keeps its own.
	group := walkGroup + "-" + strconv.FormatInt(t.worlds.walks.Add(1), 10)
	defer func() {
		_, _ = sess.send(context.WithoutCancel(ctx), runtime.CommandReleaseObjectGroup, &runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}()
	docObj, docID, err := documentOf(ctx, sess, doc, rec != nil, group)
	if err != nil {
		return nil, err
	}
	if rec != nil && docID != 0 {
		t.frames.setDoc(rec, docID)
	}
	clicks, err := clickTargets(ctx, sess, docObj, wid, group)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	// A frame is walked after the document holding it, which may have
	// spent the budget: it still reads frameFloor nodes, so that paging,
	// which reads on from the first place anything was left out, gets on
	// in a frame early in a big page.
	limit := *nodes
	if rec != nil {
		limit = max(limit, frameFloor)
	}
	if len(after) > 1 {
		// Reading on inside a frame of this document: the frame comes
		// first, what follows its <iframe> here only as far as frameFloor.
		limit = min(limit, frameFloor)
	}
	args := make([]*runtime.CallArgument, 0, 2+len(clicks))
	args = append(args, &runtime.CallArgument{Value: jsonv2.Value(strconv.Itoa(limit))})
	if len(after) > 0 {
		var res dom.ResolveNodeResult
		if err := sess.Call(ctx, dom.CommandResolveNode, &dom.ResolveNodeParams{BackendNodeID: proto.BackendNodeID(after[0]), ExecutionContextID: wid, ObjectGroup: group}, &res); err != nil || res.Object == nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil && lostWorld(err) {
				return nil, err
			}
			return nil, target.Refuse(target.CodeStaleRef, "the node to read after is gone from the page; take a new snapshot")
		}
		args = append(args, &runtime.CallArgument{ObjectID: res.Object.ObjectID})
	} else {
		args = append(args, &runtime.CallArgument{Value: jsonv2.Value("null")})
	}
	for _, o := range clicks {
		args = append(args, &runtime.CallArgument{ObjectID: o})
	}
	var res walkResult
	err = sess.Call(ctx, runtime.CommandCallFunctionOn, &runtime.CallFunctionOnParams{
		FunctionDeclaration: pageWalkJS,
		ExecutionContextID:  wid,
		Arguments:           args,
		ReturnByValue:       new(true),
	}, &res)
	if err != nil {
		return nil, err
	}
	if res.exception != "" {
		return nil, fmt.Errorf("%w: %s", errWalk, res.exception)
	}
	if len(res.nodes) > 0 && docID != 0 {
		res.nodes[0].BackendID = docID
	}
	*nodes = max(0, *nodes-len(res.nodes))
	pg := &axPage{frame: rec, nodes: res.nodes, left: res.left, world: w.serial, cut: res.cut}
	if depth >= maxFrameDepth {
		return pg, nil
	}
	var into []int64 // the chain inside the frame of after[0], an <iframe> read on in
	if len(after) > 1 {
		into = after
	}
	return pg, t.walkFrames(ctx, sess, pg, wid, into, gen, read, depth, budget, nodes)
}

// documentOf is the document of sess's top frame (doc 0) or the document
// doc, as a main-world object (the page's listeners are listed for the
// page's world) and, when needID asks (a frame's, for its digests), its
// backend node id.
func documentOf(ctx context.Context, sess *Session, doc int64, needID bool, group string) (runtime.RemoteObjectID, int64, error) {
	if doc != 0 {
		var res dom.ResolveNodeResult
		if err := sess.Call(ctx, dom.CommandResolveNode, &dom.ResolveNodeParams{BackendNodeID: proto.BackendNodeID(doc), ObjectGroup: group}, &res); err != nil {
			return "", 0, err
		}
		if res.Object == nil {
			return "", 0, errors.New("cdp: the frame's document has no object")
		}
		return res.Object.ObjectID, doc, nil
	}
	var ev runtime.EvaluateResult
	if err := sess.Call(ctx, runtime.CommandEvaluate, &runtime.EvaluateParams{Expression: "document", ObjectGroup: group}, &ev); err != nil {
		return "", 0, err
	}
	if ev.Result == nil || ev.Result.ObjectID == "" {
		return "", 0, errors.New("cdp: the page has no document")
	}
	if !needID {
		return ev.Result.ObjectID, 0, nil
	}
	var d dom.DescribeNodeResult
	if err := sess.Call(ctx, dom.CommandDescribeNode, &dom.DescribeNodeParams{ObjectID: ev.Result.ObjectID}, &d); err != nil {
		return "", 0, err
	}
	var id int64
	if d.Node != nil {
		id = int64(d.Node.BackendNodeID)
	}
	return ev.Result.ObjectID, id, nil
}

// clickEvents are the listeners that make an element clickable, as
// DOMSnapshot's isClickable counts them (clickable.go).
var clickEvents = map[string]bool{"click": true, "mousedown": true, "mouseup": true}

// clickTargets is the elements of the document doc (a main-world object)
// with a click listener, as objects of the world wid, for the walk.
func clickTargets(ctx context.Context, sess *Session, doc runtime.RemoteObjectID, wid runtime.ExecutionContextID, group string) ([]runtime.RemoteObjectID, error) {
	var ls domdebugger.GetEventListenersResult
	// Pierced: a listener inside a shadow root counts (those of frames
	// too, which the frame's own walk takes; here they are no element of
	// the walk's and change nothing).
	if err := sess.Call(ctx, domdebugger.CommandGetEventListeners, &domdebugger.GetEventListenersParams{ObjectID: doc, Depth: new(int64(-1)), Pierce: new(true)}, &ls); err != nil {
		return nil, err
	}
	seen := map[proto.BackendNodeID]bool{}
	var calls []*inflight
	for _, l := range ls.Listeners {
		if !clickEvents[l.Type] || l.BackendNodeID == 0 || seen[l.BackendNodeID] {
			continue
		}
		seen[l.BackendNodeID] = true
		call, err := sess.send(ctx, dom.CommandResolveNode, &dom.ResolveNodeParams{BackendNodeID: l.BackendNodeID, ExecutionContextID: wid, ObjectGroup: group})
		if err != nil {
			return nil, err
		}
		calls = append(calls, call)
	}
	out := make([]runtime.RemoteObjectID, 0, len(calls))
	for _, call := range calls {
		var res dom.ResolveNodeResult
		if err := sess.wait(ctx, call, &res); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			continue
		}
		if res.Object != nil && res.Object.ObjectID != "" {
			out = append(out, res.Object.ObjectID)
		}
	}
	return out, nil
}

// walkFrames reads the frames whose <iframe> elements the walk of pg
// found: each element's backend node id and frame id (DOM.describeNode),
// then its document, in this process (a same-process frame: its content
// document is here) or on a session of its own (an out-of-process frame).
// A frame that went meanwhile is left out.
func (t *Tab) walkFrames(ctx context.Context, sess *Session, pg *axPage, wid runtime.ExecutionContextID, into []int64, gen, read int64, depth int, budget, nodes *int) error {
	var owners []*axNode
	for _, n := range pg.nodes {
		if n.Role == "Iframe" && n.Handle != 0 {
			if *budget <= 0 {
				n.Unread = true // past the bound of frames: a later page reads it
				continue
			}
			*budget--
			owners = append(owners, n)
		}
	}
	if len(owners) == 0 {
		return nil
	}
	var remote []string // out-of-process frames of sess, asked once
	asked := false
	for _, n := range owners {
		obj, err := t.handleObject(ctx, sess, wid, n.Handle)
		if err != nil || obj == "" {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		var d dom.DescribeNodeResult
		err = sess.Call(ctx, dom.CommandDescribeNode, &dom.DescribeNodeParams{ObjectID: obj}, &d)
		_, _ = sess.send(context.WithoutCancel(ctx), runtime.CommandReleaseObject, &runtime.ReleaseObjectParams{ObjectID: obj})
		if err != nil || d.Node == nil || d.Node.FrameID == "" {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		n.BackendID = int64(d.Node.BackendNodeID)
		fid := string(d.Node.FrameID)
		var sub0 []int64 // where in the frame to read on from (nil: all of it)
		if len(into) > 1 && into[0] == n.BackendID {
			sub0 = into[1:]
		}
		var sub *axPage
		if cd := d.Node.ContentDocument; cd != nil {
			frec := t.frames.record(fid, sess, n.BackendID, pg.frame, gen, read)
			sub, err = t.walkDoc(ctx, sess, fid, frec, int64(cd.BackendNodeID), sub0, gen, read, depth, budget, nodes)
		} else {
			if !asked {
				if remote, err = t.frameTargets(ctx, sess); err != nil {
					return err
				}
				asked = true
			}
			if !slices.Contains(remote, fid) {
				continue
			}
			var fsess *Session
			if fsess, err = t.frameSession(ctx, fid); err == nil {
				frec := t.frames.record(fid, fsess, n.BackendID, pg.frame, gen, read)
				sub, err = t.walkDoc(ctx, fsess, fid, frec, 0, sub0, gen, read, depth+1, budget, nodes)
			}
		}
		if errors.Is(err, errWalk) {
			// Our walk threw in this frame: its tree as Chromium has it.
			sub, err = t.axFrame(ctx, sess, fid, n.BackendID, pg.frame, gen, read)
		}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			continue
		}
		pg.graft(n.BackendID, sub)
	}
	return nil
}

// frameTargets is the ids of the out-of-process frames whose parent is
// sess's target, in the browser's order.
func (t *Tab) frameTargets(ctx context.Context, sess *Session) ([]string, error) {
	var res cdptarget.GetTargetsResult
	if err := t.c.b.conn.Call(ctx, cdptarget.CommandGetTargets, &cdptarget.GetTargetsParams{}, &res); err != nil {
		return nil, err
	}
	var out []string
	for _, ti := range res.TargetInfos {
		if ti.Type == "iframe" && string(ti.ParentID) == sess.targetID {
			out = append(out, string(ti.TargetID))
		}
	}
	return out, nil
}

// handleLookupJS is the element a handle names, or null.
const handleLookupJS = `function(h) { const H = globalThis.__vibespaceHandles; return H ? H.get(h) : null; }`

// handleObject is the element handle h names in world wid on sess, as an
// object of that world ("" when it is gone).
func (t *Tab) handleObject(ctx context.Context, sess *Session, wid runtime.ExecutionContextID, h int64) (runtime.RemoteObjectID, error) {
	var res runtime.CallFunctionOnResult
	err := sess.Call(ctx, runtime.CommandCallFunctionOn, &runtime.CallFunctionOnParams{
		FunctionDeclaration: handleLookupJS,
		ExecutionContextID:  wid,
		Arguments:           []*runtime.CallArgument{{Value: jsonv2.Value(strconv.FormatInt(h, 10))}},
	}, &res)
	if err != nil {
		return "", err
	}
	if res.Result == nil {
		return "", nil
	}
	return res.Result.ObjectID, nil
}

// handleKey is the ref key of handle h of world w (worldRec.serial) in
// document generation gen: "<gen>:h<handle>.<world>". The world is in the
// key because a frame that navigates gets a new world numbering its
// handles from 1: a handle of the old one must be stale, not another node.
func handleKey(gen, h, w int64) string {
	return strconv.FormatInt(gen, 10) + ":h" + strconv.FormatInt(h, 10) + "." + strconv.FormatInt(w, 10)
}

// parseHandleKey splits a handle's key (its frame part already cut).
func parseHandleKey(key string) (gen, h, w int64, ok bool) {
	g, rest, found := strings.Cut(key, ":h")
	if !found {
		return 0, 0, 0, false
	}
	hs, ws, found := strings.Cut(rest, ".")
	if !found {
		return 0, 0, 0, false
	}
	gen, err1 := strconv.ParseInt(g, 10, 64)
	h, err2 := strconv.ParseInt(hs, 10, 64)
	w, err3 := strconv.ParseInt(ws, 10, 64)
	return gen, h, w, err1 == nil && err2 == nil && err3 == nil && h > 0 && w > 0
}

// handleBackend is the backend node id of the element handle h names in
// frame f (nil: the main frame) on sess; key is the handle's key, by which
// the answer is remembered for the document's life. A handle whose element
// is gone is stale_ref.
func (t *Tab) handleBackend(ctx context.Context, ref, key string, sess *Session, f *frameRec, gen, h, world int64) (int64, error) {
	ws := &t.worlds
	ws.mu.Lock()
	if ws.gen != gen {
		ws.backends, ws.gen = nil, gen
	}
	id, ok := ws.backends[key]
	ws.mu.Unlock()
	if ok {
		return id, nil
	}
	fid := t.sess.targetID
	if f != nil {
		fid = f.id
	}
	ws.mu.Lock()
	w, ok := ws.byFrame[fid]
	ws.mu.Unlock()
	if !ok || w.gen != gen || w.sess != sess || w.serial != world {
		return 0, staleRef(ref) // its world went with the document it named a node of
	}
	obj, err := t.handleObject(ctx, sess, w.id, h)
	if err != nil {
		if e, ok := asError(err); ok && e.Code == codeServerError {
			return 0, staleRef(ref).Wrap(err) // the world went with its document
		}
		if sess != t.sess {
			return 0, t.frameFail(ref, err)
		}
		return 0, t.fail(err)
	}
	if obj == "" {
		return 0, staleRef(ref)
	}
	var d dom.DescribeNodeResult
	err = sess.Call(ctx, dom.CommandDescribeNode, &dom.DescribeNodeParams{ObjectID: obj}, &d)
	_, _ = sess.send(context.WithoutCancel(ctx), runtime.CommandReleaseObject, &runtime.ReleaseObjectParams{ObjectID: obj})
	if err != nil {
		if sess != t.sess {
			return 0, t.frameFail(ref, err)
		}
		return 0, t.fail(err)
	}
	if d.Node == nil || d.Node.BackendNodeID == 0 {
		return 0, staleRef(ref)
	}
	id = int64(d.Node.BackendNodeID)
	ws.mu.Lock()
	if ws.gen == gen {
		if ws.backends == nil {
			ws.backends = map[string]int64{}
		}
		ws.backends[key] = id
	}
	ws.mu.Unlock()
	return id, nil
}

// errWalk is the page walk failing in the page (it threw): the tab's
// Snapshot reads the page by the AX road instead.
var errWalk = errors.New("cdp: our page walk threw (a bug of ours)")

// walkResult is a Runtime.callFunctionOn reply of the walk: its nodes, or
// the exception it threw.
type walkResult struct {
	nodes     []*axNode
	left      int
	cut       int64 // the handle of the last element a walk its budget cut emitted
	exception string
}

// decodeChecked decodes the reply (see checkedDecoder).
func (r *walkResult) decodeChecked(data []byte) error { return r.UnmarshalJSON(data) }

// UnmarshalJSON decodes {"result": {"value": "{\"n\": [...], \"left\": N}"}} or
// {"exceptionDetails": {...}} by hand, as axTree does: the reply of a big
// page holds hundreds of thousands of values.
func (r *walkResult) UnmarshalJSON(data []byte) error {
	*r = walkResult{}
	s := axScan{b: data}
	s.members(func(key []byte) {
		switch string(key) {
		case "result":
			s.members(func(key []byte) {
				if string(key) != "value" {
					s.skip()
					return
				}
				// The walk answers JSON in a string: V8 writes it faster
				// than the protocol converts an array of its size.
				in := axScan{b: []byte(unquote(s.rawString()))}
				in.members(func(key []byte) {
					switch string(key) {
					case "n":
						r.nodes = in.walkNodes()
					case "left":
						r.left, _ = strconv.Atoi(string(in.skip()))
					case "cut":
						r.cut, _ = strconv.ParseInt(string(in.skip()), 10, 64)
					default:
						in.skip()
					}
				})
				if err := in.end(); err != nil {
					s.fail(err.Error())
				}
			})
		case "exceptionDetails":
			var ex runtime.ExceptionDetails
			if err := jsonv2.Unmarshal(s.skip(), &ex); err == nil {
				r.exception = scriptError(&ex).Error()
			} else {
				r.exception = "an exception"
			}
		default:
			s.skip()
		}
	})
	return s.end()
}

// walkNodes consumes the walk's flat node array, eight values a node.
func (s *axScan) walkNodes() []*axNode {
	var nodes []*axNode
	var slab []axNode
	field := 0
	var n *axNode
	num := func() int64 {
		v, err := strconv.ParseInt(string(s.skip()), 10, 64)
		if err != nil {
			s.fail("want an integer")
		}
		return v
	}
	s.elements(func() {
		switch field {
		case 0:
			if len(slab) == cap(slab) {
				slab = make([]axNode, 0, 256)
			}
			slab = append(slab, axNode{})
			n = &slab[len(slab)-1]
			i := len(nodes)
			n.NodeID = strconv.Itoa(i)
			nodes = append(nodes, n)
			if p := num(); p >= 0 && int(p) < i {
				par := nodes[p]
				par.ChildIDs = append(par.ChildIDs, n.NodeID)
			}
		case 1:
			n.Role = s.str()
		case 2:
			n.Name = s.str()
		case 3:
			n.Desc = s.str()
		case 4:
			n.Value = s.str()
		case 5:
			n.Props = walkProps(num())
		case 6:
			if l := num(); l > 0 {
				n.Props.level = strconv.FormatInt(l, 10)
			}
		case 7:
			n.Handle = num()
			if n.Props.clickable {
				n.Scripted = true
			}
		}
		field = (field + 1) % 8
	})
	return nodes
}

// flowShift is where pagewalk.js's FLOW sits in the flags (its values are
// target.Flow's).
const flowShift = 19

// walkProps turns the walk's flag bits (pagewalk.js F) into the AX
// properties the builder reads.
func walkProps(f int64) axProps {
	var p axProps
	bit := func(b int64) axWord {
		if f&b != 0 {
			return axTrue
		}
		return axNone
	}
	p.disabled = bit(1)
	p.focusable = bit(2)
	p.focused = bit(4)
	p.modal = bit(8)
	p.required = bit(16)
	p.multiline = bit(32)
	p.multiselectable = bit(64)
	tri := func(v int64) axWord {
		switch v {
		case 1:
			return axTrue
		case 2:
			return axFalse
		case 3:
			return axMixed
		}
		return axNone
	}
	p.checked = tri(f >> 8 & 3)
	p.pressed = tri(f >> 10 & 3)
	p.selected = bit(1 << 12)
	if f&(1<<13) != 0 {
		p.hasExpanded = true
		p.expanded = axFalse
		if f&(1<<14) != 0 {
			p.expanded = axTrue
		}
	}
	p.readonly = bit(1 << 15)
	p.invalid = bit(1 << 16)
	p.editable = bit(1 << 17)
	p.clickable = f&(1<<18) != 0
	p.flow = target.Flow(f >> flowShift & 7)
	return p
}

// axFrame reads frame fid, whose <iframe> is owner in sess, by the AX
// road: the frame a page walk failed in. An out-of-process frame is read
// on its own session; the frames inside it are not read.
func (t *Tab) axFrame(ctx context.Context, sess *Session, fid string, owner int64, parent *frameRec, gen, read int64) (*axPage, error) {
	fsess, params := sess, &accessibility.GetFullAXTreeParams{FrameID: proto.FrameID(fid)}
	if remote, err := t.frameTargets(ctx, sess); err == nil && slices.Contains(remote, fid) {
		if fsess, err = t.frameSession(ctx, fid); err != nil {
			return nil, err
		}
		params = &accessibility.GetFullAXTreeParams{}
	}
	var tree axTree
	if err := fsess.Call(ctx, accessibility.CommandGetFullAXTree, params, &tree); err != nil {
		return nil, err
	}
	rec := t.frames.record(fid, fsess, owner, parent, gen, read)
	t.frames.setDoc(rec, docOf(tree.nodes))
	return &axPage{frame: rec, nodes: tree.nodes}, nil
}
