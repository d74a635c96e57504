package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Client is one connection to a daemon. Not safe for concurrent use: one
// request at a time, as the protocol is.
//
// It dials the Unix socket with the system calls themselves rather than
// package net: net brings in the cgo resolver, and with it dynamic linking
// into every command line's start.
type Client struct {
	f *os.File
	r *bufio.Reader
}

// ErrNoDaemon is returned by Dial when nothing answers on the socket.
var ErrNoDaemon = errors.New("no daemon answers")

// connectRetry is the pause before trying a connect again when the
// daemon's backlog is full.
const connectRetry = 5 * time.Millisecond

// Dial connects to the daemon's socket under ctx.
func Dial(ctx context.Context, socket string) (*Client, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %w", ErrNoDaemon, socket, os.NewSyscallError("socket", err))
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: socket})
		if err == syscall.EINTR {
			continue
		}
		if err != syscall.EAGAIN { // EAGAIN: the listener's backlog is full
			break
		}
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(connectRetry):
			continue
		}
		break
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		syscall.Close(fd)
		if _, ok := err.(syscall.Errno); ok {
			err = os.NewSyscallError("connect", err)
		}
		return nil, fmt.Errorf("%w on %s: %w", ErrNoDaemon, socket, err)
	}
	// A non-blocking descriptor: os.File puts it in the runtime's poller,
	// so deadlines bound reads and writes.
	f := os.NewFile(uintptr(fd), socket)
	return &Client{f: f, r: bufio.NewReaderSize(f, 64<<10)}, nil
}

// Call sends one request and reads its answer, both bounded by ctx.
func (cl *Client) Call(ctx context.Context, req Request) (Response, error) {
	if dl, ok := ctx.Deadline(); ok {
		cl.f.SetDeadline(dl)
	} else {
		cl.f.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { cl.f.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	if _, err := cl.f.Write(append(b, '\n')); err != nil {
		return Response{}, fmt.Errorf("send to daemon: %w", err)
	}
	line, err := cl.r.ReadBytes('\n')
	if err != nil {
		// The socket's deadline is ctx's: it can fire a moment before
		// ctx's own timer does, so either means "in time" ran out.
		if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
			cause := ctx.Err()
			if cause == nil {
				cause = context.DeadlineExceeded
			}
			return Response{}, fmt.Errorf("the daemon did not answer %s in time: %w", req.Verb, cause)
		}
		return Response{}, fmt.Errorf("read from daemon: %w", err)
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return Response{}, fmt.Errorf("daemon answered something that is not an answer: %w", err)
	}
	if resp.V != ProtocolVersion {
		return resp, fmt.Errorf("the daemon speaks protocol %d, this client %d: stop it and retry", resp.V, ProtocolVersion)
	}
	return resp, nil
}

// Close closes the connection.
func (cl *Client) Close() error { return cl.f.Close() }
