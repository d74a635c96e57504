package x11_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
	"github.com/vibespace/vibespace/xpra"
)

// A reparenting manager's situation, built by hand over the test's own
// connection: a frame (a child of the root without WM_STATE) holding a
// client window (WM_STATE set on it, as the manager does). The same
// connection is the oracle: QueryTree, GetInputFocus, GetWindowAttributes.

// xconn is a connection of the test's own to display, closed at cleanup
// (which destroys every window made on it).
type xconn struct {
	t   *testing.T
	c   *xgb.Conn
	scr *xproto.ScreenInfo
}

func dial(t *testing.T, display string) *xconn {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatalf("connect %s: %v", display, err)
	}
	t.Cleanup(c.Close)
	return &xconn{t: t, c: c, scr: xproto.Setup(c).DefaultScreen(c)}
}

func (x *xconn) atom(name string) xproto.Atom {
	x.t.Helper()
	r, err := xproto.InternAtom(x.c, false, uint16(len(name)), name).Reply()
	if err != nil {
		x.t.Fatalf("InternAtom %s: %v", name, err)
	}
	return r.Atom
}

// window makes an unmapped window, a child of parent (0: the root).
func (x *xconn) window(parent xproto.Window, px, py, w, h int) xproto.Window {
	x.t.Helper()
	if parent == 0 {
		parent = x.scr.Root
	}
	id, err := xproto.NewWindowId(x.c)
	if err != nil {
		x.t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(x.c, x.scr.RootDepth, id, parent, int16(px), int16(py), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, x.scr.RootVisual, xproto.CwBackPixel, []uint32{x.scr.WhitePixel}).Check(); err != nil {
		x.t.Fatalf("CreateWindow: %v", err)
	}
	return id
}

// setWMState marks w as a client window (NormalState), as a manager does.
func (x *xconn) setWMState(w xproto.Window) {
	x.t.Helper()
	a := x.atom("WM_STATE")
	data := make([]byte, 8)
	xgb.Put32(data, 1) // NormalState; icon window None
	if err := xproto.ChangePropertyChecked(x.c, xproto.PropModeReplace, w, a, a, 32, 2, data).Check(); err != nil {
		x.t.Fatalf("set WM_STATE on 0x%x: %v", w, err)
	}
}

// frame makes a frame at (px, py) and puts client into it, marked with
// WM_STATE and mapped; the frame is mapped if mapFrame.
func (x *xconn) frame(client xproto.Window, px, py int, mapFrame bool) xproto.Window {
	x.t.Helper()
	f := x.window(0, px, py, 300, 200)
	if err := xproto.ReparentWindowChecked(x.c, client, f, 0, 0).Check(); err != nil {
		x.t.Fatalf("reparent 0x%x into 0x%x: %v", client, f, err)
	}
	x.setWMState(client)
	x.mapWindow(client)
	if mapFrame {
		x.mapWindow(f)
	}
	return f
}

func (x *xconn) mapWindow(w xproto.Window) {
	x.t.Helper()
	if err := xproto.MapWindowChecked(x.c, w).Check(); err != nil {
		x.t.Fatalf("map 0x%x: %v", w, err)
	}
}

// framed makes a client window of the test's own inside a frame.
func (x *xconn) framed(px, py int, mapFrame bool) (frame, client xproto.Window) {
	x.t.Helper()
	client = x.window(0, px, py, 300, 200)
	return x.frame(client, px, py, mapFrame), client
}

// children is the root's stack, bottom first, as the server says now.
func (x *xconn) children() []xproto.Window {
	x.t.Helper()
	r, err := xproto.QueryTree(x.c, x.scr.Root).Reply()
	if err != nil {
		x.t.Fatal(err)
	}
	return r.Children
}

func (x *xconn) mapState(w xproto.Window) byte {
	x.t.Helper()
	a, err := xproto.GetWindowAttributes(x.c, w).Reply()
	if err != nil {
		x.t.Fatal(err)
	}
	return a.MapState
}

// order is where each of ws is in the list ids (-1: absent).
func order[T ~uint32](ids []T, ws ...xproto.Window) []int {
	out := make([]int, len(ws))
	for i, w := range ws {
		out[i] = slices.Index(ids, T(w))
	}
	return out
}

func topIDs(ts []x11.TopLevel) []x11.WindowID {
	out := make([]x11.WindowID, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func windowIDs(ws []x11.Window) []x11.WindowID {
	out := make([]x11.WindowID, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

// TestFramedClientIsListed: another process's window (the plain X client
// fixture, which sets no _NET_WM_PID) put inside a frame of the test's own
// is listed in the frame's place, as its process's window: mapped but not
// viewable while the frame is unmapped (as xpra hides a new window), and
// viewable once the frame is mapped. The frame is not listed.
func TestFramedClientIsListed(t *testing.T) {
	d, x := openShared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, ready := launchXClient(t, ctx, d)
	defer f.Stop()
	xc := dial(t, d.Display)
	client := xproto.Window(ready.XID)
	frame := xc.frame(client, 310, 220, false)
	if got := xc.mapState(client); got != xproto.MapStateUnviewable {
		t.Fatalf("the server says the client's map state is %d, want unviewable (%d)", got, xproto.MapStateUnviewable)
	}

	find := func() (c, fr *x11.TopLevel) {
		t.Helper()
		tops, err := x.TopLevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tops {
			switch uint32(tops[i].ID) {
			case uint32(client):
				c = &tops[i]
			case uint32(frame):
				fr = &tops[i]
			}
		}
		return c, fr
	}
	c, fr := find()
	if fr != nil {
		t.Errorf("TopLevels lists the frame: %+v", *fr)
	}
	want := x11.TopLevel{ID: x11.WindowID(client), Frame: x11.WindowID(frame), PID: ready.PID, Mapped: true}
	if c == nil || *c != want {
		t.Fatalf("TopLevels has the client window as %+v, want %+v", c, want)
	}
	ws, err := x.WindowsOfPID(ctx, ready.PID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].ID != x11.WindowID(client) || ws[0].Frame != x11.WindowID(frame) ||
		ws[0].PID != ready.PID || !ws[0].Mapped || ws[0].Viewable || ws[0].Title != "vibespace xclient fixture" {
		t.Fatalf("WindowsOfPID(%d) = %+v, want the client window alone, mapped, not viewable, in frame 0x%x", ready.PID, ws, frame)
	}

	xc.mapWindow(frame)
	if got := xc.mapState(client); got != xproto.MapStateViewable {
		t.Fatalf("the server says the client's map state is %d, want viewable", got)
	}
	c, fr = find()
	want.Viewable = true
	if fr != nil || c == nil || *c != want {
		t.Fatalf("with the frame mapped TopLevels has the client as %+v (the frame as %+v), want %+v", c, fr, want)
	}
	w, err := x.Window(ctx, x11.WindowID(client))
	if err != nil {
		t.Fatal(err)
	}
	if w.Frame != x11.WindowID(frame) || !w.Viewable {
		t.Errorf("Window(client) = %+v, want viewable in frame 0x%x", w, frame)
	}
	if g := xwininfo(t, d, w.ID); w.Geometry != g {
		t.Errorf("the client's geometry reads %v, xwininfo says %v", w.Geometry, g)
	}
	// A window that is a child of the root has no frame.
	plain := xc.window(0, 10, 10, 40, 30)
	if w, err := x.Window(ctx, x11.WindowID(plain)); err != nil || w.Frame != 0 {
		t.Errorf("Window of a child of the root = %+v, %v: want Frame 0", w, err)
	}
}

// TestWindowsStackFramedByClient: with two framed windows and a plain one,
// the stack (Windows, TopLevels) lists each client window at its frame's
// place in the root's stack, before and after a frame is raised (the
// server's own QueryTree is the oracle), and never a frame.
func TestWindowsStackFramedByClient(t *testing.T) {
	d, x := openShared(t)
	ctx := t.Context()
	xc := dial(t, d.Display)
	frameA, clientA := xc.framed(100, 100, true)
	plain := xc.window(0, 150, 150, 300, 200)
	xc.mapWindow(plain)
	frameB, clientB := xc.framed(200, 200, true)

	check := func(when string, below, middle, above xproto.Window) {
		t.Helper()
		// The oracle: the server's stack of the root's children.
		o := order(xc.children(), frameA, plain, frameB)
		pos := map[xproto.Window]int{clientA: o[0], plain: o[1], clientB: o[2]}
		if !(pos[below] < pos[middle] && pos[middle] < pos[above]) {
			t.Fatalf("%s: the server's stack is not what the test made: %v", when, pos)
		}
		ws, err := x.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := windowIDs(ws)
		if got := order(ids, frameA, frameB); got[0] != -1 || got[1] != -1 {
			t.Errorf("%s: Windows lists a frame (at %v)", when, got)
		}
		got := order(ids, below, middle, above)
		if !(got[0] >= 0 && got[0] < got[1] && got[1] < got[2]) {
			t.Errorf("%s: Windows has 0x%x, 0x%x, 0x%x at %v, want that order, bottom first", when, below, middle, above, got)
		}
		for _, w := range ws {
			want := map[x11.WindowID]x11.WindowID{x11.WindowID(clientA): x11.WindowID(frameA), x11.WindowID(clientB): x11.WindowID(frameB)}[w.ID]
			if w.Frame != want {
				t.Errorf("%s: Windows has %s in frame %s, want %s", when, w.ID, w.Frame, want)
			}
		}
		tops, err := x.TopLevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := order(topIDs(tops), below, middle, above); !(got[0] >= 0 && got[0] < got[1] && got[1] < got[2]) {
			t.Errorf("%s: TopLevels has them at %v", when, got)
		}
	}
	check("as made", clientA, plain, clientB)
	if err := xproto.ConfigureWindowChecked(xc.c, frameA, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check(); err != nil {
		t.Fatal(err)
	}
	check("frame A raised", plain, clientB, clientA)
}

// TestFocusRaisesTheFrame: focusing a client window inside a frame raises
// its frame above the others (restacking the client inside its frame would
// change nothing on the screen) and gives the client the input focus; a
// client whose frame is unmapped is refused window_not_visible, and
// nothing is restacked.
func TestFocusRaisesTheFrame(t *testing.T) {
	d, x := openShared(t)
	ctx := t.Context()
	xc := dial(t, d.Display)
	frameA, clientA := xc.framed(100, 100, true)
	frameB, _ := xc.framed(200, 200, true) // made later: on top
	if got := order(xc.children(), frameA, frameB); got[0] > got[1] {
		t.Fatalf("frame A is above frame B before the focus: %v", got)
	}
	if err := x.Focus(ctx, x11.WindowID(clientA)); err != nil {
		t.Fatalf("Focus: %v", err)
	}
	if got := order(xc.children(), frameA, frameB); got[0] < got[1] {
		t.Errorf("after Focus(client A) its frame is still below frame B: %v", got)
	}
	f, err := xproto.GetInputFocus(xc.c).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if f.Focus != clientA {
		t.Errorf("the input focus is on 0x%x, want client A 0x%x", f.Focus, clientA)
	}

	frameC, clientC := xc.framed(300, 300, false)
	if err := xproto.ConfigureWindowChecked(xc.c, frameC, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeBelow}).Check(); err != nil {
		t.Fatal(err)
	}
	before := xc.children()
	err = x.Focus(ctx, x11.WindowID(clientC))
	if target.CodeOf(err) != target.CodeWindowNotVisible {
		t.Errorf("Focus on a client in an unmapped frame = %v, want window_not_visible", err)
	}
	if after := xc.children(); !slices.Equal(before, after) {
		t.Errorf("a refused Focus restacked the root's children:\n before %v\n after  %v", before, after)
	}
}

// TestCardinal reads a CARDINAL property the test set, says ok=false for an
// unset one and for one of another type, and window_gone for a destroyed
// window.
func TestCardinal(t *testing.T) {
	d, x := openShared(t)
	ctx := t.Context()
	xc := dial(t, d.Display)
	w := xc.window(0, 0, 0, 20, 20)
	data := make([]byte, 4)
	xgb.Put32(data, 4242)
	if err := xproto.ChangePropertyChecked(xc.c, xproto.PropModeReplace, w, xc.atom("_VIBESPACE_TEST_CARDINAL"), xproto.AtomCardinal, 32, 1, data).Check(); err != nil {
		t.Fatal(err)
	}
	str := "not a number"
	if err := xproto.ChangePropertyChecked(xc.c, xproto.PropModeReplace, w, xc.atom("_VIBESPACE_TEST_STRING"), xproto.AtomString, 8, uint32(len(str)), []byte(str)).Check(); err != nil {
		t.Fatal(err)
	}
	id := x11.WindowID(w)
	if v, ok, err := x.Cardinal(ctx, id, "_VIBESPACE_TEST_CARDINAL"); v != 4242 || !ok || err != nil {
		t.Errorf("Cardinal(set) = %d, %v, %v; want 4242, true", v, ok, err)
	}
	if v, ok, err := x.Cardinal(ctx, id, "_VIBESPACE_TEST_UNSET"); v != 0 || ok || err != nil {
		t.Errorf("Cardinal(unset) = %d, %v, %v; want 0, false, nil", v, ok, err)
	}
	if v, ok, err := x.Cardinal(ctx, id, "_VIBESPACE_TEST_STRING"); v != 0 || ok || err != nil {
		t.Errorf("Cardinal(a STRING) = %d, %v, %v; want 0, false, nil", v, ok, err)
	}
	if err := xproto.DestroyWindowChecked(xc.c, w).Check(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := x.Cardinal(ctx, id, "_VIBESPACE_TEST_CARDINAL"); target.CodeOf(err) != target.CodeWindowGone {
		t.Errorf("Cardinal of a destroyed window = %v, want window_gone", err)
	}
}

// TestPlainWindowsUnchanged: on a display where nobody sets WM_STATE (no
// manager: our Xvfb) TopLevels and Windows list exactly the root's
// children, in the server's order, none with a frame — even a window with
// a child window of its own (as GTK makes) — and a child of the root that
// has WM_STATE itself (a manager that does not reparent) is listed as
// itself, not its child.
func TestPlainWindowsUnchanged(t *testing.T) {
	d := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	f, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	xc := dial(t, d.Display)
	parent := xc.window(0, 50, 50, 200, 100)
	xc.mapWindow(xc.window(parent, 10, 10, 20, 20))
	xc.mapWindow(parent)
	managed := xc.window(0, 80, 80, 200, 100)
	xc.setWMState(managed)
	inner := xc.window(managed, 5, 5, 50, 50)
	xc.setWMState(inner)
	xc.mapWindow(inner)
	xc.mapWindow(managed)

	// The fixture may still map a window of its own (GTK makes some after
	// its first): the lists are read between two equal looks at the root's
	// children, a few tries at most.
	var (
		want []xproto.Window
		tops []x11.TopLevel
		ws   []x11.Window
	)
	for try := 1; ; try++ {
		want = xc.children()
		if tops, err = x.TopLevels(ctx); err != nil {
			t.Fatal(err)
		}
		if ws, err = x.Windows(ctx); err != nil {
			t.Fatal(err)
		}
		again := xc.children()
		if slices.Equal(want, again) {
			break
		}
		if try == 5 {
			t.Fatalf("the root's children kept changing during the test: %v, then %v", want, again)
		}
		time.Sleep(100 * time.Millisecond)
	}
	ids := make([]x11.WindowID, len(want))
	for i, w := range want {
		ids[i] = x11.WindowID(w)
	}
	if got := topIDs(tops); !slices.Equal(got, ids) {
		t.Errorf("TopLevels lists %v, the root's children are %v", got, ids)
	}
	if got := windowIDs(ws); !slices.Equal(got, ids) {
		t.Errorf("Windows lists %v, the root's children are %v", got, ids)
	}
	for _, tl := range tops {
		if tl.Frame != 0 {
			t.Errorf("TopLevels has %+v in a frame", tl)
		}
	}
	for _, w := range ws {
		if w.Frame != 0 {
			t.Errorf("Windows has %+v in a frame", w)
		}
	}
	fw := order(ids, xproto.Window(f.Window.ID))[0]
	if fw < 0 || !tops[fw].Viewable || tops[fw].PID != f.PID {
		t.Errorf("the GTK fixture's window is %v in TopLevels %+v", f.Window.ID, tops)
	}
}

// TestXpraFramedWindow: under a real seamless xpra server a GTK app's
// window is put in an unmapped frame of xpra's; WindowsOf finds it, the
// app's own window, mapped but not viewable, and Cardinal reads xpra's
// window id (_XPRA_WID) off it; once `xpra control map` shows it, it is
// viewable. xwininfo (another program) is the oracle of the map state and
// of the frame being xpra's.
func TestXpraFramedWindow(t *testing.T) {
	testenv.NeedIntegration(t, "xpra", "xwininfo")
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	xd := testenv.NewXpra(t, xpra.Options{Logf: t.Logf})
	d := xd.Desktop
	x, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()

	// Started by hand, not by Launch, which shows the window itself.
	script, err := testenv.Script(d, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(d.Dir, "fixture.jsonl")
	app := exec.Command(testenv.FixturePython, script, "--log", logPath)
	app.Env = d.Env()
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { app.Wait(); close(exited) }()
	t.Cleanup(func() {
		app.Process.Kill()
		<-exited
	})
	flog := testenv.OpenFixtureLog(logPath)
	ready, err := flog.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" })
	if err != nil {
		t.Fatalf("the fixture under xpra: %v", err)
	}
	id := x11.WindowID(ready.XID)

	// wait polls WindowsOfPID until the fixture's window satisfies ok.
	wait := func(what string, ok func(x11.Window) bool) x11.Window {
		t.Helper()
		for {
			ws, err := x.WindowsOfPID(ctx, ready.PID)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range ws {
				if w.ID == id && ok(w) {
					return w
				}
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the fixture's window %s never %s: WindowsOfPID(%d) = %+v", id, what, ready.PID, ws)
			case <-exited:
				t.Fatalf("the fixture exited before its window %s", what)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	w := wait("was framed by xpra", func(w x11.Window) bool { return w.Frame != 0 })
	if !w.Mapped || w.Viewable || w.PID != ready.PID || w.Title != "vibespace fixture" {
		t.Errorf("the framed window reads %+v, want mapped, not viewable, pid %d", w, ready.PID)
	}
	if st := xwinState(t, d, id); st != "IsUnviewable" {
		t.Errorf("xwininfo says the window's map state is %s, want IsUnviewable", st)
	}
	if out := xwin(t, d, w.Frame); !strings.Contains(out, `"Xpra-CorralWindow-`) {
		t.Errorf("the frame %s is not xpra's corral window:\n%s", w.Frame, out)
	}
	// xpra names its window a moment after it framed it.
	var wid uint32
	for {
		v, ok, err := x.Cardinal(ctx, id, "_XPRA_WID")
		if err != nil {
			t.Fatalf("_XPRA_WID of %s: %v", id, err)
		}
		if ok && v != 0 {
			wid = v
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("xpra never set _XPRA_WID on %s", id)
		case <-time.After(50 * time.Millisecond):
		}
	}

	if err := xd.Map(ctx, int(wid)); err != nil {
		t.Fatal(err)
	}
	w = wait("became viewable", func(w x11.Window) bool { return w.Viewable })
	if w.Frame == 0 || !w.Mapped {
		t.Errorf("the shown window reads %+v, want mapped in its frame", w)
	}
	if st := xwinState(t, d, id); st != "IsViewable" {
		t.Errorf("xwininfo says the shown window's map state is %s, want IsViewable", st)
	}
	select {
	case <-exited:
		t.Error("the fixture exited")
	default:
	}
}

// xwin is xwininfo's report on window id.
func xwin(t *testing.T, d *testenv.Desktop, id x11.WindowID) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xwininfo", "-id", id.String())
	cmd.Env = d.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xwininfo -id %s: %v", id, err)
	}
	return string(out)
}

// xwinState is the map state xwininfo reports for window id.
func xwinState(t *testing.T, d *testenv.Desktop, id x11.WindowID) string {
	t.Helper()
	m := regexp.MustCompile(`Map State:\s+(\S+)`).FindStringSubmatch(xwin(t, d, id))
	if m == nil {
		t.Fatalf("xwininfo says no map state for %s", id)
	}
	return m[1]
}
