package atspi

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// A call whose own write stalls on a frozen application returns only once
// its connection is dead: the next call goes elsewhere, however late the
// connection's reader sees the socket's end. The reader is held here, in
// the function that takes an earlier answer, for the whole test: a
// connection that is only known dead once its reader has ended is still
// the application's route when the call returns, every time.
func TestStalledWriteDeadBeforeItsCallReturns(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, err := Connect(ctx, d.BusAddress, Options{CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	app, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop() })
	var a App
	for {
		if a, err = b.AppByPID(ctx, app.PID); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the fixture never registered: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	rt := b.route(ctx, a.Name)
	if rt.c == b.wbus {
		t.Fatal("the fixture offers no peer socket: nothing to stall")
	}

	// Hold the reader in the function that takes GetRole's answer.
	held, hold := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(hold) }) // runs before b.Close
	rt.c.startFn(time.Now(), "", string(rootPath), ifaceAccessible+".GetRole", nil, func(reply) {
		close(held)
		<-hold
	}, nil)
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("GetRole never answered")
	}

	if err := app.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Signal(syscall.SIGCONT) })
	// One call of 4 MiB, more than a socket buffer holds: its own write
	// stalls until its deadline. (The message is made before the deadline
	// starts: a deadline that passed before the call was written would
	// leave nothing to test.)
	big := string(make([]byte, 4<<20))
	cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
	defer ccancel()
	r := rt.call(cctx, rootPath, "org.vibespace.Test.Nothing", big)
	if got := target.CodeOf(objRefusal(a.Root, "Nothing", r.err)); got != target.CodeTimeout {
		t.Errorf("a call whose write stalled: want refusal %q, got %v", target.CodeTimeout, r.err)
	}
	if next := b.route(ctx, a.Name); next.c == rt.c {
		t.Errorf("the connection whose write stalled is still the application's route once the call returned")
	}
}
