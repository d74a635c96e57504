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
// Writes are bounded by the socket's send timeout (SO_SNDTIMEO), which
// SetWriteDeadline sets to the time left until its deadline: a timeout of
// each write, not a point in time, so a write made later than the deadline
// was set is bounded as long again (the connection moves it on with its
// calls' deadlines). A write that runs out of it fails with
// os.ErrDeadlineExceeded. Close shuts the socket down, which wakes a
// blocked read (it answers end of stream) and a blocked write; the
// descriptor itself is closed once the reader has seen the end (release)
// and no write holds it, so it is never reused under a call.
type sockConn struct {
	fd     int
	shut   atomic.Bool
	use    sync.RWMutex // writes hold it shared; release, exclusive
	closed bool         // the descriptor is closed (under use)
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

// Write writes all of p or fails.
func (s *sockConn) Write(p []byte) (int, error) {
	s.use.RLock()
	defer s.use.RUnlock()
	if s.closed || s.shut.Load() {
		return 0, net.ErrClosed
	}
	done := 0
	for done < len(p) {
		n, err := syscall.Write(s.fd, p[done:])
		if n > 0 {
			done += n
		}
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return done, os.ErrDeadlineExceeded // SO_SNDTIMEO ran out
		case err != nil:
			if s.shut.Load() {
				return done, net.ErrClosed
			}
			return done, os.NewSyscallError("write", err)
		}
	}
	return done, nil
}

// SetWriteDeadline bounds the writes from now on by t (as a timeout from
// now: the socket's send timeout). Called with the writer's lock held.
func (s *sockConn) SetWriteDeadline(t time.Time) error {
	d := max(time.Until(t), time.Millisecond)
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	s.use.RLock()
	defer s.use.RUnlock()
	if s.closed {
		return net.ErrClosed
	}
	return os.NewSyscallError("setsockopt", syscall.SetsockoptTimeval(s.fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv))
}

// Close shuts the socket down: a blocked read answers end of stream, a
// blocked write fails. The descriptor is closed by release.
func (s *sockConn) Close() error {
	if s.shut.Swap(true) {
		return nil
	}
	s.use.RLock()
	defer s.use.RUnlock()
	if s.closed {
		return nil
	}
	return os.NewSyscallError("shutdown", syscall.Shutdown(s.fd, syscall.SHUT_RDWR))
}

// release closes the descriptor once no write holds it: called by the
// reader when it stops reading, after Close.
func (s *sockConn) release() {
	s.use.Lock()
	defer s.use.Unlock()
	if !s.closed {
		s.closed = true
		syscall.Close(s.fd)
	}
}
