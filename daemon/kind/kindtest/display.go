package kindtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Provider is a display provider without X: every display it starts keeps
// its windows in memory, and a restarted daemon re-attaches to any it
// started that was not closed (it is shared, as a real display outlives
// the daemon).
type Provider struct {
	// NameIs is the provider's name; "" means "fake".
	NameIs string
	// NoInject makes its displays offer no injection road.
	NoInject bool
	// PerSessionIs makes it a per-session provider (kind.PerSession):
	// each session gets a display of its own.
	PerSessionIs bool

	mu      sync.Mutex
	started int
	disp    *Display
	all     []*Display
}

var (
	_ kind.DisplayProvider = (*Provider)(nil)
	_ kind.PerSession      = (*Provider)(nil)
)

// PerSession is PerSessionIs.
func (p *Provider) PerSession() bool { return p.PerSessionIs }

// Displays are the displays it started, in order.
func (p *Provider) Displays() []*Display {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Display(nil), p.all...)
}

func (p *Provider) Name() string {
	if p.NameIs == "" {
		return "fake"
	}
	return p.NameIs
}

// Started is how many displays it started.
func (p *Provider) Started() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// Display is the display it started last (nil before the first).
func (p *Provider) Display() *Display {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.disp
}

func (p *Provider) Start(ctx context.Context) (kind.Display, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started++
	p.disp = &Display{
		name: fmt.Sprintf(":%d", 90+p.started), windows: map[string]*window{}, alive: map[int]bool{},
		freeze: map[int]bool{}, noInject: p.NoInject, log: &log{},
	}
	p.all = append(p.all, p.disp)
	return p.disp, nil
}

func (p *Provider) Reattach(ctx context.Context, rec json.RawMessage) (kind.Display, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var r record
	json.Unmarshal(rec, &r)
	for _, d := range p.all {
		if d.name == r.Name && !d.isClosed() {
			return d, nil
		}
	}
	return nil, fmt.Errorf("display %s is gone", r.Name)
}

func (p *Provider) Doctor(ctx context.Context) []kind.Check {
	return []kind.Check{{Name: "Xvfb", OK: true, Detail: "fake"}}
}

// Display is a fake display: windows that overlap at one place, with a
// stacking order, a tree each, and one keyboard and pointer.
type Display struct {
	mu       sync.Mutex
	name     string
	windows  map[string]*window // by key
	alive    map[int]bool
	freeze   map[int]bool // pid → a snapshot blocks until its ctx ends
	closed   bool
	noInject bool
	next     uint32
	typeGate chan struct{} // when set, Type waits for a token per call
	order    []string      // stacking order, bottom first
	pinned   string        // a window that stays on top whatever is raised
	epoch    int           // bumped by ReleaseAll: a Type in flight is interrupted
	panicOn  string        // a method that panics ("snapshot")
	onInfo   func()        // called (without mu) at every Info of a window
	stopped  chan struct{} // when set, the display's server is stopped: Info and Healthy block until it closes or their ctx ends
	watchers kind.Watchers // who is attached from outside (SetWatchers)
	death    deathState    // Die (death.go)
	*log
}

var (
	_ kind.Display = (*Display)(nil)
	_ kind.Stacker = (*Display)(nil)
	_ kind.Watched = (*Display)(nil)
)

func (d *Display) isClosed() bool { d.mu.Lock(); defer d.mu.Unlock(); return d.closed }

// Closed reports whether the display was closed (stopped, or died).
func (d *Display) Closed() bool { return d.isClosed() }

// SetWatchers plays clients attaching to the display from outside (or,
// with a zero Watchers, leaving).
func (d *Display) SetWatchers(w kind.Watchers) {
	d.mu.Lock()
	d.watchers = w
	d.mu.Unlock()
}

// Watchers answers who SetWatchers said is attached.
func (d *Display) Watchers(ctx context.Context) (kind.Watchers, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.watchers, ctx.Err()
}

func (d *Display) Name() string            { return d.name }
func (d *Display) Record() json.RawMessage { return marshal(record{Name: d.name}) }

// Launch maps a 300×200 window at 10,20 for a program on PATH or named
// "fake-…".
func (d *Display) Launch(ctx context.Context, argv []string) (kind.Target, error) {
	if d.isClosed() {
		return nil, fmt.Errorf("display %s: connection refused", d.name)
	}
	if err := lookPath(argv); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next++
	w := &window{d: d, key: fmt.Sprintf("0x%x", 0x400000+d.next), pid: 1000 + int(d.next),
		title: "Fake " + argv[0], bounds: target.Rect{X: 10, Y: 20, W: 300, H: 200}}
	d.windows[w.key] = w
	d.alive[w.pid] = true
	d.order = append(d.order, w.key)
	return w, nil
}

func (d *Display) Window(ctx context.Context, key string, pid int) (kind.Target, error) {
	d.mu.Lock()
	w, ok := d.windows[key]
	d.mu.Unlock()
	if !ok || w.pid != pid {
		return nil, target.Refuse(target.CodeWindowGone, "window %s is gone", key)
	}
	return w, nil
}

func (d *Display) Doctor(ctx context.Context) []kind.Check {
	return []kind.Check{{Name: "XTEST", OK: !d.noInject, Detail: "fake"}}
}

func (d *Display) Healthy(ctx context.Context) error {
	if err := d.waitRunning(ctx); err != nil {
		return err
	}
	if d.isClosed() {
		return fmt.Errorf("display %s is gone", d.name)
	}
	return nil
}

// Stop plays the display's server stopped (SIGSTOP): reading a window's
// facts and asking whether the display is healthy block until Cont, or
// until the caller's context ends.
func (d *Display) Stop() {
	d.mu.Lock()
	if d.stopped == nil {
		d.stopped = make(chan struct{})
	}
	d.mu.Unlock()
}

// Cont resumes a display Stop stopped.
func (d *Display) Cont() {
	d.mu.Lock()
	if d.stopped != nil {
		close(d.stopped)
		d.stopped = nil
	}
	d.mu.Unlock()
}

func (d *Display) waitRunning(ctx context.Context) error {
	d.mu.Lock()
	stopped := d.stopped
	d.mu.Unlock()
	if stopped == nil {
		return nil
	}
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		return target.Refuse(target.CodeTimeout, "display %s did not answer in time", d.name).Wrap(ctx.Err())
	}
}

// Close plays the display dying (or being stopped): every window is gone.
func (d *Display) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	d.windows = map[string]*window{}
	d.alive = map[int]bool{}
	return nil
}

func (d *Display) Stack(ctx context.Context) ([]kind.Info, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []kind.Info
	for _, k := range d.order {
		if w, ok := d.windows[k]; ok {
			out = append(out, w.infoLocked())
		}
	}
	return out, nil
}

// PID is the process of the window key.
func (d *Display) PID(key string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w, ok := d.windows[key]; ok {
		return w.pid
	}
	return 0
}

// Pin puts window key on top for good: raising another leaves it above.
func (d *Display) Pin(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var rest []string
	for _, k := range d.order {
		if k != key {
			rest = append(rest, k)
		}
	}
	d.order = append(rest, key)
	d.pinned = key
}

// Top is the key of the window on top of the stack.
func (d *Display) Top() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.topLocked()
}

func (d *Display) topLocked() string {
	if len(d.order) == 0 {
		return ""
	}
	return d.order[len(d.order)-1]
}

// Kill plays an application dying: its windows are gone.
func (d *Display) Kill(pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.alive, pid)
	for k, w := range d.windows {
		if w.pid == pid {
			delete(d.windows, k)
		}
	}
}

// Freeze makes the snapshots of pid's windows block until their context
// ends (an application that stopped answering).
func (d *Display) Freeze(pid int) {
	d.mu.Lock()
	d.freeze[pid] = true
	d.mu.Unlock()
}

// PanicOn makes a method panic ("snapshot"; "" for none).
func (d *Display) PanicOn(method string) {
	d.mu.Lock()
	d.panicOn = method
	d.mu.Unlock()
}

// OnInfo calls f at every Info of a window (nil: none).
func (d *Display) OnInfo(f func()) {
	d.mu.Lock()
	d.onInfo = f
	d.mu.Unlock()
}

// GateTyping makes each Type call wait for a send on the returned channel,
// so a test can hold a type in flight.
func (d *Display) GateTyping() chan struct{} {
	gate := make(chan struct{})
	d.mu.Lock()
	d.typeGate = gate
	d.mu.Unlock()
	return gate
}

// window is one fake window.
type window struct {
	d      *Display
	key    string
	pid    int
	title  string
	bounds target.Rect
}

var (
	_ kind.Target  = (*window)(nil)
	_ kind.Raiser  = (*window)(nil)
	_ kind.Settler = (*window)(nil)
)

func (w *window) infoLocked() kind.Info {
	return kind.Info{Key: w.key, Title: w.title, PID: w.pid, Bounds: w.bounds, Viewable: true}
}

func (w *window) Info(ctx context.Context) (kind.Info, error) {
	if err := w.d.waitRunning(ctx); err != nil {
		return kind.Info{}, err
	}
	w.d.mu.Lock()
	hook := w.d.onInfo
	w.d.mu.Unlock()
	if hook != nil {
		hook()
	}
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	if _, ok := w.d.windows[w.key]; !ok {
		return kind.Info{}, target.Refuse(target.CodeWindowGone, "window %s is gone", w.key)
	}
	if !w.d.alive[w.pid] {
		return kind.Info{}, target.Refuse(target.CodeWindowGone, "its application (pid %d) has exited", w.pid)
	}
	return w.infoLocked(), nil
}

func (w *window) Probe(ctx context.Context) target.Probe {
	p := target.Probe{Tree: true, TreeVia: "the fake tree", Capture: true, Injection: "xtest"}
	if w.d.noInject {
		p.Injection, p.InjectionWhy = "", "fake: XTEST absent"
	}
	return p
}

func (w *window) Snapshot(ctx context.Context, refs *target.RefTable) (*target.Snapshot, error) {
	w.d.mu.Lock()
	frozen := w.d.freeze[w.pid]
	panicking := w.d.panicOn == "snapshot"
	w.d.mu.Unlock()
	if panicking {
		panic("kindtest: snapshot panics")
	}
	return snapshot(w.title, w.key+"/root", frozen, ctx), nil
}

func (w *window) Node(ctx context.Context, n kind.Node) (target.NodeTraits, error) {
	return nodeTraits(n.Key)
}

func (w *window) event(e Event) {
	e.Target = w.key
	w.d.add(e)
}

func (w *window) Act(ctx context.Context, n kind.Node) error {
	if _, err := nodeTraits(n.Key); err != nil {
		return err
	}
	w.event(Event{Kind: "action", Key: n.Key})
	return nil
}

func (w *window) Focus(ctx context.Context, n kind.Node) error {
	w.event(Event{Kind: "focus", Key: n.Key})
	return nil
}

func (w *window) InsertText(ctx context.Context, n kind.Node, text string) error {
	w.event(Event{Kind: "insert", Key: n.Key, Text: text})
	return nil
}

// ClickAt records the click with the window on top at that moment (where
// a real click lands).
func (w *window) ClickAt(ctx context.Context, p kind.Point) error {
	w.event(Event{Kind: "click", X: w.bounds.X + p.X, Y: w.bounds.Y + p.Y, Key: w.d.Top()})
	return nil
}

func (w *window) Scroll(ctx context.Context, at *kind.Point, dir string, steps int) error {
	p := kind.Point{X: w.bounds.W / 2, Y: w.bounds.H / 2}
	if at != nil {
		p = *at
	}
	w.event(Event{Kind: "scroll", X: w.bounds.X + p.X, Y: w.bounds.Y + p.Y, Text: dir, Key: w.d.Top()})
	return nil
}

func (w *window) Key(ctx context.Context, c target.Chord) error {
	w.event(Event{Kind: "key", Text: c.String()})
	return nil
}

// Type waits for the typing gate when one is set; a ReleaseAll meanwhile
// interrupts it, as XTEST's release does.
func (w *window) Type(ctx context.Context, text string) error {
	d := w.d
	d.mu.Lock()
	gate, epoch := d.typeGate, d.epoch
	d.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	d.mu.Lock()
	cut := d.epoch != epoch
	d.mu.Unlock()
	if cut {
		return target.Refuse(target.CodeInterrupted, "input was interrupted: everything held was released")
	}
	w.event(Event{Kind: "type", Text: text})
	return nil
}

func (w *window) ReleaseAll(ctx context.Context) error {
	w.d.mu.Lock()
	w.d.epoch++
	w.d.mu.Unlock()
	w.event(Event{Kind: "release"})
	return nil
}

// Settle: the fake application has read everything the moment it is sent.
func (w *window) Settle(ctx context.Context) (bool, error) { return true, ctx.Err() }

// Raise puts w on top, below the pinned window if there is one.
func (w *window) Raise(ctx context.Context) error {
	d := w.d
	d.mu.Lock()
	if _, ok := d.windows[w.key]; !ok {
		d.mu.Unlock()
		return target.Refuse(target.CodeWindowGone, "window %s is gone", w.key)
	}
	var rest []string
	for _, k := range d.order {
		if k != w.key && k != d.pinned {
			rest = append(rest, k)
		}
	}
	rest = append(rest, w.key)
	if d.pinned != "" && d.pinned != w.key {
		rest = append(rest, d.pinned)
	}
	d.order = rest
	d.mu.Unlock()
	w.event(Event{Kind: "raise"})
	return nil
}

// Screenshot answers what is "on screen": it names the window on top.
func (w *window) Screenshot(ctx context.Context) ([]byte, error) {
	return []byte(fmt.Sprintf("\x89PNG fake top=%s", w.d.Top())), nil
}

func (w *window) Frames(ctx context.Context, o kind.FrameOptions) (target.FrameSource, error) {
	return nil, target.Refuse(target.CodeNoCapture, "a fake window has no pixels to stream")
}

func (w *window) Input(ctx context.Context, ev kind.Input) error {
	w.event(Event{Kind: "input", Text: string(ev.Type), X: int(ev.X), Y: int(ev.Y)})
	return nil
}

func (w *window) Close(ctx context.Context) error {
	w.d.Kill(w.pid)
	return nil
}
