package atspi

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sockConn is a connected unix socket in blocking mode, read and written
// with plain system calls, outside Go's network poller.
//
// It exists for a walk's CPU: through the poller every reply that finds
// the reader waiting costs a read that fails (EAGAIN), a park, an
// epoll_wait on another thread and a wake-up before the read that gets
// it; a read that blocks in the kernel is woken by the reply itself, and
// one read takes every reply that has come. (The reader goroutine then
// holds a thread while it waits: one per connection.)
//
// A write does not block: one that finds the socket's buffer full waits
// in poll for room, up to the write deadline, and then fails with
// os.ErrDeadlineExceeded, as a net.Conn's would; while it waits, stuck
// says so (wconn.forget kills the connection then). Close shuts the
// socket down, which wakes a blocked read (it answers end of stream) and
// a write waiting for room (it fails with net.ErrClosed); the descriptor
// itself is closed once the reader has seen the end (release) and no
// write holds it, so it is never reused under a call.
type sockConn struct {
	fd   int
	shut atomic.Bool
	full atomic.Bool  // a write found the buffer full and has made no progress since
	use  sync.RWMutex // writes hold it shared; release, exclusive
	wdl  time.Time    // the write deadline (zero: none)
	// fdmu orders Close's shutdown before release's close of the
	// descriptor. Close takes it alone, never use: a write waiting for
	// room, which holds use while release waits for it, is woken only by
	// the shutdown.
	fdmu   sync.Mutex
	closed bool // the descriptor is closed (set under use and fdmu)
	down   bool // shut down (under fdmu)
}

// newSockConn takes the socket of nc (a *net.UnixConn) out of the poller:
// it duplicates the descriptor, closes nc and sets the copy blocking.
func newSockConn(nc net.Conn) (*sockConn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("atspi: not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(s uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
		if e != 0 {
			derr = e
			return
		}
		fd = int(r)
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	nc.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	return &sockConn{fd: fd}, nil
}

// Read is called by one goroutine at a time (the connection's reader).
func (s *sockConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(s.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			if s.shut.Load() {
				return 0, net.ErrClosed
			}
			return 0, os.NewSyscallError("read", err)
		case n == 0 && len(p) > 0:
			if s.shut.Load() {
				return 0, net.ErrClosed
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p or fails. Each write is made without waiting
// (MSG_DONTWAIT); only when the socket's buffer is full does it wait, in
// poll, until it has room or the write deadline passes
// (os.ErrDeadlineExceeded).
func (s *sockConn) Write(p []byte) (int, error) {
	s.use.RLock()
	defer s.use.RUnlock()
	defer s.full.Store(false)
	if s.closed || s.shut.Load() {
		return 0, net.ErrClosed
	}
	done := 0
	for done < len(p) {
		n, err := unix.SendmsgN(s.fd, p[done:], nil, nil, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
		if n > 0 {
			done += n
			s.full.Store(false)
		}
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			s.full.Store(true)
			if err := s.waitWritable(); err != nil {
				return done, err
			}
		case err != nil:
			if s.shut.Load() {
				return done, net.ErrClosed
			}
			return done, os.NewSyscallError("sendmsg", err)
		}
	}
	return done, nil
}

// waitWritable waits until the socket has room or the write deadline
// passes.
func (s *sockConn) waitWritable() error {
	for {
		left := time.Until(s.wdl)
		if s.wdl.IsZero() {
			left = time.Hour
		}
		if left <= 0 {
			return os.ErrDeadlineExceeded
		}
		// poll counts whole milliseconds: round up, never wake early.
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, int((left+time.Millisecond-1)/time.Millisecond))
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return os.NewSyscallError("poll", err)
		case s.shut.Load():
			return net.ErrClosed
		case n > 0:
			return nil // room, or an error the next write reports
		}
	}
}

// stuck reports whether a write is waiting for room: it found the
// socket's buffer full and the peer has taken nothing since.
func (s *sockConn) stuck() bool { return s.full.Load() }

// SetWriteDeadline sets when a write stops waiting for room. Called with
// the writer's lock held (wconn.wmu): it makes no system call.
func (s *sockConn) SetWriteDeadline(t time.Time) error {
	s.wdl = t
	return nil
}

// Close shuts the socket down: a blocked read answers end of stream, a
// write waiting for room fails. The descriptor is closed by release.
func (s *sockConn) Close() error {
	s.shut.Store(true)
	s.fdmu.Lock()
	defer s.fdmu.Unlock()
	if s.closed || s.down {
		return nil
	}
	s.down = true
	return os.NewSyscallError("shutdown", syscall.Shutdown(s.fd, syscall.SHUT_RDWR))
}

// release closes the descriptor once no write holds it: called by the
// reader when it stops reading, after Close.
func (s *sockConn) release() {
	s.use.Lock()
	defer s.use.Unlock()
	s.fdmu.Lock()
	defer s.fdmu.Unlock()
	if !s.closed {
		s.closed = true
		syscall.Close(s.fd)
	}
}
