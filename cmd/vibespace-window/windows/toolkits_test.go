package windows_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// The toolkit matrix: each toolkit's own small fixture (testenv/fixture),
// driven through the CLI alone, every effect read back from the fixture's
// own log. A toolkit with a tree is read and clicked by ref; one without
// says no_tree and is driven by keys and points. The app is alive at the
// end of every row: nothing we did harmed it.

// toolkit is one row of the matrix.
type toolkit struct {
	name string // the fixture's name: testenv/fixture/<name>.py, title "vibespace <name> fixture"
	tree bool   // it exposes an accessibility tree
	argv func(t *testing.T, e *env, log string) []string
}

func pythonFixture(name string) func(*testing.T, *env, string) []string {
	return func(t *testing.T, e *env, log string) []string {
		src := wintest.Fixture(t, name+".py")
		return []string{testenv.FixturePython, src, "--log", log}
	}
}

// xclientFixture is the plain X client fixture (a Go program with no
// toolkit and no tree), built once per test binary.
func xclientFixture(t *testing.T, e *env, log string) []string {
	t.Helper()
	bin, err := testenv.XClientBinary()
	if err != nil {
		t.Fatal(err)
	}
	return []string{bin, "--log", log}
}

var toolkits = []toolkit{
	{name: "gtk4", tree: true, argv: pythonFixture("gtk4")},
	{name: "qt5", tree: true, argv: pythonFixture("qt5")},
	{name: "tk", tree: false, argv: pythonFixture("tk")},
	{name: "xclient", tree: false, argv: xclientFixture},
}

func TestToolkitMatrix(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	for _, tk := range toolkits {
		t.Run(tk.name, func(t *testing.T) {
			parent := e.T
			e.T = t // the CLI helpers fail this row, not the matrix
			defer func() { e.T = parent }()
			matrixRow(t, e, tk)
		})
	}
}

func matrixRow(t *testing.T, e *env, tk toolkit) {
	s := "tk-" + tk.name
	logPath := filepath.Join(e.Dir, tk.name+"-"+strconv.FormatInt(e.Fixtures.Add(1), 10)+".jsonl")
	resp := e.Answer(s, append([]string{"open"}, tk.argv(t, e, logPath)...)...)
	if !resp.OK || resp.Target == nil {
		t.Fatalf("open %s: %+v", tk.name, resp)
	}
	if e.Desk == nil {
		e.ReadDesk()
	}
	id, pid := string(resp.Target.ID), resp.Target.PID
	log := testenv.OpenFixtureLog(logPath)
	wait(t, log, 0, "ready", func(ev testenv.Event) bool { return ev.Type == "ready" })
	title := "vibespace " + tk.name + " fixture"
	if out := e.OK(s, "list"); !strings.Contains(out, id+` "`+title+`"`) {
		t.Fatalf("list does not name %s %q:\n%s", id, title, out)
	}

	// The window's own picture: its size, and more than one colour in it.
	// A toolkit can log ready (its window mapped, a frame painted) before
	// its first picture reaches the X server (GTK 4's is flat at first on
	// a loaded machine): the picture is taken again until it is not flat,
	// for as long as a fixture may take to start, then checked.
	shotPath := filepath.Join(e.Dir, tk.name+".png")
	var shot wire.Response
	for deadline := time.Now().Add(30 * time.Second); ; {
		shot = e.Answer(s, "screenshot", id, "--out", shotPath)
		if !shot.OK || shot.Bounds == nil {
			t.Fatalf("screenshot: %+v", shot)
		}
		if img, err := decodePNG(shotPath); err != nil || colours(img) > 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	checkPicture(t, shotPath, shot.Bounds.W, shot.Bounds.H)

	if tk.tree {
		// A GTK 4 application reaches the accessibility bus seconds after
		// its window maps on a loaded machine: its tree is waited for
		// (no_tree until then), as long as a fixture may take to start.
		untilTree(t, e, s, id)
		treeRow(t, e, s, id, log)
	} else {
		r := e.Refused("no_tree", s, "snapshot", id)
		if strings.Contains(r.Errout, "timeout") {
			t.Fatalf("no_tree must be the fact, not a timeout: %s", r.Errout)
		}
	}

	// Keys reach the window whatever its toolkit.
	from := log.Len()
	e.OK(s, "key", id, "F5")
	wait(t, log, from, "the key F5", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "F5" })
	from = log.Len()
	e.OK(s, "type", id, "qz")
	wait(t, log, from, "typed q", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "q" })
	wait(t, log, from, "typed z", func(ev testenv.Event) bool { return ev.Type == "key" && ev.Keysym == "z" })

	// A point near the bottom right corner, where the fixtures have no
	// widget: the window itself logs the press, at that point.
	x, y := shot.Bounds.W-12, shot.Bounds.H-12
	from = log.Len()
	if out := e.OK(s, "click", id, "--at", fmt.Sprintf("%d,%d", x, y)); !strings.Contains(out, "[by point]") {
		t.Fatalf("click --at: %s", out)
	}
	ev := wait(t, log, from, "the press at the point", func(ev testenv.Event) bool { return ev.Type == "button" && ev.Button == 1 })
	if abs(int(ev.X)-x) > 2 || abs(int(ev.Y)-y) > 2 {
		t.Errorf("the press landed at %v,%v in the window, want %d,%d", ev.X, ev.Y, x, y)
	}

	// Alive after every read and act; close then stops it.
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("%s (pid %d) died under our reads and acts; its log: %v", tk.name, pid, tail(log))
	}
	e.OK(s, "close", id)
	if !e.WaitGone(pid, 10*time.Second) {
		t.Fatalf("%s (pid %d) still runs after close", tk.name, pid)
	}
}

// treeRow: the tree of a toolkit that has one, read and acted on by ref,
// each effect in the fixture's own log.
func treeRow(t *testing.T, e *env, s, id string, log *testenv.FixtureLog) {
	t.Helper()
	inter := e.OK(s, "snapshot", id, "-i")
	for _, want := range []string{`push button "Press me" @e`, `"Name"`, `"Maybe"`} {
		if !strings.Contains(inter, want) {
			t.Fatalf("snapshot -i lacks %s:\n%s", want, inter)
		}
	}
	if strings.Contains(inter, `"Press me Press me"`) {
		t.Errorf("a name printed twice:\n%s", inter)
	}
	snap := e.Snapshot(s, id)
	press := node(t, snap, "push button", "Press me")
	if press.Bounds == nil || press.Bounds.W <= 0 {
		t.Errorf("Press me has no usable bounds: %v", press.Bounds)
	}
	from := log.Len()
	if out := e.OK(s, "click", id, press.Ref); !strings.Contains(out, "[by tree]") {
		t.Fatalf("click by ref: %s", out)
	}
	wait(t, log, from, "the click on Press me", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "press" })

	name := snap.Root.Find(func(n *target.Node) bool { return n.Name == "Name" && n.Implements("EditableText") })
	if name == nil {
		t.Fatal("no editable Name field in the tree")
	}
	from = log.Len()
	e.OK(s, "type", id, name.Ref, "Ada")
	wait(t, log, from, "the text in Name", func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "name" && ev.Text == "Ada"
	})

	// The mixed check box says mixed; a click changes it, and the text
	// form says what it is now.
	maybe := snap.Root.Find(func(n *target.Node) bool { return n.Name == "Maybe" })
	if maybe == nil || !strings.Contains(inter, "mixed") {
		t.Fatalf("the Maybe check box is not printed mixed:\n%s", inter)
	}
	from = log.Len()
	if r := e.CLI(s, "click", id, maybe.Ref); r.Code != 0 {
		// GTK 4.8's check button has an Action interface that lists no
		// action: the tree road does not exist, and the answer says so;
		// the point road is the agent's explicit choice.
		if !strings.Contains(r.Errout, "[no_action]") {
			t.Fatalf("click Maybe by ref: exit %d: %s", r.Code, r.Errout)
		}
		e.OK(s, "click", id, "--at", e.Centre(t, s, id, maybe))
	}
	ev := wait(t, log, from, "the toggle of Maybe", func(ev testenv.Event) bool { return ev.Type == "toggled" && ev.Widget == "maybe" })
	after := e.OK(s, "snapshot", id, "-i")
	line := lineWith(after, `"Maybe"`)
	if ev.Text != "mixed" && strings.Contains(line, "mixed") {
		t.Errorf("the fixture says Maybe is %s, the snapshot still says mixed: %s", ev.Text, line)
	}
	if ev.Text == "on" && !strings.Contains(line, "checked") {
		t.Errorf("the fixture says Maybe is on, the snapshot says: %s", line)
	}
}

// untilTree waits (30 s at most) until the window's snapshot answers: its
// application is on the accessibility bus. Any refusal but no_tree fails
// the row at once.
func untilTree(t *testing.T, e *env, s, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.Answer(s, "snapshot", id)
		switch {
		case r.OK:
			return
		case r.Code != target.CodeNoTree:
			t.Fatalf("snapshot: refused %s: %s", r.Code, r.Message)
		case time.Now().After(deadline):
			t.Fatalf("the application never reached the accessibility bus: %s %s", r.Code, r.Message)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// decodePNG reads the PNG at path.
func decodePNG(path string) (image.Image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return png.Decode(bytes.NewReader(b))
}

// checkPicture decodes the PNG at path: w×h, and not one flat colour.
func checkPicture(t *testing.T, path string, w, h int) {
	t.Helper()
	img, err := decodePNG(path)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Errorf("picture %v, want %dx%d", img.Bounds(), w, h)
	}
	if colours(img) < 2 {
		t.Errorf("the picture is one flat colour: nothing of the window in it")
	}
}

func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			seen[[4]uint32{c0, c1, c2, c3}] = true
			if len(seen) > 1 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func lineWith(text, sub string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func tail(log *testenv.FixtureLog) []testenv.Event {
	evs, _ := log.Events()
	return evs[max(0, len(evs)-5):]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
