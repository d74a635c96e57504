package atspi_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// An application that stops answering costs a walk its deadline, no more:
// the answer carries an unreadable marker, a walk of another application
// at the same time is whole, and once the application runs again the tree
// is whole again.
func TestFrozenApp(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{CallTimeout: time.Second})
	frozen := fixture(t, d)
	other := fixture(t, d)
	fFrozen := frameOf(t, b, frozen.App)
	fOther := frameOf(t, b, other.App)
	whole := settled(t, b, fFrozen.Object)
	wholeOther := settled(t, b, fOther.Object)

	// How long a slow walk (few calls in flight) of the app takes, to
	// place a SIGSTOP inside one.
	slow := atspi.WalkOptions{InFlight: 4}
	t0 := time.Now()
	walk(t, b, fFrozen.Object, slow)
	slowTook := time.Since(t0)

	const deadline = 3 * time.Second
	wo := atspi.WalkOptions{Timeout: deadline}
	// A generous bound for "within the deadline" on a loaded machine: the
	// deadline plus the time to hand back what was read.
	bound := deadline + 2*time.Second

	for _, mid := range []bool{false, true} {
		name := map[bool]string{false: "frozen before the walk", true: "frozen mid-walk"}[mid]
		t.Run(name, func(t *testing.T) {
			type result struct {
				s    *target.Snapshot
				took time.Duration
			}
			frozenDone := make(chan result, 1)
			if !mid {
				if err := frozen.Signal(syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { frozen.Signal(syscall.SIGCONT) })
			start := time.Now()
			stopped := make(chan error, 1)
			if mid {
				// A third of the way into a slow walk.
				time.AfterFunc(slowTook/3, func() { stopped <- frozen.Signal(syscall.SIGSTOP) })
			} else {
				stopped <- nil
			}
			go func() {
				wo := wo
				if mid {
					wo.InFlight = slow.InFlight
				}
				s, _ := b.Walk(t.Context(), fFrozen.Object, wo)
				frozenDone <- result{s, time.Since(start)}
			}()
			if err := <-stopped; err != nil {
				t.Fatal(err)
			}
			// The other application, walked on the same Bus meanwhile.
			s2 := walk(t, b, fOther.Object, wo)
			if s2.Census != wholeOther.Census || treeLines(s2) != treeLines(wholeOther) {
				t.Errorf("the other app's walk was affected: %+v, want %+v", s2.Census, wholeOther.Census)
			}
			r := <-frozenDone
			if r.s == nil {
				t.Fatal("no snapshot")
			}
			if r.took > bound {
				t.Errorf("the walk of a frozen app took %v, deadline %v", r.took, deadline)
			}
			if mid && r.s.Census.Unreadable == 0 {
				// The walk may have won the race with SIGSTOP; then it must be whole.
				if r.s.Census.Nodes != whole.Census.Nodes {
					t.Errorf("no unreadable marker, yet %d nodes of %d", r.s.Census.Nodes, whole.Census.Nodes)
				}
				t.Logf("the walk finished before SIGSTOP landed (%v)", r.took)
			} else if r.s.Census.Unreadable == 0 {
				t.Errorf("a frozen app gave no unreadable marker: %+v", r.s.Census)
			}
			t.Logf("%s: %+v in %v\n%s", name, r.s.Census, r.took, firstLines(r.s.Text(), 6))

			if err := frozen.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			again := walk(t, b, fFrozen.Object, atspi.WalkOptions{})
			if again.Census != whole.Census || treeLines(again) != treeLines(whole) {
				t.Errorf("after SIGCONT: %+v, want %+v", again.Census, whole.Census)
			}
		})
	}
}

func firstLines(s string, n int) string {
	for i, c := range s {
		if c == '\n' {
			if n--; n == 0 {
				return s[:i]
			}
		}
	}
	return s
}
