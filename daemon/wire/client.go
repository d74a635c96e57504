package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
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
	// local: Dial connected fd to a daemon's socket on this host, so its
	// process can be looked at while an answer is awaited (watchAnswer).
	// A FromFD client's peer is a bridge (ssh to another host): there is
	// no daemon process here to look at.
	local bool
	pid   int // the daemon's, from the socket's peer credentials; 0 not read yet, -1 unknown
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

// ErrStopped is in the error of a Call to a daemon on this host (one Dial
// reached) whose process, while the answer was awaited, stayed stopped
// (SIGSTOP, SIGTSTP, or held by a debugger) for StoppedFor, or was gone:
// the call gives up then rather than at its deadline. The request was sent
// whole: a stopped daemon may still act on it once it runs again. Its
// error is a *StoppedError, which is ErrNoAnswer too.
var ErrStopped = errors.New("the daemon's process is stopped and not answering")

// How a Call watches the daemon's process while it awaits the answer (on
// this host only): it looks at /proc/<pid>/stat every WatchEvery, and gives
// up once the process was seen stopped at every look for StoppedFor, or at
// once when it is gone.
const (
	WatchEvery = 250 * time.Millisecond
	StoppedFor = 3 * time.Second
)

// StoppedError is a Call's error when the daemon's process was stopped
// (State "T" or "t" in /proc/PID/stat) for StoppedFor while the answer was
// awaited, or gone (State "" when /proc has no such process, "Z" for a
// zombie).
type StoppedError struct {
	PID   int
	State string
	Verb  string
}

func (e *StoppedError) Error() string {
	if e.Stopped() {
		return fmt.Sprintf("the daemon's process (pid %d) is stopped (state %s in /proc/%d/stat: SIGSTOP, or a debugger) and did not answer %s within %v",
			e.PID, e.State, e.PID, e.Verb, StoppedFor)
	}
	return fmt.Sprintf("the daemon's process (pid %d) is gone and did not answer %s", e.PID, e.Verb)
}

// Stopped reports whether the process is there, stopped (else it is gone).
func (e *StoppedError) Stopped() bool { return e.State == "T" || e.State == "t" }

// Is makes a StoppedError both ErrStopped and ErrNoAnswer.
func (e *StoppedError) Is(target error) bool { return target == ErrStopped || target == ErrNoAnswer }

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
	cl := &Client{fd: fd, local: true}
	cl.r = bufio.NewReaderSize(fdReader{cl}, 64<<10)
	return cl, nil
}

// Call sends one request and reads its answer, both bounded by ctx.
func (cl *Client) Call(ctx context.Context, req Request) (Response, error) {
	var timeout time.Duration // 0: unbounded
	dl, _ := ctx.Deadline()
	if !dl.IsZero() {
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
	recv := timeout
	if err == nil && timeout < 0 {
		err = os.ErrDeadlineExceeded
	}
	if err == nil {
		if cl.local {
			recv = watchSlice(timeout) // readAnswer looks at the daemon between slices
		}
		if err = cl.setTimeouts(timeout, recv); err != nil {
			return Response{}, err
		}
		var line []byte
		if line, err = requestLine(&req); err != nil {
			return Response{}, err
		}
		err = cl.write(line)
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
		line, err = cl.readAnswer(dl, recv, req.Verb)
	}
	var stopped *StoppedError
	if errors.As(err, &stopped) {
		return Response{}, err
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

// readAnswer reads the answer's line by end (zero: unbounded), the
// socket's receive timeout already set by Call to slice. A local client
// (Dial's) reads it in slices of WatchEvery (watchSlice) and looks at the
// daemon's process between them: a daemon stopped for StoppedFor, or
// gone, ends the wait with a *StoppedError. A stopped process keeps its socket, and the
// kernel queues what we send it, so without this a call to a daemon
// someone stopped (kill -STOP, Ctrl-Z in the terminal running it, a
// debugger) would wait out its whole deadline. A bridge's client (FromFD:
// the daemon of another host, over ssh) has no process here to look at and
// waits as before, until the deadline.
func (cl *Client) readAnswer(end time.Time, slice time.Duration, verb string) ([]byte, error) {
	watch := cl.local && slice == WatchEvery
	var line []byte
	var stoppedSince time.Time
	for {
		part, err := cl.r.ReadBytes('\n')
		line = append(line, part...)
		if !watch || !errors.Is(err, os.ErrDeadlineExceeded) {
			return line, err // answered, ended, or out of time
		}
		next := WatchEvery
		if !end.IsZero() {
			left := time.Until(end)
			if left < time.Microsecond {
				return line, err
			}
			if left <= WatchEvery {
				watch, next = false, left // the last slice
			}
		}
		if pid := cl.peerPID(); pid <= 0 {
			watch, next = false, 0 // no process to look at: wait as before
			if !end.IsZero() {
				next = max(time.Until(end), time.Microsecond) // (0 would be unbounded)
			}
		} else {
			state, gone := ProcState(pid)
			switch {
			case gone:
				return line, &StoppedError{PID: pid, State: state, Verb: verb}
			case state != "T" && state != "t":
				stoppedSince = time.Time{}
			case stoppedSince.IsZero():
				stoppedSince = time.Now()
			case time.Since(stoppedSince) >= StoppedFor:
				return line, &StoppedError{PID: pid, State: state, Verb: verb}
			}
		}
		if next != slice {
			if err := cl.setTimeouts(-1, next); err != nil {
				return line, err
			}
			slice = next
		}
	}
}

// watchSlice is a local call's first receive timeout, for a call bounded
// by timeout (0: unbounded): WatchEvery, or timeout when that is less.
func watchSlice(timeout time.Duration) time.Duration {
	if timeout > 0 && timeout < WatchEvery {
		return timeout
	}
	return WatchEvery
}

// peerPID is the daemon's process id, from the socket's peer credentials
// (those of the process that listens, even before it accepted us); -1 when
// they cannot be read.
func (cl *Client) peerPID() int {
	if cl.pid == 0 {
		cl.pid = -1
		if u, err := syscall.GetsockoptUcred(cl.fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil && u.Pid > 0 {
			cl.pid = int(u.Pid)
		}
	}
	return cl.pid
}

// ProcState is the state letter of process pid in /proc/<pid>/stat ("R",
// "S", "T" stopped, "t" stopped by a tracer, "Z" a zombie, …), and whether
// the process is gone ("" and true when /proc has no such process; a
// zombie is gone too). A /proc that cannot be read says nothing: "", false.
func ProcState(pid int) (state string, gone bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH)
	}
	// "pid (comm) S …": comm may hold spaces and parentheses; the state
	// follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return "", false
	}
	state = string(b[i+2])
	return state, state == "Z" || state == "X" || state == "x"
}

// requestLine is req's line as the daemon reads it (DecodeRequest): what
// json.Marshal writes, and a newline.
func requestLine(req *Request) ([]byte, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return append(b, '\n'), nil
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

// setTimeouts bounds each send by send and each receive by recv (0:
// unbounded; below 0: left as it is).
func (cl *Client) setTimeouts(send, recv time.Duration) error {
	for _, o := range []struct {
		opt int
		d   time.Duration
	}{{syscall.SO_SNDTIMEO, send}, {syscall.SO_RCVTIMEO, recv}} {
		if o.d < 0 {
			continue
		}
		tv := syscall.NsecToTimeval(o.d.Nanoseconds())
		if err := syscall.SetsockoptTimeval(cl.fd, syscall.SOL_SOCKET, o.opt, &tv); err != nil {
			return fmt.Errorf("set the socket's timeout: %w", os.NewSyscallError("setsockopt", err))
		}
	}
	return nil
}

// setTimeout bounds each send and receive by d (0: unbounded).
func (cl *Client) setTimeout(d time.Duration) error { return cl.setTimeouts(d, d) }

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
