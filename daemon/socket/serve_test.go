package socket

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// TestListenModes: the socket is 0600 in a 0700 directory made for it.
func TestListenModes(t *testing.T) {
	s := startServerWith(t, nil, nil)
	fi, err := os.Stat(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket 0600", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(s.sock))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir mode %v (%v), want 0700", di.Mode(), err)
	}
	wantCode(t, s.call(t, wire.Request{Verb: "status", Session: "a"}), "")
}

// TestStaleSocketReplaced: a socket file left behind (nobody listening)
// does not stop a new server.
func TestStaleSocketReplaced(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "w.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the stale socket is not there: %v", err)
	}
	s := startServerWith(t, nil, func(o *Options) { o.Path = sock })
	wantCode(t, s.call(t, wire.Request{Verb: "status", Session: "a"}), "")
}

// TestBadRequestAnswered: a line that is no request, or one over the bound,
// is answered bad_request and the connection closed.
func TestBadRequestAnswered(t *testing.T) {
	s := startServerWith(t, nil, func(o *Options) { o.MaxRequest = 64 })
	for _, bad := range []string{"not json\n", fmt.Sprintf(`{"verb":"status","session":"%0100d"}`, 0) + "\n"} {
		c, err := net.Dial("unix", s.sock)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, bad)
		r := bufio.NewReader(c)
		line, err := r.ReadBytes('\n')
		var resp wire.Response
		if err == nil {
			err = json.Unmarshal(line, &resp)
		}
		if err != nil || resp.OK || resp.Code != target.CodeBadRequest {
			t.Fatalf("answer to %.20q: %s %v", bad, line, err)
		}
		if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("the connection stays open after a bad request: %v", err)
		}
		c.Close()
	}
}

// TestHangUpCancels: a client that hangs up while its request runs
// cancels the handler's context.
func TestHangUpCancels(t *testing.T) {
	ended := make(chan error, 1)
	s := startServerWith(t, answering{hold: time.Minute, ended: ended}, nil)
	c, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(c, `{"verb":"status","session":"a"}`)
	time.Sleep(100 * time.Millisecond)
	c.Close()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context ended with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the handler's context did not end when its client hung up")
	}
}

// TestCloseEndsAll: Close hangs up on every connection (idle or running a
// request), removes the socket file, and leaves no goroutine of the
// server's.
func TestCloseEndsAll(t *testing.T) {
	before := runtime.NumGoroutine()
	ended := make(chan error, 1)
	s := startServerWith(t, answering{hold: time.Minute, ended: ended}, nil)
	idle, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	busy, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	fmt.Fprintln(busy, `{"verb":"status","session":"a"}`)
	time.Sleep(100 * time.Millisecond)
	s.Close()
	<-s.done
	for _, c := range []net.Conn{idle, busy} {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("a connection outlived Close: read %v", err)
		}
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the running request's context ended with %v", err)
	}
	if _, err := os.Stat(s.sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket file outlived Close: %v", err)
	}
	s.Close() // twice is fine
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Close, %d before the server", n, before)
	}
}
