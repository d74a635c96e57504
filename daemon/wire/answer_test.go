package wire

import (
	"bufio"
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// TestAnswerBeforeTheRequestIsRead: a daemon at its connection limit
// answers busy and hangs up without reading. The client's send then fails
// (EPIPE), and the answer waiting in its receive queue is what Call
// returns, not the broken pipe (issue 11: a quarter of busy refusals
// reached the agent as "write: broken pipe").
func TestAnswerBeforeTheRequestIsRead(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		WriteResponse(c, Response{Code: "busy", Message: "at the limit"})
		c.Close()
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cl, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	<-closed // the peer is gone before we send: the send surely fails
	resp, err := cl.Call(ctx, Request{Verb: "list", Session: "s"})
	if err != nil || resp.Code != "busy" {
		t.Fatalf("Call = %+v, %v; want the busy answer", resp, err)
	}
}

// TestNoAnswerAfterTheRequest: the request went out whole and the
// connection ended before an answer: ErrNoAnswer, which the command lines
// turn into outcome_unknown (or daemon_gone for a verb that only reads).
func TestNoAnswerAfterTheRequest(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		bufio.NewReader(c).ReadString('\n') // the whole request, then die
		c.Close()
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cl, err := Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Call(ctx, Request{Verb: "type", Session: "s"}.With(map[string]string{"text": "x"})); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("Call: %v; want ErrNoAnswer", err)
	}
}
