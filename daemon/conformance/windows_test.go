package conformance_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// A window's tree is its own. The multi-window fixture
// (testenv/fixture/multiwin.py, and multiwin_qt5.py the same in Qt 5) is
// one process showing a main window, an untitled message dialog over it,
// two windows titled "Twin"
// (the second partly over the first) and one that retitles itself; each
// holds a label no other window has, and the fixture's log says which
// label each window it mapped holds. Every window the daemon lists must
// answer a snapshot that is that window's tree: each label in exactly one
// window's tree, no label twice (an untitled dialog answering its main
// window's tree would show the main window's label twice and its own
// never), each label where its window is (the tree's bounds within the
// window's own on the X server: the screenshot's), each window under the
// title the fixture gave it (the X server's, read apart from the tree; Qt
// gives a window of no title its program's name).
// Then the window that retitles itself keeps its tree, and a twin closed
// and another opened in its place, with its title and geometry, answers
// the new one's tree, and a second untitled window (not a dialog) its own
// — on our Xvfb and (GTK 3) on a session's Xpra display.

// multiwinTitles are the X titles the fixture gives its windows, by the
// window's own label (multiwin.py); "" is a window of no title.
var multiwinTitles = map[string]string{
	"Main window's own label":     "Multiwin main",
	"Dialog's own label":          "",
	"Twin A's own label":          "Twin",
	"Twin B's own label":          "Twin",
	"Changer's own label":         "Changer",
	"Twin C's own label":          "Twin",
	"Untitled window's own label": "",
}

func TestEveryWindowItsOwnTree(t *testing.T) {
	testenv.NeedIntegration(t, "xpra")
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{
		StateDir: dir, SocketPath: filepath.Join(dir, "run", "d.sock"),
		Displays:    []kind.DisplayProvider{native.Xvfb(native.Options{Logf: t.Logf}), native.Xpra(native.Options{Logf: t.Logf})},
		VerbTimeout: 30 * time.Second, IdleHandback: -1,
	})
	for _, fx := range multiwinFixtures {
		for _, display := range fx.displays {
			name := fx.name + "/xvfb"
			if display != "" {
				name = fx.name + "/" + display
			}
			t.Run(name, func(t *testing.T) {
				everyWindowItsOwnTree(t, sv, "multiwin-"+strings.ReplaceAll(name, "/", "-"), display, fx)
			})
		}
	}
}

// multiwinFixture is the multi-window fixture of one toolkit: its script,
// the X title it gives a window of no title, and the displays it is run
// on ("" our Xvfb). Qt 5 runs on Xvfb alone: the matching does not depend
// on the display, and a session's Xpra shows five windows one by one
// (half a minute more).
type multiwinFixture struct {
	name, script, untitled string
	displays               []string
}

var multiwinFixtures = []multiwinFixture{
	{name: "gtk3", script: "multiwin.py", untitled: "", displays: []string{"", native.XpraName}},
	{name: "qt5", script: "multiwin_qt5.py", untitled: "multiwin_qt5.py", displays: []string{""}},
}

// TestWindowWithNoFrameNoTree: a window of the process that no frame is
// — a plain X window over the main window, titled as the main window is
// (the fixture's --bare) — answers no_tree with the reason, never the main
// window's tree: under auto (which resolves to pixels) and under tree.
// The other windows answer their own trees meanwhile.
func TestWindowWithNoFrameNoTree(t *testing.T) {
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{
		StateDir: dir, SocketPath: filepath.Join(dir, "run", "d.sock"),
		Displays:    []kind.DisplayProvider{native.Xvfb(native.Options{Logf: t.Logf})},
		VerbTimeout: 30 * time.Second, IdleHandback: -1,
	})
	script, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "multiwin.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "multiwin.jsonl")
	const session = "bare"
	open := sv.OK(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{App: testenv.FixturePython, Args: []string{script, "--log", logPath, "--bare"}}))
	m := &multiwin{sv: sv, session: session, log: testenv.OpenFixtureLog(logPath), pid: open.Target.PID}
	if _, err := m.log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	bare, err := m.log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "window" && e.Widget == "bare" })
	if err != nil {
		t.Fatal(err)
	}
	var g target.Rect
	if _, err := fmt.Sscanf(bare.Text, "%dx%d+%d+%d", &g.W, &g.H, &g.X, &g.Y); err != nil {
		t.Fatalf("the bare window's geometry %q: %v", bare.Text, err)
	}
	own := []string{"Main window's own label", "Dialog's own label", "Twin A's own label", "Twin B's own label", "Changer's own label"}
	var found target.ID
	m.until(t, ctx, "six windows listed, five with their own trees and the bare one refused no_tree", func() bool {
		var wins []wire.TargetInfo
		for _, ti := range sv.OK(t, daemon.Request{Verb: "list", Session: session}).Targets {
			if ti.PID == m.pid {
				wins = append(wins, ti)
			}
		}
		if len(wins) != 6 {
			return false
		}
		var labels []string
		found = ""
		for _, w := range wins {
			r := sv.Call(t, daemon.Request{Verb: "snapshot", Session: session, Target: string(w.ID), JSON: true})
			shot := sv.OK(t, daemon.Request{Verb: "screenshot", Session: session, Target: string(w.ID)})
			isBare := shot.Bounds != nil && *shot.Bounds == g
			switch {
			case r.OK && isBare:
				t.Fatalf("the bare window %s (%q at %v, no frame of its own) answered a tree:\n%s", w.ID, w.Title, g, r.Snapshot.Text())
			case r.OK:
				labels = append(labels, m.holds(r.Snapshot))
			case r.Code != target.CodeNoTree:
				t.Fatalf("snapshot %s: %s [%s]", w.ID, r.Message, r.Code)
			case isBare:
				if w.Title != "Multiwin main" {
					t.Fatalf("the bare window is listed titled %q", w.Title)
				}
				if why, _ := r.Facts["reason"].(string); !strings.Contains(why, "none of its frames is this window") {
					t.Fatalf("the bare window's no_tree gives no reason: %s %v", r.Message, r.Facts)
				}
				found = w.ID
			}
		}
		if found != "" && len(labels) == 5 && !sameSet(labels, own) {
			t.Fatalf("the five other windows answered the trees holding %v, want %v", labels, own)
		}
		return found != "" && len(labels) == 5
	})
	// Under tree, not auto: still no_tree, with the reason.
	sv.OK(t, daemon.Request{Verb: "mode", Session: session, Target: string(found)}.With(args.Mode{Mode: "tree"}))
	r := sv.Call(t, daemon.Request{Verb: "snapshot", Session: session, Target: string(found), JSON: true})
	if r.OK || r.Code != target.CodeNoTree {
		t.Fatalf("the bare window under mode tree answered ok=%v %s [%s]:\n%s", r.OK, r.Message, r.Code, r.Text)
	}
	if why, _ := r.Facts["reason"].(string); !strings.Contains(why, "none of its frames is this window") {
		t.Fatalf("the bare window's no_tree under mode tree gives no reason: %s %v", r.Message, r.Facts)
	}
	t.Logf("the bare window: %s", r.Message)
	if syscall.Kill(m.pid, 0) != nil {
		t.Fatal("the fixture died")
	}
}

// multiwin is the fixture opened in one session, with its log.
type multiwin struct {
	sv      *daemontest.Served
	session string
	log     *testenv.FixtureLog
	pid     int
	// untitled is the X title the toolkit gives a window of no title.
	untitled string
}

func everyWindowItsOwnTree(t *testing.T, sv *daemontest.Served, session, display string, fx multiwinFixture) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", fx.script))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "multiwin.jsonl")
	open := sv.OK(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{Display: display, App: testenv.FixturePython, Args: []string{script, "--log", logPath}}))
	m := &multiwin{sv: sv, session: session, log: testenv.OpenFixtureLog(logPath), pid: open.Target.PID, untitled: fx.untitled}
	if _, err := m.log.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	first := []string{"Main window's own label", "Dialog's own label", "Twin A's own label", "Twin B's own label", "Changer's own label"}
	if got := m.labels(t); !sameSet(got, first) {
		t.Fatalf("the fixture says its windows hold %v, want %v", got, first)
	}
	byLabel := m.everyWindow(t, ctx, first)

	// The window that retitles itself: the X server and the tree both say
	// its new title, and its tree is still its own.
	changer := byLabel["Changer's own label"]
	from := m.log.Len()
	m.click(t, changer, "Retitle")
	re, err := m.log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "retitle" })
	if err != nil {
		t.Fatal(err)
	}
	m.until(t, ctx, "the retitled window's title in list and in its tree", func() bool {
		snap := m.snapshot(t, changer)
		return m.title(t, changer) == re.Text && snap != nil && snap.Root.Name == re.Text && m.holds(snap) == "Changer's own label"
	})

	// Twin B closed, twin C opened in its place (its title, its size, its
	// place): the new window answers its own tree, the old handle none.
	twinB := byLabel["Twin B's own label"]
	from = m.log.Len()
	m.click(t, byLabel["Main window's own label"], "Replace twin")
	for _, want := range []func(testenv.Event) bool{
		func(e testenv.Event) bool { return e.Type == "gone" && e.Widget == "twin-b" },
		func(e testenv.Event) bool { return e.Type == "window" && e.Widget == "twin-c" },
	} {
		if _, err := m.log.WaitFrom(ctx, from, want); err != nil {
			t.Fatal(err)
		}
	}
	m.until(t, ctx, "twin B's handle gone", func() bool {
		r := sv.Call(t, daemon.Request{Verb: "snapshot", Session: session, Target: string(twinB)})
		return !r.OK && (r.Code == target.CodeWindowGone || r.Code == target.CodeUnknownTarget)
	})
	now := []string{"Main window's own label", "Dialog's own label", "Twin A's own label", "Twin C's own label", "Changer's own label"}
	byLabel = m.everyWindow(t, ctx, now)
	if byLabel["Twin C's own label"] == twinB {
		t.Fatalf("twin C answered under twin B's handle %s", twinB)
	}
	// A second untitled window, of type normal: two windows of no title,
	// told apart by where they are and which is a dialog.
	from = m.log.Len()
	m.click(t, byLabel["Main window's own label"], "Open untitled")
	if _, err := m.log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "window" && e.Widget == "untitled" }); err != nil {
		t.Fatal(err)
	}
	m.everyWindow(t, ctx, append(now, "Untitled window's own label"))
	if syscall.Kill(m.pid, 0) != nil {
		t.Fatal("the fixture died")
	}
}

// labels are the labels of the windows the fixture says it has now (mapped
// and not gone since).
func (m *multiwin) labels(t *testing.T) []string {
	t.Helper()
	evs, err := m.log.Events()
	if err != nil {
		t.Fatal(err)
	}
	label := map[string]string{}
	for _, e := range evs {
		switch e.Type {
		case "window":
			label[e.Widget] = e.Text
		case "gone":
			delete(label, e.Widget)
		}
	}
	var out []string
	for _, l := range label {
		out = append(out, l)
	}
	return out
}

// everyWindow waits until the session lists one window per label of want
// and every window's snapshot is its own tree (see the test's comment),
// and answers each window's handle by its label.
func (m *multiwin) everyWindow(t *testing.T, ctx context.Context, want []string) map[string]target.ID {
	t.Helper()
	var last string
	for {
		byLabel, why := m.check(t, want)
		if why == "" {
			return byLabel
		}
		if why != last {
			t.Logf("not yet: %s", why)
			last = why
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the windows never each answered their own tree: %s", why)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// check is everyWindow's one look: the windows by label, or what is not
// so yet. A window's snapshot refused no_tree is not its tree yet (its
// frame may register late); a snapshot that holds another window's label
// fails the test at once: that is the wrong tree, never a passing state.
func (m *multiwin) check(t *testing.T, want []string) (map[string]target.ID, string) {
	t.Helper()
	var wins []wire.TargetInfo
	for _, ti := range m.sv.OK(t, daemon.Request{Verb: "list", Session: m.session}).Targets {
		if ti.Holder == m.session && ti.PID == m.pid {
			wins = append(wins, ti)
		}
	}
	if len(wins) != len(want) {
		return nil, "the session lists " + strconv.Itoa(len(wins)) + " windows of the fixture, want " + strconv.Itoa(len(want))
	}
	byLabel := map[string]target.ID{}
	for _, w := range wins {
		r := m.sv.Call(t, daemon.Request{Verb: "snapshot", Session: m.session, Target: string(w.ID), JSON: true})
		if !r.OK {
			if r.Code == target.CodeNoTree {
				return nil, string(w.ID) + " " + r.Message
			}
			t.Fatalf("snapshot %s: %s [%s]", w.ID, r.Message, r.Code)
		}
		label := m.holds(r.Snapshot)
		switch {
		case label == "":
			t.Fatalf("%s %q answered a tree with no window's own label, or several:\n%s", w.ID, w.Title, r.Snapshot.Text())
		case !slices.Contains(want, label):
			t.Fatalf("%s %q answered the tree of a window the fixture no longer has (%q):\n%s", w.ID, w.Title, label, r.Snapshot.Text())
		case byLabel[label] != "":
			t.Fatalf("%s %q and %s both answered the tree holding %q: one of them answered its neighbour's tree:\n%s", w.ID, w.Title, byLabel[label], label, r.Snapshot.Text())
		case w.Title != cmp.Or(multiwinTitles[label], m.untitled) && label != "Changer's own label":
			t.Fatalf("%s titled %q on the X server answered the tree of the window titled %q (%q):\n%s", w.ID, w.Title, cmp.Or(multiwinTitles[label], m.untitled), label, r.Snapshot.Text())
		}
		// The label is where the window is.
		n := r.Snapshot.Root.Find(func(n *target.Node) bool { return n.Name == label })
		shot := m.sv.OK(t, daemon.Request{Verb: "screenshot", Session: m.session, Target: string(w.ID)})
		if n.Bounds == nil || shot.Bounds == nil || !inside(*n.Bounds, *shot.Bounds) {
			t.Fatalf("%s: its label %q at %v is not within the window at %v", w.ID, label, n.Bounds, shot.Bounds)
		}
		byLabel[label] = w.ID
	}
	return byLabel, ""
}

// holds is the one window's own label the tree holds, or "" when it holds
// none or several.
func (m *multiwin) holds(snap *target.Snapshot) string {
	found := ""
	for label := range multiwinTitles {
		if snap.Root.Find(func(n *target.Node) bool { return n.Name == label }) != nil {
			if found != "" {
				return ""
			}
			found = label
		}
	}
	return found
}

func (m *multiwin) snapshot(t *testing.T, id target.ID) *target.Snapshot {
	t.Helper()
	r := m.sv.Call(t, daemon.Request{Verb: "snapshot", Session: m.session, Target: string(id), JSON: true})
	if !r.OK {
		return nil
	}
	return r.Snapshot
}

// title is window id's title as list gives it (the X server's).
func (m *multiwin) title(t *testing.T, id target.ID) string {
	t.Helper()
	for _, ti := range m.sv.OK(t, daemon.Request{Verb: "list", Session: m.session}).Targets {
		if ti.ID == id {
			return ti.Title
		}
	}
	return ""
}

// click clicks the push button named name in window id's tree, by ref.
func (m *multiwin) click(t *testing.T, id target.ID, name string) {
	t.Helper()
	snap := m.snapshot(t, id)
	if snap == nil {
		t.Fatalf("no snapshot of %s", id)
	}
	n := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == name && n.Ref != "" })
	if n == nil {
		t.Fatalf("no button %q in %s:\n%s", name, id, snap.Text())
	}
	m.sv.OK(t, daemon.Request{Verb: "click", Session: m.session, Target: string(id)}.With(args.Click{Ref: n.Ref}))
}

// until waits, bounded by ctx, until ok.
func (m *multiwin) until(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("never: %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// inside reports whether r's centre is within w.
func inside(r, w target.Rect) bool {
	x, y := r.X+r.W/2, r.Y+r.H/2
	return x >= w.X && x < w.X+w.W && y >= w.Y && y < w.Y+w.H
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
