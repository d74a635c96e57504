package windows_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// With no window manager, windows of our display overlap at 0,0: the
// window on top gets the pointer events. The daemon has the X server keep
// each window's own pixels (Composite), so a grab of the one below reads
// its own picture without raising it.

// testX is the test's own connection to display (not the tool's).
func testX(t *testing.T, display string) *xgb.Conn {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// topOf is the topmost of the windows xids in the root's stacking order, read
// with the test's own X connection.
func topOf(t *testing.T, display string, xids ...uint32) uint32 {
	t.Helper()
	c := testX(t, display)
	defer c.Close()
	tree, err := xproto.QueryTree(c, xproto.Setup(c).DefaultScreen(c).Root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	for i := len(tree.Children) - 1; i >= 0; i-- {
		for _, x := range xids {
			if uint32(tree.Children[i]) == x {
				return x
			}
		}
	}
	t.Fatalf("none of %v is a child of the root", xids)
	return 0
}

// raiseBehindOurBack raises window xid with the test's own X connection (not
// through the tool under test).
func raiseBehindOurBack(t *testing.T, display string, xid uint32) {
	t.Helper()
	c := testX(t, display)
	defer c.Close()
	if err := xproto.ConfigureWindowChecked(c, xproto.Window(xid), xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check(); err != nil {
		t.Fatal(err)
	}
}

// readyXID is the fixture's main window, as it logged it.
func readyXID(t *testing.T, log *testenv.FixtureLog) uint32 {
	t.Helper()
	return wait(t, log, 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" }).XID
}

// shot takes a screenshot of id through the CLI and decodes it.
func (e *env) shot(s, id string) (image.Image, target.Rect) {
	e.T.Helper()
	f := filepath.Join(e.Dir, "overlap-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".png")
	resp := e.Answer(s, "screenshot", id, "--out", f)
	if !resp.OK || resp.Bounds == nil {
		e.T.Fatalf("screenshot %s: %+v", id, resp)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		e.T.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		e.T.Fatal(err)
	}
	return img, *resp.Bounds
}

// region is the part of img under n, as RGBA bytes.
func region(img image.Image, win target.Rect, n *target.Node) []byte {
	var out []byte
	for y := n.Bounds.Y - win.Y; y < n.Bounds.Y-win.Y+n.Bounds.H; y++ {
		for x := n.Bounds.X - win.X; x < n.Bounds.X-win.X+n.Bounds.W; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			out = append(out, byte(r>>8), byte(g>>8), byte(b>>8), byte(a>>8))
		}
	}
	return out
}

func TestOverlappingWindows(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	below, belowLog, _ := e.OpenFixture("s1")
	over, overLog, _ := e.OpenFixture("s1")
	belowXID, overXID := readyXID(t, belowLog), readyXID(t, overLog)
	snap := e.Snapshot("s1", below)
	check := node(t, snap, "check box", "Check me")
	t.Logf("check box at %+v", *check.Bounds)

	// Make the two windows look different where the check box is: tick the
	// lower one's through its Action (no raise, no pointer).
	from := belowLog.Len()
	e.OK("s1", "click", below, check.Ref)
	wait(t, belowLog, from, "the check box toggled", func(ev testenv.Event) bool { return ev.Type == "toggled" && ev.Widget == "check" })

	// The reference: the lower window's check box while it is on top, read
	// until two grabs agree (the toggle may still be animating).
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var ref []byte
	for {
		img, b := e.shot("s1", below)
		r := region(img, b, check)
		if ref != nil && bytes.Equal(r, ref) {
			break
		}
		ref = r
		select {
		case <-ctx.Done():
			t.Fatal("the lower window's check box never settled")
		case <-time.After(100 * time.Millisecond):
		}
	}

	// The other window goes on top again, behind the tool's back.
	raiseBehindOurBack(t, e.Desk.Display, overXID)
	img, b := e.shot("s1", below)
	belowB := &b
	if got := region(img, b, check); !bytes.Equal(got, ref) {
		t.Fatal("the screenshot of the covered window holds another window's pixels where its check box is")
	}
	// …and it was read without raising it: the stacking order is as the
	// person left it (before Composite, the screenshot raised it, and with
	// two windows that look alike waited 2 s for a repaint it could not see).
	if top := topOf(t, e.Desk.Display, belowXID, overXID); top != overXID {
		t.Fatalf("the screenshot of %s raised it over %s", below, over)
	}
	// The oracle cannot pass by accident: the upper window's box differs.
	overSnap := e.Snapshot("s1", over)
	img, b = e.shot("s1", over)
	t.Logf("lower window %+v, upper window %+v", *belowB, b)
	if bytes.Equal(region(img, b, node(t, overSnap, "check box", "Check me")), ref) {
		t.Fatalf("both windows look alike where the check box is (%+v in %+v): the comparison proves nothing", *check.Bounds, b)
	}

	// A click --at into the lower window lands in ITS log, not the other's,
	// even though the other one was raised over it.
	alpha := node(t, snap, "push button", "Alpha")
	at := e.Centre(t, "s1", below, alpha)
	raiseBehindOurBack(t, e.Desk.Display, overXID)
	fromBelow, fromOver := belowLog.Len(), overLog.Len()
	e.OK("s1", "click", below, "--at", at)
	wait(t, belowLog, fromBelow, "the click in the lower window", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	evs, err := overLog.Events()
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs[fromOver:] {
		if ev.Type == "click" || ev.Type == "button" {
			t.Fatalf("the click meant for %s (0x%x) reached %s (0x%x): %+v", below, belowXID, over, overXID, ev)
		}
	}
}

// TestAppWithoutTree: an application that is not on the accessibility bus
// (GTK with its bridge turned off) is refused no_tree on snapshot — not an
// OK snapshot of one unreadable node — while its pixels still answer.
func TestAppWithoutTree(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	logPath := filepath.Join(e.Dir, "no-bridge.jsonl")
	resp := e.Answer("s1", "open", "env", "NO_AT_BRIDGE=1", testenv.FixturePython, e.FixtureSrc, "--log", logPath)
	if !resp.OK {
		t.Fatalf("open: %+v", resp)
	}
	e.ReadDesk()
	wait(t, testenv.OpenFixtureLog(logPath), 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	id := string(resp.Target.ID)
	r := e.Refused("no_tree", "s1", "snapshot", id)
	if !strings.Contains(r.Errout, "accessibility bus") {
		t.Fatalf("no_tree says why: %s", r.Errout)
	}
	e.shot("s1", id)
	// An application on the bus still has its tree.
	other, _, _ := e.OpenFixture("s1")
	e.Snapshot("s1", other)
}

// TestTakeoverOfAnotherWindow: taking over one window does not cut the
// typing in flight into another one (X has one keyboard, so releasing what
// is held is display-wide: it waits until no other window's input runs).
func TestTakeoverOfAnotherWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	typing, log, _ := e.OpenFixture("s1")
	other, _, _ := e.OpenFixture("s2")
	snap := e.Snapshot("s1", typing)
	e.OK("s1", "click", typing, "--at", e.Centre(t, "s1", typing, node(t, snap, "text", "Notes")))
	e.OK("s2", "share", other, "--with", "operator") // a session takes over only what it sees
	long := strings.Repeat("other window ", 80)      // 1040 characters
	from := log.Len()
	typed := make(chan result, 1)
	go func() { typed <- e.CLI("s1", "type", typing, long) }()
	wait(t, log, from, "typing to begin", func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "notes" })
	out := e.OK("operator", "takeover", other)
	if !strings.Contains(out, "left alone") && !strings.Contains(out, "released") {
		t.Fatalf("takeover answer: %s", out)
	}
	r := <-typed
	if r.Code != 0 {
		t.Fatalf("the type into %s was cut by the takeover of %s: exit %d\n%s%s", typing, other, r.Code, r.Out, r.Errout)
	}
	wait(t, log, from, "the whole text", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "notes" && ev.Text == long
	})
	e.Refused("window_paused", "s2", "snapshot", other)
	e.OK("operator", "handback", other)
}
