package atspi_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestEarlyQuestionsOfAChangedTree: a walk asks a node's phase-two
// questions early, by what the last walk of the window asked it
// (early.go); when the tree changed in between, the snapshot still says
// what a walk without that memory says. The GTK 3 fixture's list rows are
// not in Cache.GetItems (their questions go in two phases) and only the
// rows in view are showing (asked their extents): the list is scrolled to
// its end through its scroll bar's Value between two walks, so the rows
// the memory says to ask for extents are hidden now and the rows now in
// view were not asked last time. The oracle is a walk of the same window
// that neither uses nor keeps the memory (a first walk's way), made right
// after; the calls are counted by a bus monitor, to show the stale early
// questions were asked and their answers not taken.
func TestEarlyQuestionsOfAChangedTree(t *testing.T) {
	d := testenv.SharedDesktop(t)
	f := fixture(t, d)
	b := connect(t, d, atspi.Options{NoPeer: true})
	frame := frameOf(t, b, f.App)
	before := settled(t, b, frame.Object) // b now remembers what each row was asked
	shown := showingRows(before)
	if len(shown) == 0 || slices.Contains(shown, "Row 60") {
		t.Fatalf("the list should start at its top with rows in view; rows showing: %v", shown)
	}
	bar, max := listBar(t, before)
	setValue(t, b.Address(), bar, max)

	// Until a walk without the memory shows the list at its end, the
	// same twice in a row.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for prev := ""; ; {
		s := walk(t, b, frame.Object, atspi.WithoutMemo(atspi.WalkOptions{}))
		j := snapshotJSON(t, s)
		if slices.Contains(showingRows(s), "Row 60") && j == prev {
			break
		}
		prev = j
		if ctx.Err() != nil {
			t.Fatalf("the list never showed its end: rows showing %v", showingRows(s))
		}
	}

	mon := monitor(t, b.Address(), b.WireName())
	got := walk(t, b, frame.Object, atspi.WalkOptions{})
	early := mon.fence(t, b, frame.Object)
	mon = monitor(t, b.Address(), b.WireName())
	want := walk(t, b, frame.Object, atspi.WithoutMemo(atspi.WalkOptions{}))
	plain := mon.fence(t, b, frame.Object)

	if g, w := snapshotJSON(t, got), snapshotJSON(t, want); g != w {
		t.Errorf("the walk with the last walk's memory says\n%s\nthe walk without it\n%s", got.Text(), want.Text())
	}
	now := showingRows(got)
	var hidden, newly []string
	for _, r := range shown {
		if !slices.Contains(now, r) {
			hidden = append(hidden, r)
		}
	}
	for _, r := range now {
		if !slices.Contains(shown, r) {
			newly = append(newly, r)
		}
	}
	if len(hidden) == 0 || len(newly) == 0 {
		t.Fatalf("the scroll did not change which rows show (before %v, after %v): the memory was not stale", shown, now)
	}
	t.Logf("rows hidden since the last walk %v, shown since %v; calls with the memory: %s; without: %s", hidden, newly, kindList(early), kindList(plain))
	// The nodes hidden since — the rows, and any other node the scroll
	// hid — were asked their extents early (ahead, in the walk's first
	// write: ahead.go), and their answers dropped; the rows shown since
	// were asked in phase two.
	bounded := map[string]bool{}
	got.Root.Walk(func(n *target.Node, _ int) bool { bounded[n.Key] = n.Bounds != nil; return true })
	var stale []string
	before.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Bounds != nil && !bounded[n.Key] {
			stale = append(stale, n.Role+" "+n.Name)
		}
		return true
	})
	if len(stale) < len(hidden) {
		t.Errorf("%d nodes had bounds before and have none now (%v), fewer than the %d rows hidden since", len(stale), stale, len(hidden))
	}
	if early["GetExtents"] != plain["GetExtents"]+len(stale) {
		t.Errorf("with the stale memory the walk asked %d extents, without it %d, with %d nodes hidden since (%v): want %d", early["GetExtents"], plain["GetExtents"], len(stale), stale, plain["GetExtents"]+len(stale))
	}
	for _, r := range hidden {
		if n := got.Root.Find(func(n *target.Node) bool { return n.Name == r }); n == nil || n.Bounds != nil {
			t.Errorf("%s, hidden now, has bounds in the snapshot: %+v", r, n)
		}
	}
}

// showingRows names the fixture list's rows that are showing (a row and
// its label, named alike).
func showingRows(s *target.Snapshot) []string {
	var rows []string
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if strings.HasPrefix(n.Name, "Row ") && n.Has("showing") {
			rows = append(rows, n.Name)
		}
		return true
	})
	return rows
}

// listBar is the scroll bar in view of the scroll pane that holds the
// list "Rows" (its vertical one: the pane scrolls only up and down), and
// its maximum value.
func listBar(t *testing.T, s *target.Snapshot) (atspi.Object, float64) {
	t.Helper()
	var bar *target.Node
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Role == "scroll pane" && n.Find(func(c *target.Node) bool { return c.Role == "list box" && c.Name == "Rows" }) != nil {
			for _, c := range n.Children {
				if c.Role == "scroll bar" && c.Has("showing") && c.Value != nil && c.Value.Max > c.Value.Min {
					bar = c
				}
			}
		}
		return bar == nil
	})
	if bar == nil {
		t.Fatalf("no vertical scroll bar beside the list:\n%s", s.Text())
	}
	o, err := atspi.ParseKey(bar.Key)
	if err != nil {
		t.Fatal(err)
	}
	return o, bar.Value.Max
}

// setValue sets o's Value.CurrentValue, through a connection of its own.
func setValue(t *testing.T, addr string, o atspi.Object, v float64) {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	call := conn.Object(o.Name, dbus.ObjectPath(o.Path)).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0, "org.a11y.atspi.Value", "CurrentValue", dbus.MakeVariant(v))
	if call.Err != nil {
		t.Fatalf("set the scroll bar's value: %v", call.Err)
	}
}

func snapshotJSON(t *testing.T, s *target.Snapshot) string {
	t.Helper()
	j, err := json.Marshal(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// TestWalkOpensRoutesOnTheWay walks the registry's desktop two levels
// deep: every node below it belongs to another application than the root,
// so the walk opens a route (the application's peer socket, asked through
// the bus) to each one it meets, off the goroutines that take the answers.
// Each application of the desktop must be read, and the fixture's root
// must have its window below it. Oracle: the registry's own list of
// applications (Bus.Applications: GetChildren through godbus, not the
// walk) and the fixture's frame (frameOf).
func TestWalkOpensRoutesOnTheWay(t *testing.T) {
	d := testenv.SharedDesktop(t)
	f := fixture(t, d)
	b := connect(t, d, atspi.Options{})
	frame := frameOf(t, b, f.App)
	b = connect(t, d, atspi.Options{}) // a Bus that has no route yet
	s := walk(t, b, atspi.Desktop(), atspi.WalkOptions{Depth: 2, NoText: true})
	apps, err := b.Applications(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*target.Node{}
	for _, c := range s.Root.Children {
		byKey[c.Key] = c
	}
	for _, a := range apps {
		n := byKey[a.Root.Key()]
		switch {
		case n == nil:
			t.Errorf("application %s (pid %d) is not below the desktop:\n%s", a.Name, a.PID, s.Text())
		case n.Unreadable != "" || n.Role != "application":
			t.Errorf("application %s (pid %d) was read as %s %q, unreadable %q", a.Name, a.PID, n.Role, n.Name, n.Unreadable)
		}
	}
	if s.Root.Find(func(n *target.Node) bool { return n.Key == frame.Object.Key() }) == nil {
		t.Errorf("the fixture's window %v is not in the walk of the desktop:\n%s", frame.Object, s.Text())
	}
}
