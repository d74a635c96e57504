package kindtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Browser is a browser without Chromium: each context's tabs keep the fake
// tree, and their nodes are acted on by input at the node (NodeInput), as a
// real tab's are.
type Browser struct {
	mu       sync.Mutex
	contexts map[string]*browserContext
	next     int
	observe  []func()
	*log
}

var _ kind.Browser = (*Browser)(nil)

// NewBrowser returns an empty fake browser.
func NewBrowser() *Browser {
	return &Browser{contexts: map[string]*browserContext{}, log: &log{}}
}

func (b *Browser) Context(ctx context.Context, key kind.BrowserKey) (kind.BrowserContext, func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.contexts[key.String()]
	if c == nil {
		c = &browserContext{b: b}
		b.contexts[key.String()] = c
	}
	return c, func() {}, nil
}

func (b *Browser) Release(ctx context.Context, key kind.BrowserKey) error {
	b.mu.Lock()
	c := b.contexts[key.String()]
	delete(b.contexts, key.String())
	b.mu.Unlock()
	if c != nil {
		c.closeAll()
	}
	return nil
}

func (b *Browser) Running(profile string) bool                      { return true }
func (b *Browser) Observe(f func())                                 { b.mu.Lock(); b.observe = append(b.observe, f); b.mu.Unlock() }
func (b *Browser) Record() json.RawMessage                          { return nil }
func (b *Browser) Reap(ctx context.Context, record json.RawMessage) {}
func (b *Browser) Doctor(ctx context.Context) []kind.Check {
	return []kind.Check{{Name: "browser", OK: true, Detail: "fake"}}
}
func (b *Browser) Close() error {
	b.mu.Lock()
	cs := b.contexts
	b.contexts = map[string]*browserContext{}
	b.mu.Unlock()
	for _, c := range cs {
		c.closeAll()
	}
	return nil
}

type browserContext struct {
	b    *Browser
	mu   sync.Mutex
	tabs []*Tab
}

func (c *browserContext) NewTab(ctx context.Context) (kind.Target, error) {
	c.b.mu.Lock()
	c.b.next++
	t := &Tab{b: c.b, key: fmt.Sprintf("FAKE%04d", c.b.next), url: "about:blank", title: "Fake page", seen: "Fake page"}
	c.b.mu.Unlock()
	c.mu.Lock()
	c.tabs = append(c.tabs, t)
	c.mu.Unlock()
	return t, nil
}

func (c *browserContext) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tabs {
		t.Close(context.Background())
	}
}

// Tabs lists every tab opened so far, in order.
func (b *Browser) Tabs() []*Tab {
	b.mu.Lock()
	cs := make([]*browserContext, 0, len(b.contexts))
	for _, c := range b.contexts {
		cs = append(cs, c)
	}
	b.mu.Unlock()
	var out []*Tab
	for _, c := range cs {
		c.mu.Lock()
		out = append(out, c.tabs...)
		c.mu.Unlock()
	}
	return out
}

// Tab is a fake tab. Its Info keeps the title of its last navigation;
// Refresh reads the one the page has now (Retitle).
type Tab struct {
	b   *Browser
	key string

	mu     sync.Mutex
	url    string
	title  string // the page's title now
	seen   string // the title as of the last navigation
	closed bool
}

// Closed reports whether the tab was closed.
func (t *Tab) Closed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Retitle plays the page changing its own title by script.
func (t *Tab) Retitle(title string) {
	t.mu.Lock()
	t.title = title
	t.mu.Unlock()
}

var (
	_ kind.Target    = (*Tab)(nil)
	_ kind.Refresher = (*Tab)(nil)
	_ kind.Filler    = (*Tab)(nil)
	_ kind.Navigator = (*Tab)(nil)
)

func (t *Tab) event(e Event) {
	e.Target = t.key
	t.b.add(e)
}

func (t *Tab) gone() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return target.Refuse(target.CodeTabGone, "tab %s has closed", t.key)
	}
	return nil
}

func (t *Tab) Info(ctx context.Context) (kind.Info, error) {
	if err := t.gone(); err != nil {
		return kind.Info{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return kind.Info{Key: t.key, Title: t.seen, App: t.url, Viewable: true}, nil
}

func (t *Tab) Refresh(ctx context.Context) (kind.Info, error) {
	if err := t.gone(); err != nil {
		return kind.Info{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen = t.title
	return kind.Info{Key: t.key, Title: t.title, App: t.url, Viewable: true}, nil
}

func (t *Tab) Probe(ctx context.Context) target.Probe {
	return target.Probe{Tree: true, TreeVia: "the fake page's tree", Injection: "cdp", Capture: true, NodeInput: true}
}

func (t *Tab) Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error) {
	if err := t.gone(); err != nil {
		return nil, err
	}
	s := snapshot("Fake page", "", false, ctx)
	s.Compact = true
	// As a real tab does: what the interactive view shows gets its ref
	// first.
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Key != "" && n.Actionable() {
			refs.Ref(n.Key)
		}
		return true
	})
	return s, nil
}

// SnapshotAfter is the fake page's nodes that follow the one key names (in
// NodeOrder), as a tab reads on past a snapshot its budget cut; a key of
// no node of the page is stale, as a real tab's gone node is.
func (t *Tab) SnapshotAfter(ctx context.Context, refs *target.RefTable, key string) (*target.Snapshot, error) {
	s, err := t.Snapshot(ctx, refs)
	if err != nil {
		return nil, err
	}
	i := slices.Index(NodeOrder, key)
	if i < 0 {
		return nil, target.Refuse(target.CodeStaleRef, "the node to read after is gone from the page; take a new snapshot")
	}
	s.Root.Children = s.Root.Children[i+1:]
	s.Census = s.Root.Count()
	return s, nil
}

func (t *Tab) Node(ctx context.Context, n kind.Node) (target.NodeTraits, error) {
	return nodeTraits(n.Key)
}

// Act clicks a node at its centre, as a real tab does: only a node with an
// action can be, here.
func (t *Tab) Act(ctx context.Context, n kind.Node) error {
	if err := t.gone(); err != nil {
		return err
	}
	if _, err := nodeTraits(n.Key); err != nil {
		return err
	}
	t.event(Event{Kind: "action", Key: n.Key})
	return nil
}

func (t *Tab) Focus(ctx context.Context, n kind.Node) error {
	t.event(Event{Kind: "focus", Key: n.Key})
	return nil
}

func (t *Tab) InsertText(ctx context.Context, n kind.Node, text string) error {
	t.event(Event{Kind: "insert", Key: n.Key, Text: text})
	return nil
}

func (t *Tab) Fill(ctx context.Context, n kind.Node, text string) error {
	t.event(Event{Kind: "fill", Key: n.Key, Text: text})
	return nil
}

func (t *Tab) ClickAt(ctx context.Context, p kind.Point) error {
	t.event(Event{Kind: "click", X: p.X, Y: p.Y})
	return nil
}

func (t *Tab) Scroll(ctx context.Context, at *kind.Point, dir string, steps int) error {
	e := Event{Kind: "scroll", Text: dir}
	if at != nil {
		e.X, e.Y = at.X, at.Y
	}
	t.event(e)
	return nil
}

func (t *Tab) Key(ctx context.Context, c target.Chord) error {
	t.event(Event{Kind: "key", Text: c.String()})
	return nil
}

func (t *Tab) Type(ctx context.Context, text string) error {
	if err := t.gone(); err != nil {
		return err
	}
	t.event(Event{Kind: "type", Text: text})
	return nil
}

func (t *Tab) ReleaseAll(ctx context.Context) error { return nil }

func (t *Tab) Screenshot(ctx context.Context) ([]byte, error) {
	return nil, target.Refuse(target.CodeNoCapture, "a fake tab has no pixels")
}

func (t *Tab) Frames(ctx context.Context, o kind.FrameOptions) (target.FrameSource, error) {
	return nil, target.Refuse(target.CodeNoCapture, "a fake tab has no pixels to stream")
}

func (t *Tab) Input(ctx context.Context, ev kind.Input) error {
	t.event(Event{Kind: "input", Text: string(ev.Type), X: int(ev.X), Y: int(ev.Y)})
	return nil
}

func (t *Tab) Close(ctx context.Context) error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return nil
}

func (t *Tab) Navigate(ctx context.Context, url string) error {
	if err := t.gone(); err != nil {
		return err
	}
	t.mu.Lock()
	t.url, t.seen = url, t.title
	t.mu.Unlock()
	t.event(Event{Kind: "navigate", Text: url})
	return nil
}
func (t *Tab) Back(ctx context.Context) error    { return t.Navigate(ctx, "about:back") }
func (t *Tab) Forward(ctx context.Context) error { return t.Navigate(ctx, "about:forward") }
func (t *Tab) Reload(ctx context.Context) error  { return t.gone() }
