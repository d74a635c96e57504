package native

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// controlsWindow starts a display with the fixture and its controls
// column (a combo box, a notebook, a list box…) and returns its window,
// its log and a fresh snapshot of it.
func controlsWindow(t *testing.T) (kind.Target, *testenv.FixtureLog, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	w, log, ready := launchLogged(t, ctx, startDisplay(t, ctx), fixturePy, "--controls")
	return w, log, ready.PID
}

// nodeOf finds a node by role and name in a fresh snapshot of w.
func nodeOf(t *testing.T, w kind.Target, role, name string) (*target.Node, *target.Snapshot) {
	t.Helper()
	s, err := w.Snapshot(t.Context(), target.NewRefTable())
	if err != nil {
		t.Fatal(err)
	}
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil {
		t.Fatalf("no %s %q in\n%s", role, name, s.Text())
	}
	return n, s
}

func waitEvent(t *testing.T, log *testenv.FixtureLog, from int, what string, match func(testenv.Event) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, from, match); err != nil {
		t.Fatalf("the fixture never logged %s: %v", what, err)
	}
}

// The window's Selector picks a combo box's item, a notebook's page and a
// list box's row by their names, as the application's own log and its
// tree afterwards say; an option the control does not have is refused
// no_option naming the ones it has; the application lives on.
func TestWindowSelect(t *testing.T) {
	w, log, pid := controlsWindow(t)
	sel, ok := w.(kind.Selector)
	if !ok {
		t.Fatal("a window is not a kind.Selector")
	}
	ctx := t.Context()

	combo, _ := nodeOf(t, w, "combo box", "Red")
	from := log.Len()
	got, err := sel.Select(ctx, kind.Node{Key: combo.Key}, []string{"blue"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"Blue"}) {
		t.Errorf("read back %q, want [Blue]", got)
	}
	waitEvent(t, log, from, "the combo box's Blue", func(e testenv.Event) bool {
		return e.Type == "select" && e.Widget == "colour" && e.Text == "Blue"
	})
	nodeOf(t, w, "combo box", "Blue") // the tree says so too

	_, err = sel.Select(ctx, kind.Node{Key: combo.Key}, []string{"Purple"})
	if target.CodeOf(err) != target.CodeNoOption {
		t.Fatalf("an unknown option: %v, want no_option", err)
	}
	var r *target.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("not a refusal: %v", err)
	}
	if opts, _ := r.Facts["options"].([]string); !slices.Equal(opts, []string{"Red", "Green", "Blue"}) {
		t.Errorf("no_option does not name the options: %v (facts %v)", err, r.Facts)
	}

	// A notebook: through one of its tabs (the tab list has no line in
	// the interactive view).
	tab, _ := nodeOf(t, w, "page tab", "First")
	from = log.Len()
	if got, err := sel.Select(ctx, kind.Node{Key: tab.Key}, []string{"Third"}); err != nil || !slices.Equal(got, []string{"Third"}) {
		t.Fatalf("select Third: %q %v", got, err)
	}
	waitEvent(t, log, from, "the notebook's Third page", func(e testenv.Event) bool {
		return e.Type == "page" && e.Widget == "pages" && e.Text == "Third"
	})

	list, _ := nodeOf(t, w, "list box", "Rows")
	from = log.Len()
	if got, err := sel.Select(ctx, kind.Node{Key: list.Key}, []string{"Row 3"}); err != nil || !slices.Equal(got, []string{"Row 3"}) {
		t.Fatalf("select Row 3: %q %v", got, err)
	}
	waitEvent(t, log, from, "the list's Row 3", func(e testenv.Event) bool {
		return e.Type == "select" && e.Widget == "list" && e.Text == "Row 3"
	})

	if syscall.Kill(pid, 0) != nil {
		t.Fatal("the fixture died")
	}
	nodeOf(t, w, "push button", "Alpha")
}

// A click on a page tab (no Action) is decided the tree road through its
// notebook's Selection and switches the page: the fixture logs it and the
// new page's content is on screen in the tree.
func TestWindowClickPageTab(t *testing.T) {
	w, log, _ := controlsWindow(t)
	ctx := t.Context()
	tab, _ := nodeOf(t, w, "page tab", "Second")
	n := kind.Node{Key: tab.Key}
	tr, err := w.Node(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.InSelection {
		t.Fatalf("the page tab's traits %+v do not say it is in a Selection parent", tr)
	}
	if c := target.Decide(target.VerbClickRef, w.Probe(ctx), &tr); !c.OK() || c.Road != target.RoadTree {
		t.Fatalf("the law on a page tab: %+v", c)
	}
	from := log.Len()
	if err := w.Act(ctx, n); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, log, from, "the Second page", func(e testenv.Event) bool {
		return e.Type == "page" && e.Widget == "pages" && e.Text == "Second"
	})
	content, _ := nodeOf(t, w, "label", "Content of Second")
	if !content.Has("showing") {
		t.Errorf("the second page's content is not showing: %v", content.States)
	}
}

// On a list that takes several rows, selecting one option alone leaves it
// holding exactly that one — what it held before is cleared, as the
// application's own log says — and several end held exactly.
func TestWindowSelectMultipleHoldsExactly(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	w, log, _ := launchLogged(t, ctx, startDisplay(t, ctx), filepath.Join("testdata", "multilist.py"))
	sel := w.(kind.Selector)
	list, _ := nodeOf(t, w, "list box", "Fruit")
	heldAfter := func(from int, want string) {
		t.Helper()
		// The last "held" event the app logged since from is what it holds.
		waitEvent(t, log, from, "held "+want, func(e testenv.Event) bool { return e.Type == "held" && e.Text == want })
	}
	// GTK holds the first row of such a list when it shows it.
	heldAfter(0, "Apple")
	from := log.Len()
	got, err := sel.Select(ctx, kind.Node{Key: list.Key}, []string{"Banana"})
	if err != nil || !slices.Equal(got, []string{"Banana"}) {
		t.Fatalf("select Banana alone: %q %v", got, err)
	}
	heldAfter(from, "Banana")
	from = log.Len()
	if got, err := sel.Select(ctx, kind.Node{Key: list.Key}, []string{"Cherry", "Apple"}); err != nil || len(got) != 2 {
		t.Fatalf("select Cherry and Apple: %q %v", got, err)
	}
	heldAfter(from, "Apple,Cherry")
	// And what the application holds at the end, by its tree.
	for _, name := range []string{"Apple", "Banana", "Cherry"} {
		row, _ := nodeOf(t, w, "list item", name)
		if row.Has("selected") != (name != "Banana") {
			t.Errorf("%s selected: %v (states %v)", name, row.Has("selected"), row.States)
		}
	}
}
