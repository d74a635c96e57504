package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"
)

// Client is one connection to a daemon. Not safe for concurrent use: one
// request at a time, as the protocol is.
type Client struct {
	c net.Conn
	r *bufio.Reader
}

// ErrNoDaemon is returned by Dial when nothing answers on the socket.
var ErrNoDaemon = errors.New("no daemon answers")

// Dial connects to the daemon's socket under ctx.
func Dial(ctx context.Context, socket string) (*Client, error) {
	var dl net.Dialer
	c, err := dl.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %w", ErrNoDaemon, socket, err)
	}
	return &Client{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

// Call sends one request and reads its answer, both bounded by ctx.
func (cl *Client) Call(ctx context.Context, req Request) (Response, error) {
	if dl, ok := ctx.Deadline(); ok {
		cl.c.SetDeadline(dl)
	} else {
		cl.c.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { cl.c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	if _, err := cl.c.Write(append(b, '\n')); err != nil {
		return Response{}, fmt.Errorf("send to daemon: %w", err)
	}
	line, err := cl.r.ReadBytes('\n')
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("the daemon did not answer %s in time: %w", req.Verb, ctx.Err())
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
func (cl *Client) Close() error { return cl.c.Close() }
