package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/vibespace/vibespace/target"
)

// fakeBackend is a Backend without X: windows, trees and input are records
// in memory, shared by every display it "starts" so a restarted daemon can
// re-attach to them.
type fakeBackend struct {
	mu       sync.Mutex
	started  int
	disp     *fakeDisplay
	noInject bool
}

func (b *fakeBackend) Start(ctx context.Context) (Display, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.started++
	b.disp = &fakeDisplay{
		name: fmt.Sprintf(":%d", 90+b.started), windows: map[uint32]Window{}, alive: map[int]bool{},
		freeze: map[int]bool{}, noInject: b.noInject,
	}
	return b.disp, nil
}

func (b *fakeBackend) Reattach(ctx context.Context, rec json.RawMessage) (Display, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var r struct{ Name string }
	json.Unmarshal(rec, &r)
	if b.disp == nil || b.disp.name != r.Name || b.disp.isClosed() {
		return nil, fmt.Errorf("display %s is gone", r.Name)
	}
	return b.disp, nil
}

func (b *fakeBackend) Doctor(ctx context.Context) []Check {
	return []Check{{Name: "Xvfb", OK: true, Detail: "fake"}}
}

// fakeEvent is one thing the fake display received.
type fakeEvent struct {
	Kind string // "action", "insert", "focus", "raise", "click", "scroll", "key", "type", "release"
	Key  string
	Text string
	X, Y int
}

type fakeDisplay struct {
	mu       sync.Mutex
	name     string
	windows  map[uint32]Window
	alive    map[int]bool
	freeze   map[int]bool // pid → snapshot blocks until ctx ends
	events   []fakeEvent
	closed   bool
	noInject bool
	nextXID  uint32
	typeGate chan struct{} // when set, Type waits for a token per call
	order    []uint32      // stacking order, bottom first
	pinned   uint32        // a window that stays on top whatever is raised
	epoch    int           // bumped by ReleaseAll: a Type in flight is interrupted
	panicOn  string        // a method that panics ("snapshot")
	onWindow func()        // called (without f.mu) at every Window read
}

func (f *fakeDisplay) isClosed() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.closed }

func (f *fakeDisplay) add(e fakeEvent) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

func (f *fakeDisplay) Events() []fakeEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeEvent(nil), f.events...)
}

func (f *fakeDisplay) Record() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"name":%q}`, f.name))
}
func (f *fakeDisplay) Name() string { return f.name }
func (f *fakeDisplay) Probe(ctx context.Context, pid int) target.Probe {
	p := target.Probe{Tree: true, Capture: true, Injection: "xtest"}
	if f.noInject {
		p.Injection, p.InjectionWhy = "", "fake: XTEST absent"
	}
	return p
}

func (f *fakeDisplay) Launch(ctx context.Context, argv []string) (Window, error) {
	if f.isClosed() {
		return Window{}, fmt.Errorf("display %s: connection refused", f.name)
	}
	if _, err := exec.LookPath(argv[0]); err != nil && !strings.HasPrefix(argv[0], "fake-") {
		return Window{}, target.Refuse(target.CodeAppNotFound, "%s: not found", argv[0])
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextXID++
	pid := 1000 + int(f.nextXID)
	w := Window{XID: 0x400000 + f.nextXID, PID: pid, Title: "Fake " + argv[0], Bounds: target.Rect{X: 10, Y: 20, W: 300, H: 200}, Viewable: true}
	f.windows[w.XID] = w
	f.alive[pid] = true
	f.order = append(f.order, w.XID)
	return w, nil
}

// Raise puts w on top, below the pinned window if there is one.
func (f *fakeDisplay) Raise(ctx context.Context, w Window) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.windows[w.XID]; !ok {
		return target.Refuse(target.CodeWindowGone, "window 0x%x is gone", w.XID)
	}
	var rest []uint32
	for _, x := range f.order {
		if x != w.XID && x != f.pinned {
			rest = append(rest, x)
		}
	}
	rest = append(rest, w.XID)
	if f.pinned != 0 && f.pinned != w.XID {
		rest = append(rest, f.pinned)
	}
	f.order = rest
	f.events = append(f.events, fakeEvent{Kind: "raise", Key: fmt.Sprint(w.XID)})
	return nil
}

func (f *fakeDisplay) Stack(ctx context.Context) ([]Window, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Window
	for _, x := range f.order {
		if w, ok := f.windows[x]; ok {
			out = append(out, w)
		}
	}
	return out, nil
}

// pin puts xid on top for good: raising another window leaves it above.
func (f *fakeDisplay) pin(xid uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rest []uint32
	for _, x := range f.order {
		if x != xid {
			rest = append(rest, x)
		}
	}
	f.order = append(rest, xid)
	f.pinned = xid
}

// top is the XID on top of the stack.
func (f *fakeDisplay) top() uint32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.order) == 0 {
		return 0
	}
	return f.order[len(f.order)-1]
}

// kill plays an application dying.
func (f *fakeDisplay) kill(pid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.alive, pid)
	for x, w := range f.windows {
		if w.PID == pid {
			delete(f.windows, x)
		}
	}
}

func (f *fakeDisplay) Window(ctx context.Context, xid uint32) (Window, error) {
	f.mu.Lock()
	hook := f.onWindow
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.windows[xid]
	if !ok {
		return Window{}, target.Refuse(target.CodeWindowGone, "window 0x%x is gone", xid)
	}
	return w, nil
}
func (f *fakeDisplay) Healthy(ctx context.Context) error {
	if f.isClosed() {
		return fmt.Errorf("display %s is gone", f.name)
	}
	return nil
}
func (f *fakeDisplay) Alive(pid int) bool { f.mu.Lock(); defer f.mu.Unlock(); return f.alive[pid] }
func (f *fakeDisplay) Stop(ctx context.Context, pid int) error {
	f.kill(pid)
	return nil
}
func (f *fakeDisplay) Tree() TreeReader { return fakeTree{f} }
func (f *fakeDisplay) Input() Injector {
	if f.noInject {
		return nil
	}
	return fakeInput{f}
}
func (f *fakeDisplay) Capture() Capturer                  { return fakeCapture{f} }
func (f *fakeDisplay) Doctor(ctx context.Context) []Check { return []Check{{Name: "XTEST", OK: true}} }
func (f *fakeDisplay) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.windows = map[uint32]Window{}
	f.alive = map[int]bool{}
	return nil
}

// The fake tree of every window: a button with Action, a label without,
// an entry with EditableText.
var fakeNodes = map[string]target.NodeTraits{
	"button": {Role: "push button", Name: "Alpha", Interfaces: []string{"Action", "Component"}, Sensitive: true, Focusable: true},
	"label":  {Role: "label", Name: "Press area", Interfaces: []string{"Component"}, Sensitive: true},
	"entry":  {Role: "text", Name: "Name", Interfaces: []string{"EditableText", "Text"}, Sensitive: true, Editable: true, Focusable: true},
}

type fakeTree struct{ f *fakeDisplay }

func (t fakeTree) Snapshot(ctx context.Context, w Window) (*target.Snapshot, error) {
	t.f.mu.Lock()
	frozen := t.f.freeze[w.PID]
	panicking := t.f.panicOn == "snapshot"
	t.f.mu.Unlock()
	if panicking {
		panic("fake: snapshot panics")
	}
	root := &target.Node{Role: "frame", Name: w.Title, Key: fmt.Sprintf("%d/root", w.XID)}
	if frozen {
		<-ctx.Done()
		root.Unreadable = "the application did not answer in time"
	} else {
		for _, k := range []string{"button", "label", "entry"} {
			n := fakeNodes[k]
			root.Children = append(root.Children, &target.Node{Role: n.Role, Name: n.Name, Interfaces: n.Interfaces, States: []string{"sensitive"}, Key: k})
		}
	}
	s := &target.Snapshot{Root: root}
	s.Census = root.Count()
	return s, nil
}

func (t fakeTree) Node(ctx context.Context, w Window, key string) (target.NodeTraits, error) {
	n, ok := fakeNodes[key]
	if !ok {
		return n, target.Refuse(target.CodeStaleRef, "node %s is gone", key)
	}
	return n, nil
}
func (t fakeTree) DoAction(ctx context.Context, w Window, key string) error {
	t.f.add(fakeEvent{Kind: "action", Key: key})
	return nil
}
func (t fakeTree) InsertText(ctx context.Context, w Window, key, text string) error {
	t.f.add(fakeEvent{Kind: "insert", Key: key, Text: text})
	return nil
}
func (t fakeTree) GrabFocus(ctx context.Context, w Window, key string) error {
	t.f.add(fakeEvent{Kind: "focus", Key: key})
	return nil
}

type fakeInput struct{ f *fakeDisplay }

func (i fakeInput) Click(ctx context.Context, x, y, button, count int) error {
	i.f.add(fakeEvent{Kind: "click", X: x, Y: y, Key: fmt.Sprint(i.f.top())})
	return nil
}
func (i fakeInput) Scroll(ctx context.Context, x, y int, dir string, steps int) error {
	i.f.add(fakeEvent{Kind: "scroll", X: x, Y: y, Text: dir})
	return nil
}
func (i fakeInput) Key(ctx context.Context, c target.Chord) error {
	i.f.add(fakeEvent{Kind: "key", Text: c.String()})
	return nil
}
func (i fakeInput) Type(ctx context.Context, text string) error {
	i.f.mu.Lock()
	gate := i.f.typeGate
	epoch := i.f.epoch
	i.f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	i.f.mu.Lock()
	defer i.f.mu.Unlock()
	if i.f.epoch != epoch {
		return target.Refuse(target.CodeInterrupted, "input was interrupted: everything held was released")
	}
	i.f.events = append(i.f.events, fakeEvent{Kind: "type", Text: text})
	return nil
}
func (i fakeInput) ReleaseAll(ctx context.Context) error {
	i.f.mu.Lock()
	defer i.f.mu.Unlock()
	i.f.epoch++
	i.f.events = append(i.f.events, fakeEvent{Kind: "release"})
	return nil
}

// Settle: the fake application has read everything the moment it is sent.
func (i fakeInput) Settle(ctx context.Context) (bool, error) { return true, ctx.Err() }

type fakeCapture struct{ f *fakeDisplay }

// PNG answers what is "on screen": it names the window on top.
func (c fakeCapture) PNG(ctx context.Context, w Window) ([]byte, error) {
	return []byte(fmt.Sprintf("\x89PNG fake top=%d", c.f.top())), nil
}

// gateTyping makes each Type call of the fake injector wait for a send on
// the returned channel, so a test can hold a type in flight.
func (b *fakeBackend) gateTyping() chan struct{} {
	gate := make(chan struct{})
	b.disp.mu.Lock()
	b.disp.typeGate = gate
	b.disp.mu.Unlock()
	return gate
}
