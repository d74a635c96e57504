package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Client is one connection to a daemon. Not safe for concurrent use: one
// request at a time, as the protocol is.
//
// It dials the Unix socket with the system calls themselves rather than
// package net: net brings in the cgo resolver, and with it dynamic linking
// into every command line's start. The socket is a blocking one, bounded
// by its own send and receive timeouts, rather than an os.File in the
// runtime's poller: a command line makes one call and waits for it, and
// the poller's way (register the descriptor, read until EAGAIN, park,
// wake through epoll, arm and disarm deadline timers) costs it system
// calls and pages of code on every run.
type Client struct {
	fd     int
	r      *bufio.Reader
	closed func() error // FromFD's: run after the socket is closed
}

// ErrNoDaemon is returned by Dial when nothing answers on the socket.
var ErrNoDaemon = errors.New("no daemon answers")

// ErrNoAnswer is in the error of a Call whose request was sent whole and
// whose connection then ended (EOF, reset) before an answer came: the
// daemon was killed, stopped or restarted meanwhile, and may have acted on
// the request in part or in whole. A request that could not be sent whole
// was never read by the daemon (it reads a request to its newline before
// acting), so a failure to send is not ErrNoAnswer.
var ErrNoAnswer = errors.New("the connection ended before the daemon answered")

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
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("%w on %s: %w", ErrNoDaemon, socket, os.NewSyscallError("fcntl", err))
	}
	cl := &Client{fd: fd}
	cl.r = bufio.NewReaderSize(fdReader{cl}, 64<<10)
	return cl, nil
}

// Call sends one request and reads its answer, both bounded by ctx.
func (cl *Client) Call(ctx context.Context, req Request) (Response, error) {
	var timeout time.Duration // 0: unbounded
	if dl, ok := ctx.Deadline(); ok {
		if timeout = time.Until(dl); timeout < time.Microsecond {
			timeout = -1 // over already
		}
	}
	// The timeouts end a call at ctx's deadline; a cancelled ctx shuts the
	// socket down, which wakes a read or write blocked on it (never once
	// Call has returned: the descriptor may be closed and reused by then).
	var mu sync.Mutex
	returned := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !returned && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			syscall.Shutdown(cl.fd, syscall.SHUT_RDWR)
		}
	})
	defer func() {
		stop()
		mu.Lock()
		returned = true
		mu.Unlock()
	}()
	err := ctx.Err()
	if err == nil && timeout < 0 {
		err = os.ErrDeadlineExceeded
	}
	if err == nil {
		if err = cl.setTimeout(timeout); err != nil {
			return Response{}, err
		}
		err = cl.write(append(appendRequest(make([]byte, 0, 256), &req), '\n'))
		if err != nil && ctx.Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			// A daemon that answers before reading (busy, at its
			// connection limit) and hangs up fails the send with EPIPE or
			// a reset, while its answer waits in our receive queue: read
			// it rather than report the broken pipe.
			if line, rerr := cl.r.ReadBytes('\n'); rerr == nil {
				return decodeAnswer(line)
			}
			return Response{}, fmt.Errorf("send to daemon: %w", err)
		}
	}
	var line []byte
	if err == nil {
		line, err = cl.r.ReadBytes('\n')
	}
	if err != nil {
		// The socket's timeout is ctx's deadline: it can end a read a
		// moment before ctx's own timer does, so either means "in time"
		// ran out.
		if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
			cause := ctx.Err()
			if cause == nil {
				cause = context.DeadlineExceeded
			}
			return Response{}, fmt.Errorf("the daemon did not answer %s in time: %w", req.Verb, cause)
		}
		return Response{}, fmt.Errorf("read from daemon: %w: %w", ErrNoAnswer, err)
	}
	return decodeAnswer(line)
}

// decodeAnswer decodes one answer line.
func decodeAnswer(line []byte) (Response, error) {
	var resp Response
	if err := decodeResponse(line, &resp); err != nil {
		return Response{}, fmt.Errorf("daemon answered something that is not an answer: %w", err)
	}
	if resp.V != ProtocolVersion {
		return resp, fmt.Errorf("the daemon speaks protocol %d, this client %d: stop it and retry", resp.V, ProtocolVersion)
	}
	return resp, nil
}

// Close closes the connection (and, for FromFD's, ends what is behind it).
func (cl *Client) Close() error {
	err := syscall.Close(cl.fd)
	if cl.closed != nil {
		if cerr := cl.closed(); cerr != nil {
			return cerr
		}
	}
	return err
}

// setTimeout bounds each send and receive by d (0: unbounded).
func (cl *Client) setTimeout(d time.Duration) error {
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
		if err := syscall.SetsockoptTimeval(cl.fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			return fmt.Errorf("set the socket's timeout: %w", os.NewSyscallError("setsockopt", err))
		}
	}
	return nil
}

// write sends b whole.
func (cl *Client) write(b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(cl.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return os.ErrDeadlineExceeded
		case err != nil:
			return os.NewSyscallError("write", err)
		}
		b = b[n:]
	}
	return nil
}

// fdReader reads the socket for the client's bufio.Reader: EAGAIN is the
// receive timeout, and 0 bytes the end.
type fdReader struct{ cl *Client }

func (r fdReader) Read(b []byte) (int, error) {
	for {
		n, err := syscall.Read(r.cl.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
