package socket

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// holdIdle opens n connections that never send a request.
func holdIdle(t *testing.T, sock string, n int) []net.Conn {
	t.Helper()
	var held []net.Conn
	for range n {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		held = append(held, c)
	}
	return held
}

// TestIdleConnectionsYieldTheirSlots: every slot held by a connection that
// sent nothing (issue 11 item 5: 66 idle sockets locked every client out
// for the 30 s idle timeout); a newcomer gets the slot of the one idle
// longest, which is hung up on.
func TestIdleConnectionsYieldTheirSlots(t *testing.T) {
	td := startServerWith(t, nil, func(c *Options) { c.MaxConns, c.MaxConnsPerPeer = 4, 100 })
	held := holdIdle(t, td.sock, 4)
	time.Sleep(idleEvictAfter + 200*time.Millisecond)
	start := time.Now()
	wantCode(t, td.call(t, wire.Request{Verb: "status", Session: "a"}), "")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("status took %v beside the idle connections", took)
	}
	hungUp := 0
	for _, c := range held {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
			hungUp++
		}
	}
	if hungUp != 1 {
		t.Fatalf("%d idle connections were hung up on for one newcomer, want 1", hungUp)
	}
}

// TestOneProcessGetsItsShare: a process past its share of the slots is
// refused busy, naming it, while its connections are fresh; the slots it
// did not get serve others.
func TestOneProcessGetsItsShare(t *testing.T) {
	td := startServerWith(t, nil, func(c *Options) { c.MaxConns, c.MaxConnsPerPeer = 8, 2 })
	holdIdle(t, td.sock, 2)
	resp := td.call(t, wire.Request{Verb: "status", Session: "a"})
	if resp.Code != target.CodeBusy || resp.Facts["pid"] == nil {
		t.Fatalf("a third connection of one process: %+v", resp)
	}
	// Its own idle connections yield to it once they have waited.
	time.Sleep(idleEvictAfter + 200*time.Millisecond)
	wantCode(t, td.call(t, wire.Request{Verb: "status", Session: "a"}), "")
}
