package wire

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClient dials a listener on a real Unix socket: one answered request,
// then one the peer never answers (the deadline ends it), then a socket
// nothing listens on.
func TestClient(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan Request, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					req, err := ReadRequest(r, 1<<20)
					if err != nil {
						return
					}
					got <- req
					if req.Verb == "hang" {
						r.ReadByte() // until the client closes
						return
					}
					WriteResponse(c, Response{OK: true, Did: "did " + req.Verb + " for " + req.Session})
				}
			}()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cl.Call(ctx, Request{Verb: "status", Session: "s1"})
	if err != nil || !resp.OK || resp.Did != "did status for s1" || resp.V != ProtocolVersion {
		t.Fatalf("answer: %+v %v", resp, err)
	}
	if req := <-got; req.Verb != "status" || req.Session != "s1" {
		t.Fatalf("the peer read %+v", req)
	}
	short, scancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = cl.Call(short, Request{Verb: "hang", Session: "s1"})
	scancel()
	if err == nil || !strings.Contains(err.Error(), "did not answer hang in time") {
		t.Fatalf("an unanswered request: %v", err)
	}
	cl.Close()

	_, err = Dial(ctx, filepath.Join(t.TempDir(), "none.sock"))
	if !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("nothing listening: %v", err)
	}
}

// TestClientCancel: a call whose ctx is cancelled (not timed out) while it
// waits ends at once as not answered in time, and the daemon's side sees
// the connection end, as it does when a command line is killed.
func TestClientCancel(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hungUp := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			hungUp <- err
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		if _, err := ReadRequest(r, 1<<20); err != nil {
			hungUp <- err
			return
		}
		_, err = r.ReadByte() // never answers; waits for the client's end
		hungUp <- err
	}()
	cl, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bound, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	ctx, cancel := context.WithCancel(bound)
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = cl.Call(ctx, Request{Verb: "hang", Session: "s1"})
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "did not answer hang in time") {
		t.Fatalf("a cancelled call: %v", err)
	}
	select {
	case err := <-hungUp:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("the daemon's side read %v, want the end of the connection", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon's side never saw the connection end")
	}
}
