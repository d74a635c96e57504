package cdp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	proto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domsnapshot"

	"github.com/vibespace/vibespace/target"
)

// Frames. The AX tree of a document stops at its <iframe> elements: a
// frame's document has a tree of its own. A frame of the same site runs in
// the page's renderer process and its tree is read on the tab's session
// (getFullAXTree with its frameId); a frame of another site runs in a
// process of its own (an out-of-process iframe, a target of type "iframe")
// and is read on a session attached to that target. Backend node ids are
// counted per process, so a ref into a frame names its frame in its key,
// "<generation>:<backendNodeId>@<frameId>", and is resolved, probed and
// focused in that frame's session; the pointer and the keyboard still go
// through the tab, at the node's point in the tab's viewport (the frames'
// offsets added), which is how Chromium routes a person's input.

// Bounds of the frame walk: how deep frames nest and how many one snapshot
// reads, so a page of endless frames cannot make a snapshot endless.
const (
	maxFrameDepth = 4
	maxFrames     = 32
)

// frameRec is a frame some snapshot of the tab has read.
type frameRec struct {
	id     string
	sess   *Session  // where its document's nodes are resolved
	owner  int64     // backend node id of its <iframe>, in the parent's session
	parent *frameRec // nil: the owner is in the main frame
	gen    int64     // the tab's document generation it was read in
	read   int64     // the snapshot (frameSet.reads) that read it
	doc    int64     // backend node id of its document, in sess (0: not known)
}

// ownerSession is the session the frame's <iframe> element lives in.
func (f *frameRec) ownerSession(main *Session) *Session {
	if f.parent == nil {
		return main
	}
	return f.parent.sess
}

// frameSet is a tab's frames by frame id, and its sessions with
// out-of-process frames by target id (an out-of-process frame's target id
// is its frame id). It holds the frames the latest snapshot read, and a
// session only while a frame it read is in that frame's process: a
// snapshot that no longer finds a frame detaches its session, as does the
// main frame navigating and the tab going.
type frameSet struct {
	mu       sync.Mutex
	reads    int64 // snapshots begun
	byID     map[string]*frameRec
	sessions map[string]*Session
}

// begin numbers a snapshot's read of the frames.
func (fs *frameSet) begin() int64 {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.reads++
	return fs.reads
}

// record notes frame id as read in generation gen by snapshot read.
func (fs *frameSet) record(id string, sess *Session, owner int64, parent *frameRec, gen, read int64) *frameRec {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.byID == nil {
		fs.byID = map[string]*frameRec{}
	}
	f := &frameRec{id: id, sess: sess, owner: owner, parent: parent, gen: gen, read: read}
	fs.byID[id] = f
	return f
}

// finish forgets the frames no snapshot since read (of gen or later) has
// read: of an earlier document, or gone from the page. It returns the
// sessions no remaining frame is in, for the caller to detach.
func (fs *frameSet) finish(read, gen int64) []*Session {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for k, f := range fs.byID {
		if f.read < read || f.gen < gen {
			delete(fs.byID, k)
		}
	}
	return fs.unusedLocked()
}

// forget forgets the frames of documents before generation gen (the main
// frame navigated, or the tab went) and returns the sessions to detach.
func (fs *frameSet) forget(gen int64) []*Session {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for k, f := range fs.byID {
		if f.gen < gen {
			delete(fs.byID, k)
		}
	}
	return fs.unusedLocked()
}

// setDoc notes the backend node id of f's document.
func (fs *frameSet) setDoc(f *frameRec, doc int64) {
	fs.mu.Lock()
	f.doc = doc
	fs.mu.Unlock()
}

// docOf is f's document's backend node id (0: not known).
func (fs *frameSet) docOf(f *frameRec) int64 {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return f.doc
}

// unusedLocked removes and returns the sessions no frame of byID is in,
// and those that ended.
func (fs *frameSet) unusedLocked() []*Session {
	used := map[*Session]bool{}
	for _, f := range fs.byID {
		used[f.sess] = true
	}
	var out []*Session
	for k, s := range fs.sessions {
		select {
		case <-s.gone:
			delete(fs.sessions, k)
			continue
		default:
		}
		if !used[s] {
			delete(fs.sessions, k)
			out = append(out, s)
		}
	}
	return out
}

func (fs *frameSet) lookup(id string) *frameRec {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.byID[id]
}

// recorded is the frames the latest snapshot read (of generation gen),
// in no particular order.
func (fs *frameSet) recorded(gen int64) []*frameRec {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]*frameRec, 0, len(fs.byID))
	for _, f := range fs.byID {
		if f.gen == gen {
			out = append(out, f)
		}
	}
	return out
}

// detach ends sessions the tab no longer needs, each bounded; a session
// the browser already ended costs nothing.
func (t *Tab) detach(ss []*Session) {
	for _, s := range ss {
		select {
		case <-s.gone:
			continue
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), detachWait)
		_ = s.Detach(ctx)
		cancel()
	}
}

// detachWait bounds detaching one frame's session.
const detachWait = 2 * time.Second

// frameSession is the tab's session with the out-of-process frame id, attached
// on first use (flat mode, on the browser connection: its detach is seen
// there and ends the session).
func (t *Tab) frameSession(ctx context.Context, id string) (*Session, error) {
	fs := &t.frames
	fs.mu.Lock()
	s := fs.sessions[id]
	if s != nil {
		select {
		case <-s.gone:
			delete(fs.sessions, id)
			s = nil
		default:
		}
	}
	fs.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := t.c.b.conn.Attach(ctx, id)
	if err != nil {
		return nil, err
	}
	fs.mu.Lock()
	if fs.sessions == nil {
		fs.sessions = map[string]*Session{}
	}
	old := fs.sessions[id]
	fs.sessions[id] = s
	fs.mu.Unlock()
	if old != nil && old != s {
		t.detach([]*Session{old})
	}
	return s, nil
}

// readPage reads the tab's trees: the main frame's and every frame's
// below it, within the bounds.
func (t *Tab) readPage(ctx context.Context, gen int64) (*axPage, error) {
	budget := maxFrames
	read := t.frames.begin()
	root, err := t.readProcess(ctx, t.sess, nil, gen, read, 0, &budget)
	if err == nil {
		t.detach(t.frames.finish(read, gen))
	}
	return root, err
}

// readProcess reads the tree of the document at the top of sess (the
// main frame, or an out-of-process frame rec) and of the frames below it:
// its AX tree and one DOMSnapshot capture (script-clickable elements and
// same-process frames, clickable.go) pipelined in one round trip, then
// each same-process frame's AX tree (pipelined), then each out-of-process
// frame's process in turn.
func (t *Tab) readProcess(ctx context.Context, sess *Session, rec *frameRec, gen, read int64, depth int, budget *int) (*axPage, error) {
	axCall, err := sess.send(ctx, accessibility.CommandGetFullAXTree, &accessibility.GetFullAXTreeParams{})
	if err != nil {
		return nil, err
	}
	domCall, err := sess.send(ctx, domsnapshot.CommandCaptureSnapshot, domSnapshotParams)
	if err != nil {
		return nil, err
	}
	var tree axTree
	axErr := sess.wait(ctx, axCall, &tree)
	var capture domCapture
	domErr := sess.wait(ctx, domCall, &capture)
	if axErr != nil {
		return nil, axErr
	}
	facts := domFacts{}
	if domErr == nil { // without it the page still has its tree
		facts = capture.facts()
	} else if ctx.Err() != nil {
		return nil, domErr
	}
	root := &axPage{frame: rec, nodes: tree.nodes, clickable: facts.clickable}
	if rec != nil {
		t.frames.setDoc(rec, docOf(tree.nodes))
	}
	// The frames of this process, breadth first; an <iframe> whose
	// document is not among the capture's is out of process (or empty).
	remote := map[int64]*axPage{} // the page holding each such <iframe>, by its backend node id
	for queue := []*axPage{root}; len(queue) > 0; queue = queue[1:] {
		page := queue[0]
		var local []*axPage
		var calls []*inflight
		for _, n := range page.nodes {
			if n.Ignored || n.BackendID == 0 || (n.Role != "Iframe" && n.Role != "IframePresentational") {
				continue
			}
			if *budget <= 0 {
				break
			}
			*budget--
			id, same := facts.frames[n.BackendID]
			if !same {
				remote[n.BackendID] = page
				continue
			}
			call, err := sess.send(ctx, accessibility.CommandGetFullAXTree, &accessibility.GetFullAXTreeParams{FrameID: proto.FrameID(id)})
			if err != nil {
				return nil, err
			}
			sub := &axPage{frame: t.frames.record(id, sess, n.BackendID, page.frame, gen, read), clickable: facts.clickable}
			local, calls = append(local, sub), append(calls, call)
		}
		for i, call := range calls {
			var sub axTree
			if err := sess.wait(ctx, call, &sub); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				continue // a frame that went while it was read
			}
			local[i].nodes = sub.nodes
			t.frames.setDoc(local[i].frame, docOf(sub.nodes))
			page.graft(local[i].frame.owner, local[i])
			queue = append(queue, local[i])
		}
	}
	if len(remote) == 0 || depth >= maxFrameDepth {
		return root, nil
	}
	if err := t.readRemote(ctx, sess, remote, gen, read, depth, budget); err != nil {
		return nil, err
	}
	return root, nil
}

// docOf is the backend node id of the document a tree is of: its root
// (the first node Chromium lists, the RootWebArea).
func docOf(nodes []*axNode) int64 {
	if len(nodes) == 0 {
		return 0
	}
	return nodes[0].BackendID
}

// graft hangs sub under the <iframe> owner of page.
func (page *axPage) graft(owner int64, sub *axPage) {
	if page.frames == nil {
		page.frames = map[int64]*axPage{}
	}
	page.frames[owner] = sub
}

// readRemote reads the out-of-process frames whose <iframe> elements are
// in sess (remote, by their backend node ids): the browser lists the
// frame targets whose parent is sess's target, the parent's session says
// which element owns each (DOM.getFrameOwner, pipelined), and each is read
// on a session of its own. A frame that went meanwhile is left out.
func (t *Tab) readRemote(ctx context.Context, sess *Session, remote map[int64]*axPage, gen, read int64, depth int, budget *int) error {
	ids, err := t.frameTargets(ctx, sess)
	if err != nil {
		return err
	}
	calls := make([]*inflight, 0, len(ids))
	for _, id := range ids {
		call, err := sess.send(ctx, dom.CommandGetFrameOwner, &dom.GetFrameOwnerParams{FrameID: proto.FrameID(id)})
		if err != nil {
			return err
		}
		calls = append(calls, call)
	}
	owners := make([]int64, len(ids))
	for i, call := range calls {
		var fo dom.GetFrameOwnerResult
		if err := sess.wait(ctx, call, &fo); err == nil {
			owners[i] = int64(fo.BackendNodeID)
		} else if ctx.Err() != nil {
			return err
		}
	}
	for i, id := range ids {
		page := remote[owners[i]]
		if page == nil {
			continue
		}
		fsess, err := t.frameSession(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			continue
		}
		rec := t.frames.record(id, fsess, owners[i], page.frame, gen, read)
		sub, err := t.readProcess(ctx, fsess, rec, gen, read, depth+1, budget)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			continue
		}
		page.graft(owners[i], sub)
	}
	return nil
}

// splitFrame splits a ref key into its node part and its frame id ("" in
// the main frame).
func splitFrame(key string) (base, frame string) {
	base, frame, _ = strings.Cut(key, "@")
	return base, frame
}

// frameOf is the frame a key's node is in (nil: the main frame), or
// stale_ref when the tab no longer has that frame as it was read.
func (t *Tab) frameOf(ref, frame string, gen int64) (*frameRec, *Session, error) {
	if frame == "" {
		return nil, t.sess, nil
	}
	f := t.frames.lookup(frame)
	if f == nil || f.gen != gen {
		return nil, nil, target.Refuse(target.CodeStaleRef, "the frame of %s is gone from the page; take a new snapshot", ref).With("ref", ref)
	}
	select {
	case <-f.sess.gone:
		return nil, nil, target.Refuse(target.CodeStaleRef, "the frame of %s is gone from the page; take a new snapshot", ref).With("ref", ref)
	default:
	}
	return f, f.sess, nil
}

// ownerOriginJS is where the content of the <iframe> this starts, in its
// document's viewport: the corner of its content box.
const ownerOriginJS = `function() {
  const r = this.getBoundingClientRect(), st = getComputedStyle(this);
  return {x: r.left + this.clientLeft + parseFloat(st.paddingLeft), y: r.top + this.clientTop + parseFloat(st.paddingTop)};
}`

// frameOffset is where frame f's viewport starts in the tab's viewport:
// the origins of its <iframe> and of every frame above it, added up.
func (t *Tab) frameOffset(ctx context.Context, ref string, f *frameRec) (x, y float64, err error) {
	for ; f != nil; f = f.parent {
		sess := f.ownerSession(t.sess)
		n, err := t.resolveIn(ctx, ref, sess, f.parent, f.owner)
		if err != nil {
			return 0, 0, err
		}
		var at struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
		}
		err = t.call(ctx, n, ownerOriginJS, &at)
		t.releaseNode(ctx, n)
		if err != nil {
			return 0, 0, err
		}
		x, y = x+at.X, y+at.Y
	}
	return x, y, nil
}

// frameFail maps an error of a call on a frame's session: the frame's
// session ending is its node going (stale_ref), not the tab closing.
func (t *Tab) frameFail(ref string, err error) error {
	if errors.Is(err, ErrSessionGone) {
		return staleRef(ref).Wrap(err)
	}
	if e, ok := asError(err); ok && (e.Code == codeNoSession || e.Code == codeServerError) {
		return staleRef(ref).Wrap(err)
	}
	return t.fail(err)
}
