package daemon

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"runtime/debug"
	"time"
)

// writeTimeout bounds writing one answer to a client that stopped reading.
const writeTimeout = 10 * time.Second

// serveConn answers one client: a request per line, an answer per line. A
// malformed or oversized request gets an error answer and the connection is
// closed; other connections are not affected. A client that sends no whole
// request within Config.IdleTimeout is hung up on.
func (d *Daemon) serveConn(ctx context.Context, c net.Conn) {
	defer func() {
		if p := recover(); p != nil {
			d.cfg.Logger.Error("a connection's handler panicked", "panic", p, "stack", string(debug.Stack()))
		}
		c.Close()
		d.mu.Lock()
		delete(d.conns, c)
		d.mu.Unlock()
		d.leave(c)
		d.wg.Done()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		c.SetReadDeadline(time.Now().Add(d.cfg.IdleTimeout))
		d.waiting(c)
		req, err := ReadRequest(r, d.cfg.MaxRequest)
		if err == nil && !d.serving(c) {
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
			d.cfg.Logger.Info("bad request", "err", err)
			c.SetWriteDeadline(time.Now().Add(writeTimeout))
			WriteResponse(c, refusal(err))
			return
		}
		c.SetReadDeadline(time.Time{})
		resp := d.handleWatched(ctx, c, r, req)
		c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := WriteResponse(c, resp); err != nil {
			return
		}
	}
}

// handleWatched answers req while watching the connection: a client that
// hangs up (a CLI killed by its caller's timeout) cancels its verb.
func (d *Daemon) handleWatched(ctx context.Context, c net.Conn, r *bufio.Reader, req Request) Response {
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
	resp := d.Handle(ctx, req)
	c.SetReadDeadline(time.Unix(1, 0))
	<-watched
	c.SetReadDeadline(time.Time{})
	return resp
}

// refuseConn answers a connection admit refused with why (busy) and hangs
// up, without reading its request.
func (d *Daemon) refuseConn(c net.Conn, why error) {
	d.refused()
	c.SetWriteDeadline(time.Now().Add(time.Second))
	WriteResponse(c, refusal(why))
	c.Close()
}
