package chromium

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/pagewatch"
	"github.com/vibespace/vibespace/target"
)

// scrollStep is how many CSS pixels one scroll step turns the wheel.
const scrollStep = 100

// tab is a browser tab as a target of the tab kind: a cdp.Tab of one of the
// pool's browser contexts.
type tab struct {
	t    *cdp.Tab
	c    *cdp.Context
	pane string       // Options.TabPane
	log  *slog.Logger // the pool's

	presses kind.Presses // a person's presses from the live view, waiting for their release
}

var (
	_ kind.Target     = (*tab)(nil)
	_ kind.Refresher  = (*tab)(nil)
	_ kind.Filler     = (*tab)(nil)
	_ kind.Navigator  = (*tab)(nil)
	_ kind.Evaluator  = (*tab)(nil)
	_ kind.Waiter     = (*tab)(nil)
	_ kind.PageReader = (*tab)(nil)
	_ kind.Selector   = (*tab)(nil)
	// The daemon's pager (daemon/verb_read.go), which it defines where it
	// reads a snapshot on (snapshot --after): a tab whose method drifts
	// from it would page no more, silently.
	_ interface {
		SnapshotAfter(ctx context.Context, refs *target.RefTable, key string) (*target.Snapshot, error)
	} = (*tab)(nil)
)

func newTab(t *cdp.Tab, c *cdp.Context, pane string, log *slog.Logger) *tab {
	return &tab{t: t, c: c, pane: pane, log: log}
}

func (t *tab) node(n kind.Node) cdp.NodeRef { return cdp.NodeRef{Ref: n.Ref, Key: n.Key} }

// Info is the tab's title and URL as the browser showed them at its last
// navigation (read then from the browser, not the page), and whether it
// is still there.
func (t *tab) Info(ctx context.Context) (kind.Info, error) { return t.info(t.t.Info(ctx)) }

// Refresh asks the browser for the tab's title and URL now (a page may
// retitle itself).
func (t *tab) Refresh(ctx context.Context) (kind.Info, error) { return t.info(t.t.ReadInfo(ctx)) }

func (t *tab) info(ti cdp.TabInfo, err error) (kind.Info, error) {
	if err != nil {
		return kind.Info{}, err
	}
	return kind.Info{Key: t.t.ID(), Title: ti.Title, App: ti.URL, Viewable: true}, nil
}

// Probe: a tab attached over CDP has the page's accessibility tree, CDP
// Input, and its viewport's pixels; its nodes are acted on through their
// DOM node, by input at their centre. A tab whose session ended has none.
func (t *tab) Probe(ctx context.Context) target.Probe {
	p := target.Probe{
		Tree: true, TreeVia: "the page's accessibility tree, through CDP",
		Injection: "cdp",
		Capture:   true, CaptureVia: "the page's viewport, through Page.captureScreenshot",
		NodeInput: true,
	}
	select {
	case <-t.t.Gone():
		why := "the tab has closed"
		p = target.Probe{TreeWhy: why, InjectionWhy: why, CaptureWhy: why, NodeInput: true}
	default:
	}
	return p
}

// Snapshot reads the page's tree. Its root (the RootWebArea) is named by the
// document's title; a page without one is asked for it.
func (t *tab) Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error) {
	s, err := t.t.Snapshot(ctx, refs, false)
	return t.titled(ctx, s, err)
}

// SnapshotAfter reads what follows the node key names in the page (its
// descendants, then every later node): one more page past a snapshot its
// budget cut (snapshot --after). Its root is named as Snapshot's is.
func (t *tab) SnapshotAfter(ctx context.Context, refs *target.RefTable, key string) (*target.Snapshot, error) {
	s, err := t.t.SnapshotAfter(ctx, refs, false, key)
	return t.titled(ctx, s, err)
}

// titled names a snapshot the document's title gave no name by the
// title the tab has.
func (t *tab) titled(ctx context.Context, s *target.Snapshot, err error) (*target.Snapshot, error) {
	if err != nil {
		return nil, err
	}
	if s.Title == "" {
		s.Title, _ = t.t.Title(ctx)
	}
	return s, nil
}

// Node reads what the page says of a node now, without scrolling it: its
// state, and its role and name in the page's tree.
func (t *tab) Node(ctx context.Context, n kind.Node) (target.NodeTraits, error) {
	// One read of the node: its state, and its role and name from the
	// page's tree, for the answer; a choice control (a <select>, a list
	// box, a combo box) offers a selection, as AT-SPI's Selection does
	// (the law's choice for select).
	st, info, err := t.t.NodeState(ctx, t.node(n))
	if err != nil {
		return target.NodeTraits{}, err
	}
	return traits(st, info), nil
}

// traits are a node's traits as the page's state and tree say them.
func traits(st cdp.NodeState, info cdp.NodeInfo) target.NodeTraits {
	tr := target.NodeTraits{Sensitive: !st.Disabled, Editable: st.Editable, Focusable: st.Visible}
	tr.Role, tr.Name = info.Role, info.Name
	if info.Choice {
		tr.Interfaces = []string{"Selection"}
	}
	return tr
}

// ReadForAct reads a node once for a verb that decides on it (select):
// its traits (Node's) and its facts (ReadNode's), which the look before
// the act takes instead of reading the node again.
func (t *tab) ReadForAct(ctx context.Context, n kind.Node) (kind.NodeRead, error) {
	st, info, f, err := t.t.NodeStateFacts(ctx, t.node(n))
	if err != nil {
		return kind.NodeRead{}, err
	}
	return kind.NodeRead{Traits: traits(st, info), Facts: pagewatch.FactsNode(f)}, nil
}

func (t *tab) Act(ctx context.Context, n kind.Node) error   { return t.t.Click(ctx, t.node(n)) }
func (t *tab) Focus(ctx context.Context, n kind.Node) error { return t.t.Focus(ctx, t.node(n)) }

// InsertText inserts text at the end of a text field, as a paste would.
func (t *tab) InsertText(ctx context.Context, n kind.Node, text string) error {
	if err := t.t.Focus(ctx, t.node(n)); err != nil {
		return err
	}
	return t.t.InsertText(ctx, text)
}

// Fill replaces a field's value and reads it back (cdp.Tab.FillValue): a
// picker (date, time, colour, range…) is set through its value setter, and
// a value the field does not hold afterwards is value_not_set, never
// "filled".
func (t *tab) Fill(ctx context.Context, n kind.Node, text string) error {
	return t.t.FillValue(ctx, t.node(n), text)
}

// Select sets a choice control's options (a <select>, an ARIA list box, or
// an option's control) and answers what it holds, read back
// (cdp.Tab.Select).
func (t *tab) Select(ctx context.Context, n kind.Node, opts []string) ([]string, error) {
	return t.t.Select(ctx, t.node(n), opts)
}

func (t *tab) ClickAt(ctx context.Context, p kind.Point) error {
	if err := t.inside(ctx, p); err != nil {
		return err
	}
	return t.t.ClickAt(ctx, cdp.Point{X: float64(p.X), Y: float64(p.Y)})
}

// inside refuses a point outside the tab's viewport (CSS pixels, as the
// screenshot's): an event there reaches no element, and answering "clicked"
// would be a silent success. The viewport is read each time (one round
// trip): a page can be resized between two verbs.
func (t *tab) inside(ctx context.Context, p kind.Point) error {
	vp, err := t.viewport(ctx)
	if err != nil {
		return err
	}
	if p.X < 0 || p.Y < 0 || (vp.W > 0 && float64(p.X) >= vp.W) || (vp.H > 0 && float64(p.Y) >= vp.H) {
		return target.Refuse(target.CodeOutsidePage, "%d,%d is outside the page's viewport, which is %gx%g CSS pixels (its screenshot's size)", p.X, p.Y, vp.W, vp.H).
			With("x", p.X).With("y", p.Y).With("width", vp.W).With("height", vp.H)
	}
	return nil
}

// viewportSize is a tab's viewport in CSS pixels, scrollbars included: the
// area of its screenshot.
type viewportSize struct{ W, H float64 }

// viewport reads window.innerWidth and innerHeight: the screenshot's size
// (Page.getLayoutMetrics' viewports leave a classic scrollbar out). A page
// that redefines them misleads only its own agent: a zero size checks
// nothing, and a point outside the real viewport reaches no element.
func (t *tab) viewport(ctx context.Context) (viewportSize, error) {
	var vp viewportSize
	err := t.t.EvalInto(ctx, "({W: window.innerWidth, H: window.innerHeight})", &vp)
	return vp, err
}

func (t *tab) Scroll(ctx context.Context, at *kind.Point, dir string, steps int) error {
	dx, dy, err := kind.WheelDelta(dir, steps, scrollStep)
	if err != nil {
		return err
	}
	var p *cdp.Point
	if at != nil {
		if err := t.inside(ctx, *at); err != nil {
			return err
		}
		p = &cdp.Point{X: float64(at.X), Y: float64(at.Y)}
	}
	return t.t.Scroll(ctx, dx, dy, p)
}

func (t *tab) Key(ctx context.Context, c target.Chord) error { return t.t.Key(ctx, c) }
func (t *tab) Type(ctx context.Context, text string) error   { return t.t.Type(ctx, text) }

// ReleaseAll: CDP input holds nothing between calls (a click's release and a
// key's up always follow its press); a press a person made from the live
// view is forgotten.
func (t *tab) ReleaseAll(ctx context.Context) error {
	t.presses.Forget()
	return nil
}

func (t *tab) Screenshot(ctx context.Context) ([]byte, error) { return t.t.Screenshot(ctx) }

// Input delivers a person's event from the live view through CDP Input. The
// picture's pixels are mapped to the viewport's CSS pixels (the picture is
// the viewport scaled by the device pixel ratio, or down to the
// screencast's bounds). A button's press and release become one click at
// the release.
func (t *tab) Input(ctx context.Context, ev kind.Input) error {
	switch ev.Type {
	case kind.InputMove:
		return nil
	case kind.InputKey:
		return t.t.Key(ctx, ev.Chord)
	case kind.InputText:
		return t.t.InsertText(ctx, ev.Text)
	}
	x, y, err := kind.InViewport(ctx, ev, func(ctx context.Context) (float64, float64, error) {
		vp, err := t.viewport(ctx)
		return vp.W, vp.H, err
	})
	if err != nil {
		return err
	}
	at := cdp.Point{X: x, Y: y}
	if ev.Type == kind.InputWheel {
		return t.t.Scroll(ctx, ev.DX*scrollStep, ev.DY*scrollStep, &at)
	}
	if click, err := t.presses.Clicks(ev); !click {
		return err
	}
	return t.t.ClickAt(ctx, at)
}

// Close closes the tab.
func (t *tab) Close(ctx context.Context) error {
	err := t.c.CloseTab(ctx, t.t.ID())
	if c := target.CodeOf(err); c == target.CodeTabGone || c == target.CodeUnknownTarget {
		return nil
	}
	return err
}

func (t *tab) Navigate(ctx context.Context, url string) error { return t.t.Navigate(ctx, url) }
func (t *tab) Back(ctx context.Context) error                 { return t.t.Back(ctx) }
func (t *tab) Forward(ctx context.Context) error              { return t.t.Forward(ctx) }
func (t *tab) Reload(ctx context.Context) error               { return t.t.Reload(ctx) }

func (t *tab) Eval(ctx context.Context, expr string) (json.RawMessage, error) {
	v, err := t.t.Eval(ctx, expr)
	return json.RawMessage(v), err
}

func (t *tab) Wait(ctx context.Context, w kind.Wait) error {
	return t.t.Wait(ctx, cdp.WaitFor{Selector: w.Selector, Text: w.Text, URL: w.URL})
}

func (t *tab) Text(ctx context.Context) (string, error) { return t.t.Text(ctx) }

// browserContext is one of the pool's browser contexts as the tab kind's.
type browserContext struct {
	c    *cdp.Context
	pane string // Options.TabPane
	log  *slog.Logger
}

// NewTab opens a blank tab. A tab that is gone before it was ever used
// (seen once on a heavily loaded machine) is replaced once.
func (b browserContext) NewTab(ctx context.Context) (kind.Target, error) {
	t, err := b.c.NewTab(ctx, "")
	if target.CodeOf(err) == target.CodeTabGone {
		t, err = b.c.NewTab(ctx, "")
	}
	if err != nil {
		return nil, err
	}
	return newTab(t, b.c, b.pane, b.log), nil
}

var (
	_ kind.NodeReader      = (*tab)(nil)
	_ kind.ContentDigester = (*tab)(nil)
	_ kind.ChangeWaiter    = (*tab)(nil)
	_ kind.ChangeTeller    = (*tab)(nil)
	_ kind.ActReader       = (*tab)(nil)
	_ kind.Looker          = (*tab)(nil)
)

// Look reads what the verifier's look asks of the page in one call in it
// where it can (cdp.Tab.Look): the node's facts (ReadNode's), the content's
// digest (ContentDigest's), and the page's watcher armed (Changes from 0)
// or asked what it saw (Changes from a mark, at once).
func (t *tab) Look(ctx context.Context, f kind.LookFor) kind.Look {
	cf := cdp.LookFor{Digest: f.Digest, Told: f.Told}
	if f.Node != nil {
		nr := t.node(*f.Node)
		cf.Node = &nr
	}
	if f.Arm {
		cf.Arm = pagewatch.Life
	}
	l := t.t.Look(ctx, cf)
	out := kind.Look{
		NodeOK: f.Node != nil, NodeErr: l.FactsErr,
		DigestOK: f.Digest, Digest: l.Digest, DigestErr: l.DigestErr,
		ChangesOK: f.Arm, Changes: kind.Changes{Mark: l.Mark}, ChangesErr: l.ArmErr,
		ToldOK: f.Told != 0, ToldErr: l.ToldErr,
	}
	if f.Told != 0 && l.ToldErr == nil {
		out.Told = pagewatch.Changes(l.Told)
	}
	if f.Node != nil && l.FactsErr == nil {
		out.Node = pagewatch.FactsNode(l.Facts)
	}
	return out
}

// Changes tells what changed in the page after mark (since 0: arms its
// watcher, cdp.Tab.Arm), waiting up to d for a change or for the page to
// be quiet (cdp.Tab.WatchTold).
func (t *tab) Changes(ctx context.Context, since uint64, d time.Duration) (kind.Changes, error) {
	if since == 0 {
		m, err := t.t.Arm(ctx, pagewatch.Life)
		return kind.Changes{Mark: m}, err
	}
	told, err := t.t.WatchTold(ctx, since, d, false)
	if err != nil {
		return kind.Changes{}, err
	}
	return pagewatch.Changes(told), nil
}

// ReadNode reads what the page says of an element now: its states, and its
// value (a field's) or text as the node's text.
func (t *tab) ReadNode(ctx context.Context, n kind.Node) (*target.Node, error) {
	f, err := t.t.NodeFacts(ctx, t.node(n))
	if err != nil {
		return nil, err
	}
	return pagewatch.FactsNode(f), nil
}

// WaitChange waits for a sign that the page changed (cdp.Tab.WaitChange).
func (t *tab) WaitChange(ctx context.Context, d time.Duration) (bool, error) {
	return t.t.WaitChange(ctx, d)
}

// ContentDigest digests what a person reads of the page now.
func (t *tab) ContentDigest(ctx context.Context) (string, error) { return t.t.ContentDigest(ctx) }
