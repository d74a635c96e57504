package socket

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"runtime/debug"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
)

// writeTimeout bounds writing one answer to a client that stopped reading.
const writeTimeout = 10 * time.Second

// serveConn answers one client: a request per line, an answer per line. A
// malformed or oversized request gets an error answer and the connection is
// closed; other connections are not affected. A client that sends no whole
// request within Options.IdleTimeout is hung up on.
func (s *Server) serveConn(ctx context.Context, h Handler, c net.Conn) {
	defer func() {
		if p := recover(); p != nil {
			s.opt.Logger.Error("a connection's handler panicked", "panic", p, "stack", string(debug.Stack()))
		}
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.leave(c)
		s.wg.Done()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		c.SetReadDeadline(time.Now().Add(s.opt.IdleTimeout))
		s.waiting(c)
		req, err := wire.ReadRequest(r, s.opt.MaxRequest)
		if err == nil && !s.serving(c) {
			return // let go for a newcomer as the request came: it never ran
		}
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) {
				return // the connection broke or idled out; nobody to answer
			}
			s.opt.Logger.Info("bad request", "err", err)
			c.SetWriteDeadline(time.Now().Add(writeTimeout))
			wire.WriteResponse(c, refusal(err))
			return
		}
		c.SetReadDeadline(time.Time{})
		resp := handleWatched(ctx, h, c, r, req)
		c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := wire.WriteResponse(c, resp); err != nil {
			return
		}
	}
}

// handleWatched answers req while watching the connection: a client that
// hangs up (a CLI killed by its caller's timeout) cancels its verb.
func handleWatched(ctx context.Context, h Handler, c net.Conn, r *bufio.Reader, req wire.Request) wire.Response {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if _, err := r.Peek(1); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return // our own wake-up below
			}
			cancel() // EOF or a broken connection: nobody waits for the answer
		}
	}()
	resp := h.Handle(ctx, req)
	c.SetReadDeadline(time.Unix(1, 0))
	<-watched
	c.SetReadDeadline(time.Time{})
	return resp
}

// refuseConn answers a connection admit refused with why (busy) and hangs
// up, without reading its request.
func (s *Server) refuseConn(c net.Conn, why error) {
	s.refused()
	c.SetWriteDeadline(time.Now().Add(time.Second))
	wire.WriteResponse(c, refusal(why))
	c.Close()
}
