package atspi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// systemPython is Debian's interpreter, the one with python3-pyatspi (the
// python3 on PATH may be another build without it).
const systemPython = "/usr/bin/python3"

// connect opens a Bus on the desktop, closed when t ends.
func connect(t testing.TB, d *testenv.Desktop, o atspi.Options) *atspi.Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	b, err := atspi.Connect(ctx, d.BusAddress, o)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// frameOf waits (bounded) until the application's window is on the
// accessibility desktop and returns its frame.
func frameOf(t testing.TB, b *atspi.Bus, app *testenv.App) atspi.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	g := app.Window.Geometry
	hint := atspi.WindowHint{PID: app.PID, Title: app.Window.Title, Bounds: target.Rect{X: g.X, Y: g.Y, W: g.Width, H: g.Height}}
	var last error
	for {
		f, err := b.FindFrame(ctx, hint)
		if err == nil {
			return f
		}
		last = err
		select {
		case <-ctx.Done():
			t.Fatalf("no accessible frame for %v (pid %d): %v", app.Argv, app.PID, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// frameIndex is the frame's position among its application's children.
func frameIndex(t testing.TB, b *atspi.Bus, pid int, f atspi.Frame) int {
	t.Helper()
	app, err := b.AppByPID(t.Context(), pid)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := b.Frames(t.Context(), app)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range frames {
		if x.Object == f.Object {
			return i
		}
	}
	t.Fatalf("frame %v not among %v", f.Object, frames)
	return -1
}

// launch starts a program, or skips loudly when it is not installed (fails
// under VIBESPACE_INTEGRATION=1).
func launch(t testing.TB, d *testenv.Desktop, argv ...string) *testenv.App {
	t.Helper()
	testenv.NeedIntegration(t, argv[0])
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	a, err := d.Launch(ctx, argv...)
	if err != nil {
		t.Fatalf("launch %v: %v", argv, err)
	}
	t.Cleanup(func() { a.Stop() })
	return a
}

func fixture(t testing.TB, d *testenv.Desktop) *testenv.Fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	t.Cleanup(func() { f.Stop() })
	return f
}

// pyatspi runs testdata/pyatspi_walk.py in the desktop's environment,
// retrying while the application is not registered yet (exit status 3).
func pyatspi(t testing.TB, d *testenv.Desktop, args ...string) string {
	t.Helper()
	testenv.NeedIntegration(t, systemPython)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	for {
		cmd := exec.CommandContext(ctx, systemPython, append([]string{"testdata/pyatspi_walk.py"}, args...)...)
		cmd.Env = d.Env()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err == nil {
			return out.String()
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 || ctx.Err() != nil {
			t.Fatalf("pyatspi %v: %v\n%s", args, err, errb.String())
		}
	}
}

// treeLines renders a snapshot like the pyatspi script's tree mode.
func treeLines(s *target.Snapshot) string {
	var b strings.Builder
	s.Root.Walk(func(n *target.Node, depth int) bool {
		fmt.Fprintf(&b, "%d\t%s\t%s\n", depth, n.Role, n.Name)
		return true
	})
	return b.String()
}

// find returns the first node of s with that role and name, with its
// object.
func find(t testing.TB, s *target.Snapshot, role, name string) (*target.Node, atspi.Object) {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil {
		t.Fatalf("no %s %q in the tree:\n%s", role, name, s.Text())
	}
	o, err := atspi.ParseKey(n.Key)
	if err != nil {
		t.Fatal(err)
	}
	return n, o
}

func walk(t testing.TB, b *atspi.Bus, o atspi.Object, wo atspi.WalkOptions) *target.Snapshot {
	t.Helper()
	s, err := b.Walk(t.Context(), o, wo)
	if err != nil {
		t.Fatalf("walk %v: %v", o, err)
	}
	return s
}

// wantCode fails t unless err is a refusal with that code.
func wantCode(t testing.TB, err error, code target.Code) {
	t.Helper()
	if got := target.CodeOf(err); got != code {
		t.Fatalf("want refusal %q, got %v", code, err)
	}
}

// settled walks o until two walks in a row give the same tree: an
// application fills its tree in for a while after its window maps.
func settled(t testing.TB, b *atspi.Bus, o atspi.Object) *target.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	prev := walk(t, b, o, atspi.WalkOptions{})
	for {
		s := walk(t, b, o, atspi.WalkOptions{})
		if s.Census == prev.Census && s.Census.Unreadable == 0 && treeLines(s) == treeLines(prev) && values(s) == values(prev) {
			return s
		}
		prev = s
		if ctx.Err() != nil {
			t.Fatalf("the tree of %v never settled: %+v", o, s.Census)
		}
	}
}

// values lists the Value interface's figures of a tree's nodes, in walk
// order: a scrolled window's bars take their range after the tree's shape
// has settled, and a tree has not settled while they move.
func values(s *target.Snapshot) string {
	var b strings.Builder
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Value != nil {
			fmt.Fprintf(&b, "%v;", *n.Value)
		}
		return true
	})
	return b.String()
}
