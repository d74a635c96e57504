package atspi_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/atspi"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// stallBound is how long a test waits for a call or walk that is bounded
// by a deadline of a few seconds before calling it a stall. It is not a
// speed assertion: only a walk that never returns (a blocked write, a lost
// reply) comes near it.
const stallBound = 60 * time.Second

// frozenAfter is the answer after which the mid-walk case stops the
// application: past the root's own questions, far from the walk's end.
const frozenAfter = 20

// An application that stops answering costs a walk its deadline, no more:
// the answer carries an unreadable marker and keeps what was read before
// the freeze, a walk of another application at the same time is whole,
// and once the application runs again the tree is whole again.
func TestFrozenApp(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{CallTimeout: time.Second})
	frozen := fixture(t, d)
	other := fixture(t, d)
	fFrozen := frameOf(t, b, frozen.App)
	fOther := frameOf(t, b, other.App)
	whole := settled(t, b, fFrozen.Object)
	wholeOther := settled(t, b, fOther.Object)
	byKey := map[string]*target.Node{}
	whole.Root.Walk(func(n *target.Node, _ int) bool { byKey[n.Key] = n; return true })
	if whole.Census.Nodes < 4*frozenAfter {
		t.Fatalf("the fixture's tree is too small (%d nodes) to freeze it mid-walk", whole.Census.Nodes)
	}

	wo := atspi.WalkOptions{Timeout: 3 * time.Second}
	for _, mid := range []bool{false, true} {
		name := map[bool]string{false: "frozen before the walk", true: "frozen mid-walk"}[mid]
		t.Run(name, func(t *testing.T) {
			t.Cleanup(func() { frozen.Signal(syscall.SIGCONT) })
			o := wo
			var stopErr error
			if mid {
				// Few calls in flight, and SIGSTOP from inside the walk's
				// own loop once it has its first answers: the freeze lands
				// mid-walk every time.
				o.InFlight = 4
				o = atspi.WithAnswerHook(o, frozenAfter, func() { stopErr = frozen.Signal(syscall.SIGSTOP) })
			} else if err := frozen.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			frozenDone := make(chan *target.Snapshot, 1)
			go func() {
				s, _ := b.Walk(t.Context(), fFrozen.Object, o)
				frozenDone <- s
			}()
			// The other application, walked on the same Bus meanwhile.
			s2 := walk(t, b, fOther.Object, wo)
			if s2.Census != wholeOther.Census || treeLines(s2) != treeLines(wholeOther) {
				t.Errorf("the other app's walk was affected: %+v, want %+v", s2.Census, wholeOther.Census)
			}
			var s *target.Snapshot
			select {
			case s = <-frozenDone:
			case <-time.After(stallBound):
				t.Fatalf("the walk of a frozen app stalled (deadline %v, waited %v)", wo.Timeout, stallBound)
			}
			if stopErr != nil {
				t.Fatal(stopErr)
			}
			if s == nil {
				t.Fatal("no snapshot")
			}
			if s.Census.Unreadable == 0 {
				t.Errorf("a frozen app gave no unreadable marker: %+v", s.Census)
			}
			if mid {
				checkReadBeforeFreeze(t, s, byKey)
			}
			t.Logf("%s: %+v\n%s", name, s.Census, firstLines(s.Text(), 6))

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

// checkReadBeforeFreeze checks that a walk cut short by a freeze kept what
// it read before: the root and more, each node as in the whole tree.
func checkReadBeforeFreeze(t *testing.T, s *target.Snapshot, whole map[string]*target.Node) {
	t.Helper()
	if s.Root.Unreadable != "" {
		t.Fatalf("the root was read before the freeze, yet it is unreadable: %s", s.Root.Unreadable)
	}
	readable := 0
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Unreadable != "" {
			return true
		}
		readable++
		w := whole[n.Key]
		switch {
		case w == nil:
			t.Errorf("node %s %q (%s) is not in the whole tree", n.Role, n.Name, n.Key)
		case w.Role != n.Role || w.Name != n.Name:
			t.Errorf("node %s: %s %q, whole tree has %s %q", n.Key, n.Role, n.Name, w.Role, w.Name)
		}
		return true
	})
	if readable < 2 {
		t.Errorf("only %d readable nodes: the nodes read before the freeze were lost\n%s", readable, s.Text())
	}
}

// Writes to an application that stopped reading are bounded too: once its
// socket buffer is full a write would block, and every caller queued behind
// it. The calls return as timeouts (not stale_ref: the application is
// there), and once the application runs again it is walked whole.
func TestFrozenAppWrites(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{CallTimeout: time.Second})
	app := fixture(t, d)
	fr := frameOf(t, b, app.App)
	whole := settled(t, b, fr.Object) // the peer socket is open

	if err := app.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Signal(syscall.SIGCONT) })

	stallingCalls(t, b, fr.Object, 0, nil)

	if err := app.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	again := walk(t, b, fr.Object, atspi.WalkOptions{})
	if again.Census != whole.Census || treeLines(again) != treeLines(whole) {
		t.Errorf("after SIGCONT: %+v, want %+v", again.Census, whole.Census)
	}
}

// A write that stalls on an application that stopped reading may leave
// part of a message in the socket's buffer: from the first call that
// gives up on such a connection, no call may be written on it again (the
// application would read the rest of the half-written message out of it),
// and that holds before that first call returns its timeout. The calls'
// own deadline (3 s) comes long before the stalled write's: a call made
// before the freeze, under a call timeout of 30 s, sets the connection's
// write deadline 30 s on, so a connection that dies only when the stalled
// write gives up is still the application's route when the first call
// returns, every time.
func TestFrozenAppStalledWriteKillsConnection(t *testing.T) {
	d := testenv.SharedDesktop(t)
	b := connect(t, d, atspi.Options{CallTimeout: 30 * time.Second})
	app := fixture(t, d)
	fr := frameOf(t, b, app.App)
	whole := settled(t, b, fr.Object)
	old, peer := b.RouteConn(t.Context(), fr.Object.Name)
	if !peer {
		t.Fatal("the fixture offers no peer socket: nothing to stall")
	}
	if err := b.CallRaw(t.Context(), fr.Object, "org.freedesktop.DBus.Peer.Ping"); err != nil {
		t.Fatalf("ping: %v", err)
	}

	if err := app.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Signal(syscall.SIGCONT) })

	stallingCalls(t, b, fr.Object, 3*time.Second, func() {
		if now, _ := b.RouteConn(t.Context(), fr.Object.Name); now == old {
			t.Errorf("once a call has timed out on a stalled write, the next call would be written on the same connection, behind the stalled message")
		}
	})

	if err := app.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// The walk after the freeze, and the one after it (on a new peer
	// socket), read the whole tree.
	for range 2 {
		again := walk(t, b, fr.Object, atspi.WalkOptions{})
		if again.Census != whole.Census || treeLines(again) != treeLines(whole) {
			t.Errorf("after SIGCONT: %+v, want %+v", again.Census, whole.Census)
		}
	}
	if now, peer := b.RouteConn(t.Context(), fr.Object.Name); !peer || now == old {
		t.Errorf("after SIGCONT the application is not reached on a new peer socket (peer %v, same connection %v)", peer, now == old)
	}
}

// stallingCalls makes 32 calls of 64 KiB each to o, an object of a
// frozen application, at once: far more than a socket buffer holds, so
// one of them stalls part written. Each call is bounded by timeout (0:
// the Bus's call timeout alone) and must fail as a timeout; first, if not
// nil, runs as soon as the first has returned. It returns once all have.
func stallingCalls(t *testing.T, b *atspi.Bus, o atspi.Object, timeout time.Duration, first func()) {
	t.Helper()
	const calls = 32
	big := string(make([]byte, 64<<10))
	errs := make(chan error, calls)
	for range calls {
		go func() {
			ctx, cancel := t.Context(), context.CancelFunc(func() {})
			if timeout > 0 {
				ctx, cancel = context.WithTimeout(ctx, timeout)
			}
			defer cancel()
			errs <- b.CallRaw(ctx, o, "org.vibespace.Test.Nothing", big)
		}()
	}
	ctx, cancel := context.WithTimeout(t.Context(), stallBound)
	defer cancel()
	for i := range calls {
		select {
		case err := <-errs:
			if got := target.CodeOf(err); got != target.CodeTimeout {
				t.Errorf("call %d to a frozen app: want refusal %q, got %v", i, target.CodeTimeout, err)
			}
			if i == 0 && first != nil {
				first()
			}
		case <-ctx.Done():
			t.Fatalf("%d of %d calls to a frozen app never returned: a write stalled", calls-i, calls)
		}
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
