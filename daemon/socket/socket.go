// Package socket serves the daemon's Unix socket: one JSON request per line
// and one answer per line, for a handler it is given (Handler; the daemon's
// core is one). It keeps the socket's promises on its own: the socket mode
// 0600 in a 0700 directory, a stale socket file replaced, a bound on a
// request's line and on the wait for it, a ceiling on the connections
// served at once (and on one process's share) with its busy answer, a
// client that hangs up cancelling its request, and on Close every
// connection closed and no goroutine of its own left. It never imports the
// core.
package socket

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Handler answers one request. The context ends when the client hangs up
// before its answer, or when the Serve's context ends.
type Handler interface {
	Handle(ctx context.Context, req wire.Request) wire.Response
}

// Options are the socket's path and bounds. Every bound must be set (the
// daemon's Config fills them).
type Options struct {
	Path            string
	MaxRequest      int           // bytes of one request line
	IdleTimeout     time.Duration // bound on reading one whole request
	MaxConns        int           // connections served at once
	MaxConnsPerPeer int           // connections one process holds at once
	Logger          *slog.Logger  // nil discards
}

// Server is a listening socket. Make it with Listen, serve on it with
// Serve, stop it with Close.
type Server struct {
	opt   Options
	ln    net.Listener
	slots chan struct{} // one slot per connection served (Options.MaxConns)
	gate  connGate      // who holds the slots (connlimit.go)

	mu     sync.Mutex // guards closed and conns
	closed bool
	conns  map[net.Conn]struct{}

	wg   sync.WaitGroup // the connections' goroutines and Serve's watch on its context
	stop chan struct{}
}

// Listen opens the socket (mode 0600, in a 0700 directory). A socket file
// left by a daemon that died is replaced: the caller holds what proves
// nobody else serves it (the daemon's lock).
func Listen(opt Options) (*Server, error) {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	dir := filepath.Dir(opt.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("daemon: socket dir: %w", err)
	}
	os.Remove(opt.Path)
	ln, err := net.Listen("unix", opt.Path)
	if err != nil {
		return nil, fmt.Errorf("daemon: listen: %w", err)
	}
	if err := os.Chmod(opt.Path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("daemon: chmod socket: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return &Server{
		opt:   opt,
		ln:    ln,
		slots: make(chan struct{}, opt.MaxConns),
		conns: make(map[net.Conn]struct{}),
		stop:  make(chan struct{}),
	}, nil
}

// Path is where the server listens.
func (s *Server) Path() string { return s.opt.Path }

// Serve answers clients with h until ctx ends or Close is called. When ctx
// ends it stops accepting; the connections it serves are closed by Close.
func (s *Server) Serve(ctx context.Context, h Handler) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		select {
		case <-ctx.Done():
			s.ln.Close()
		case <-s.stop:
		}
	}()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.stop:
				return nil
			default:
			}
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			s.opt.Logger.Warn("accept", "err", err)
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return nil
		}
		if err := s.admit(c); err != nil {
			s.mu.Unlock()
			s.refuseConn(c, err)
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(ctx, h, c)
	}
}

// Close stops serving: no new connection, every connection closed, the
// socket file removed; it returns once every goroutine of the server has
// ended. It is safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	os.Remove(s.opt.Path)
	s.wg.Wait()
}

// refusal is the answer of a connection's refusal (a bad request, busy).
func refusal(err error) wire.Response {
	r, ok := target.AsRefusal(err)
	if !ok {
		r = target.Refuse(target.CodeInternal, "%v", err)
	}
	return wire.Response{V: wire.ProtocolVersion, Code: r.Code, Message: r.Message, Facts: r.Facts}
}
