package atspi_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// The tree is pyatspi's straight walk of the same window: the same nodes,
// in GetChildren order, with the same roles and names; and the walk with
// the bridge's cache is the walk without it.
func TestTreeMatchesPyatspi(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	viaBus := connect(t, d, atspi.Options{NoPeer: true})
	apps := map[string]func(t *testing.T) *testenv.App{
		"fixture":             func(t *testing.T) *testenv.App { return fixture(t, d).App },
		"gtk3-widget-factory": func(t *testing.T) *testenv.App { return launch(t, d, "gtk3-widget-factory") },
		"gtk3-demo":           func(t *testing.T) *testenv.App { return launch(t, d, "gtk3-demo") },
	}
	for _, name := range []string{"fixture", "gtk3-widget-factory", "gtk3-demo"} {
		t.Run(name, func(t *testing.T) {
			app := apps[name](t)
			f := frameOf(t, b, app)
			s := settled(t, b, f.Object)
			if s.Census.Unreadable != 0 || s.Truncated {
				t.Fatalf("walk not whole: %+v truncated=%v\n%s", s.Census, s.Truncated, s.Text())
			}
			got := treeLines(s)
			want := pyatspi(t, d, "tree", strconv.Itoa(app.PID), strconv.Itoa(frameIndex(t, b, app.PID, f)))
			if got != want {
				t.Errorf("tree differs from pyatspi's (%d nodes here)\n--- atspi\n%s\n--- pyatspi\n%s", s.Census.Nodes, got, want)
			}
			js, _ := json.Marshal(s)
			t.Logf("%s: %+v; text %d B, interactive %d B, json %d B", name, s.Census, len(s.Text()), len(s.InteractiveView().Text()), len(js))

			plain := walk(t, b, f.Object, atspi.WalkOptions{NoCache: true})
			if a, c := stable(t, s), stable(t, plain); a != c {
				t.Errorf("walk with the cache differs from the walk without it\n--- cache\n%s\n--- no cache\n%s", a, c)
			}
			// Through the bus instead of the application's peer socket.
			bus := walk(t, viaBus, f.Object, atspi.WalkOptions{})
			if a, c := stable(t, s), stable(t, bus); a != c {
				t.Errorf("walk through the bus differs from the walk through the peer socket\n--- peer\n%s\n--- bus\n%s", a, c)
			}
		})
	}
}

// stable is the tree as JSON without the states that change by themselves.
func stable(t *testing.T, s *target.Snapshot) string {
	t.Helper()
	s.Root.Walk(func(n *target.Node, _ int) bool {
		var keep []string
		for _, st := range n.States {
			if st != "focused" && st != "active" {
				keep = append(keep, st)
			}
		}
		n.States = keep
		return true
	})
	out, err := json.MarshalIndent(s.Root, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The first walk right after an application maps its window is whole, with
// the cache as without it (a walk whose nodes all came from the cache once
// ended before their second questions went out: 11 nodes of 260).
func TestFirstWalkAfterLaunch(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{})
	for range 2 {
		app := launch(t, d, "gtk3-widget-factory")
		f := frameOf(t, b, app)
		first := walk(t, b, f.Object, atspi.WalkOptions{})
		plain := walk(t, b, f.Object, atspi.WalkOptions{NoCache: true})
		if first.Census != plain.Census || treeLines(first) != treeLines(plain) {
			t.Errorf("first walk %+v, then without the cache %+v", first.Census, plain.Census)
		}
		if err := app.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}
