package windows_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/testenv"
)

// openLogged opens argv + --log <fresh file> as session s and waits for
// the app's ready line.
func (e *env) openLogged(s, name string, argv ...string) (id string, log *testenv.FixtureLog, ready testenv.Event) {
	e.T.Helper()
	logPath := filepath.Join(e.Dir, name+"-"+strconv.FormatInt(e.Fixtures.Add(1), 10)+".jsonl")
	resp := e.Answer(s, append(append([]string{"open"}, argv...), "--log", logPath)...)
	if !resp.OK {
		e.T.Fatalf("open %s: %+v", name, resp)
	}
	if e.Desk == nil {
		e.ReadDesk()
	}
	log = testenv.OpenFixtureLog(logPath)
	ready = wait(e.T.(*testing.T), log, 0, name+" ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	if resp.Target.PID != ready.PID {
		e.T.Fatalf("open answered pid %d; the %s fixture is pid %d", resp.Target.PID, name, ready.PID)
	}
	return string(resp.Target.ID), log, ready
}

func (e *env) openTk(s string) (string, *testenv.FixtureLog, testenv.Event) {
	e.T.Helper()
	src := wintest.Fixture(e.T, "tk.py")
	return e.openLogged(s, "tk", testenv.FixturePython, src)
}

func (e *env) openXClient(s string) (string, *testenv.FixtureLog, testenv.Event) {
	e.T.Helper()
	bin, err := testenv.XClientBinary()
	if err != nil {
		e.T.Fatal(err)
	}
	return e.openLogged(s, "xclient", bin)
}

// titled is the handle of the listed window titled title, or "".
func titled(ls map[string]wire.TargetInfo, title string) string {
	for id, ti := range ls {
		if ti.Title == title {
			return id
		}
	}
	return ""
}

// untilListed lists as s until a window titled title is there (the list
// scans for new windows itself; the app may not have mapped it yet).
func (e *env) untilListed(t *testing.T, s, title string, log *testenv.FixtureLog) (string, wire.TargetInfo) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	for n := 1; ctx.Err() == nil; n++ {
		ls := e.Listed(s)
		if id := titled(ls, title); id != "" {
			t.Logf("%q listed as %s by list %d, %v after the first", title, id, n, time.Since(start).Round(time.Millisecond))
			return id, ls[id]
		}
	}
	evs, _ := log.Events()
	t.Fatalf("no window %q listed for %s; the app's log: %v", title, s, evs)
	return "", wire.TargetInfo{}
}

// shotPNG takes a screenshot of id and decodes it.
func (e *env) shotPNG(s, id string) image.Image {
	e.T.Helper()
	out := filepath.Join(e.Dir, "shot-"+strings.ReplaceAll(id, ":", "")+".png")
	resp := e.Answer(s, "screenshot", id, "--out", out)
	if !resp.OK {
		e.T.Fatalf("screenshot %s: %+v", id, resp)
	}
	f, err := os.Open(out)
	if err != nil {
		e.T.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		e.T.Fatal(err)
	}
	return img
}

// noTreeWindow drives a window with no accessibility tree by keys, points
// and pixels, checking each effect in the app's own log: snapshot is
// refused no_tree; key, click --at, type (into what the click focused),
// scroll and screenshot work, and the app is alive after.
func noTreeWindow(t *testing.T, e *env, id string, log *testenv.FixtureLog, pid int, focus image.Point, typed func(string) func(testenv.Event) bool) {
	t.Helper()
	r := e.Refused("no_tree", "s1", "snapshot", id)
	if !strings.Contains(r.Errout, "accessibility bus") {
		t.Fatalf("no_tree says why: %s", r.Errout)
	}
	from := log.Len()
	e.OK("s1", "key", id, "a")
	wait(t, log, from, "the key a", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "a" && ev.Unicode == "a" })
	from = log.Len()
	e.OK("s1", "key", id, "Return")
	wait(t, log, from, "the key Return", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "Return" })
	from = log.Len()
	out := e.OK("s1", "click", id, "--at", fmt.Sprintf("%d,%d", focus.X, focus.Y))
	if !strings.Contains(out, "[by point]") {
		t.Fatalf("click --at: %s", out)
	}
	wait(t, log, from, "the click", func(ev testenv.Event) bool {
		return ev.Type == "button" && ev.Button == 1 && ev.X == float64(focus.X) && ev.Y == float64(focus.Y)
	})
	from = log.Len()
	e.OK("s1", "type", id, "hello")
	wait(t, log, from, "the typed text", typed("hello"))
	from = log.Len()
	e.OK("s1", "scroll", id, "down", "--at", "300,200")
	wait(t, log, from, "the scroll (button 5)", func(ev testenv.Event) bool { return ev.Type == "button" && ev.Button == 5 })
	if img := e.shotPNG("s1", id); img.Bounds().Dx() != 400 || img.Bounds().Dy() != 300 {
		t.Fatalf("the screenshot is %v, the window 400x300", img.Bounds())
	}
	if !processRuns(pid) {
		t.Fatal("the app died")
	}
}

// TestTkWindow: a Tk window (no _NET_WM_PID, no tree) opens and is driven
// by keys, points and pixels (issue 12: open failed "showed no window in
// time").
func TestTkWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, ready := e.openTk("s1")
	if ls := e.Listed("s1"); ls[id].Title != "vibespace tk fixture" || ls[id].Holder != "s1" {
		t.Fatalf("list: %+v", ls[id])
	}
	entry := testenv.TkLayout["name"]
	noTreeWindow(t, e, id, log, ready.PID, entry.Min.Add(image.Pt(10, entry.Dy()/2)), func(want string) func(testenv.Event) bool {
		return func(ev testenv.Event) bool { return ev.Type == "text" && ev.Widget == "name" && ev.Text == want }
	})
	press := testenv.TkLayout["press"]
	from := log.Len()
	e.OK("s1", "click", id, "--at", fmt.Sprintf("%d,%d", (press.Min.X+press.Max.X)/2, (press.Min.Y+press.Max.Y)/2))
	wait(t, log, from, "the click on Press me", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "press" })
	e.OK("s1", "close", id)
	if processRuns(ready.PID) {
		t.Fatal("close of the Tk window left its app running")
	}
}

// TestXClientWindow: a plain X client (no _NET_WM_PID, no tree, no
// toolkit) opens and is driven by keys, points and pixels; its close stops
// it.
func TestXClientWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, ready := e.openXClient("s1")
	noTreeWindow(t, e, id, log, ready.PID, image.Pt(50, 60), func(want string) func(testenv.Event) bool {
		// The client has no text field: the keys it got spell it.
		return func(ev testenv.Event) bool {
			if ev.Type != "key" || ev.Keysym != want[len(want)-1:] {
				return false
			}
			evs, _ := log.Events()
			var got strings.Builder
			for _, k := range evs {
				if k.Type == "key" && k.Seq <= ev.Seq {
					got.WriteString(k.Unicode)
				}
			}
			return strings.HasSuffix(got.String(), want)
		}
	})
	// It paints a blue box at 20,20 160x80 on white.
	img := e.shotPNG("s1", id)
	if r, g, b, _ := img.At(40, 40).RGBA(); r>>8 != 0x33 || g>>8 != 0x66 || b>>8 != 0xcc {
		t.Errorf("the box's pixel is %02x%02x%02x, want 3366cc", r>>8, g>>8, b>>8)
	}
	if r, g, b, _ := img.At(300, 250).RGBA(); r>>8 != 0xff || g>>8 != 0xff || b>>8 != 0xff {
		t.Errorf("the background pixel is %02x%02x%02x, want white", r>>8, g>>8, b>>8)
	}
	e.OK("s1", "close", id)
	if processRuns(ready.PID) {
		t.Fatal("close of the client's window left it running")
	}
	e.Refused("unknown_target", "s1", "snapshot", id)
}

// TestDialogIsATarget: the GTK3 fixture's dialog, opened by clicking its
// button by ref, is listed as a new window of the same session, held by
// it; another session does not see it; it is read and acted on by ref;
// closed by its own button it answers window_gone and leaves the list; the
// app lives on. Then, after a daemon killed with -9, a dialog of the app
// the earlier daemon launched is found too, and close closes the dialog
// alone (WM_DELETE_WINDOW).
func TestDialogIsATarget(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, pid := e.OpenFixture("s1")
	e.OK("s1", "share", id, "--with", "s3")
	other, _, _ := e.OpenFixture("s2")
	snap := e.Snapshot("s1", id)
	from := log.Len()
	e.OK("s1", "click", id, node(t, snap, "push button", "Open dialog").Ref)
	wait(t, log, from, "the dialog to open", func(ev testenv.Event) bool { return ev.Type == "dialog" && ev.Text == "opened" })
	dlg, ti := e.untilListed(t, "s1", "Fixture dialog", log)
	if ti.PID != pid || ti.Holder != "s1" || ti.Origin != "s1" || dlg == id {
		t.Fatalf("the dialog is listed as %+v (the app is pid %d, opened as %s)", ti, pid, id)
	}
	if ti.Mode != "auto" || ti.Resolved != "tree" {
		t.Errorf("the dialog's mode is %q → %q (%s), want auto → tree", ti.Mode, ti.Resolved, ti.ModeWhy)
	}
	if ls := e.Listed("s2"); titled(ls, "Fixture dialog") != "" || ls[other].ID == "" {
		t.Fatalf("s2 lists %v", ls)
	}
	if ls := e.Listed("s3"); ls[dlg].Title != "Fixture dialog" {
		t.Fatalf("s3, whom the app's window was shared with, lists %v", ls)
	}
	e.Refused("not_exposed", "s2", "snapshot", dlg)
	e.Refused("held", "s3", "click", dlg, "--at", "5,5")
	dsnap := e.Snapshot("s1", dlg)
	if dsnap.Title != "Fixture dialog" {
		t.Fatalf("the dialog's snapshot is titled %q:\n%s", dsnap.Title, dsnap.Text())
	}
	node(t, dsnap, "label", "This is the fixture dialog.")
	from = log.Len()
	e.OK("s1", "key", dlg, "x") // the dialog logs its keys as the main window does
	wait(t, log, from, "the key in the dialog", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "x" })
	if img := e.shotPNG("s1", dlg); img.Bounds().Dx() < 320 || img.Bounds().Dy() < 140 {
		t.Fatalf("the dialog's screenshot is %v; the dialog is at least 320x140", img.Bounds())
	}
	from = log.Len()
	e.OK("s1", "click", dlg, node(t, dsnap, "push button", "Close").Ref)
	wait(t, log, from, "the dialog to close", func(ev testenv.Event) bool { return ev.Type == "dialog" && ev.Text == "closed" })
	e.Refused("window_gone", "s1", "snapshot", dlg)
	if ls := e.Listed("s1"); ls[dlg].ID != "" || ls[id].ID == "" {
		t.Fatalf("after the dialog closed, list: %v", ls)
	}

	e.Kill9()
	t.Cleanup(func() {
		if e.DaemonPID() == 0 {
			e.CLI("s1", "status")
		}
	})
	from = log.Len()
	e.OK("s1", "click", id, node(t, e.Snapshot("s1", id), "push button", "Open dialog").Ref) // the CLI starts a daemon
	wait(t, log, from, "the dialog to open again", func(ev testenv.Event) bool { return ev.Type == "dialog" && ev.Text == "opened" })
	again, ti := e.untilListed(t, "s1", "Fixture dialog", log)
	if again == dlg || ti.PID != pid || ti.Holder != "s1" {
		t.Fatalf("after the restart the dialog is listed as %s %+v", again, ti)
	}
	from = log.Len()
	out := e.OK("s1", "close", again)
	if !strings.Contains(out, "WM_DELETE_WINDOW") || !strings.Contains(out, "keeps running") {
		t.Fatalf("close of the dialog: %s", out)
	}
	wait(t, log, from, "the dialog to close", func(ev testenv.Event) bool { return ev.Type == "dialog" && ev.Text == "closed" })
	if !processRuns(pid) {
		t.Fatal("close of the dialog stopped its app")
	}
	if ls := e.Listed("s1"); ls[again].ID != "" || ls[id].ID == "" {
		t.Fatalf("after close of the dialog, list: %v", ls)
	}
	e.Snapshot("s1", id)
}

// TestChildProcessWindow: a window of a process the app started (the Tk
// fixture's F2 starts one) is listed for the app's session, and only for
// it, and is addressable: keys and clicks reach the child (its log says),
// close closes it alone.
func TestChildProcessWindow(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	id, log, ready := e.openTk("s1")
	e.OpenFixture("s2")
	from := log.Len()
	e.OK("s1", "key", id, "F2")
	spawned := wait(t, log, from, "the child to start", func(ev testenv.Event) bool { return ev.Type == "spawned" })
	child, ti := e.untilListed(t, "s1", "vibespace tk child", log)
	if ti.PID != spawned.PID || ti.Holder != "s1" || ti.App != "python3" {
		t.Fatalf("the child's window is listed as %+v; the child is pid %d", ti, spawned.PID)
	}
	if ti.Mode != "auto" || ti.Resolved != "pixels" {
		t.Errorf("the child's mode is %q → %q (%s), want auto → pixels", ti.Mode, ti.Resolved, ti.ModeWhy)
	}
	if ls := e.Listed("s2"); titled(ls, "vibespace tk child") != "" {
		t.Fatalf("s2 lists the child: %v", ls)
	}
	e.Refused("not_exposed", "s2", "key", child, "b")
	e.Refused("no_tree", "s1", "snapshot", child)
	from = log.Len()
	e.OK("s1", "key", child, "b")
	wait(t, log, from, "the key in the child", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Widget == "child" && ev.Keysym == "b" })
	from = log.Len()
	e.OK("s1", "click", child, "--at", "30,40")
	wait(t, log, from, "the click in the child", func(ev testenv.Event) bool {
		return ev.Type == "button" && ev.Widget == "child" && ev.X == 30 && ev.Y == 40
	})
	if img := e.shotPNG("s1", child); img.Bounds().Dx() != 200 || img.Bounds().Dy() != 120 {
		t.Fatalf("the child's screenshot is %v, its window 200x120", img.Bounds())
	}
	out := e.OK("s1", "close", child)
	if !strings.Contains(out, "keeps running") {
		t.Fatalf("close of the child's window: %s", out)
	}
	if processRuns(spawned.PID) && !e.WaitGone(spawned.PID, 10*time.Second) {
		t.Fatal("the child outlived its window's close")
	}
	if !processRuns(ready.PID) {
		t.Fatal("close of the child's window stopped the app")
	}
	from = log.Len()
	e.OK("s1", "key", id, "c")
	wait(t, log, from, "a key in the app after", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "c" && ev.Widget == "" })
}
