package cdp

import (
	"context"
	"fmt"
	"sync"

	proto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdptarget "github.com/chromedp/cdproto/target"
)

// Both kinds of CDP session run cdproto's generated commands and events.
var (
	_ proto.Session = (*Conn)(nil)
	_ proto.Session = (*Session)(nil)
)

// Session is a flat-mode CDP session with one target (a tab): the same
// connection, with the session's id on every message. It implements
// github.com/chromedp/cdproto/cdp.Session. Safe for concurrent use.
type Session struct {
	conn     *Conn
	id       string
	targetID string
	gone     chan struct{}
	goneOnce sync.Once
}

// Attach attaches to a target in flat mode (Target.attachToTarget with
// flatten: true) and returns its session.
func (c *Conn) Attach(ctx context.Context, targetID string) (*Session, error) {
	var res cdptarget.AttachToTargetResult
	err := c.Call(ctx, cdptarget.CommandAttachToTarget, &cdptarget.AttachToTargetParams{
		TargetID: cdptarget.ID(targetID),
		Flatten:  new(true),
	}, &res)
	if err != nil {
		return nil, err
	}
	s := &Session{conn: c, id: string(res.SessionID), targetID: targetID, gone: make(chan struct{})}
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return nil, fmt.Errorf("cdp: attach: %w", c.Err())
	default:
	}
	c.sessions[s.id] = s
	c.mu.Unlock()
	return s, nil
}

// ID is the CDP sessionId.
func (s *Session) ID() string { return s.id }

// TargetID is the id of the target the session is attached to.
func (s *Session) TargetID() string { return s.targetID }

// Conn is the connection the session runs on.
func (s *Session) Conn() *Conn { return s.conn }

// Gone is closed when the session ended: the target closed or crashed, it
// was detached, or the connection closed.
func (s *Session) Gone() <-chan struct{} { return s.gone }

func (s *Session) markGone() { s.goneOnce.Do(func() { close(s.gone) }) }

// Call runs method with params on the session's target and decodes the
// result into result (a pointer, or nil to discard it). Once the session
// has ended it returns ErrSessionGone at once, and a call in flight when it
// ends returns it too.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.conn.call(ctx, s.id, s.gone, method, params, result)
}

// send writes a command to the session's target without waiting for its
// reply (Conn.send): commands sent one after another from one goroutine
// run in that order, so a few can be pipelined and their replies read with
// wait.
func (s *Session) send(ctx context.Context, method string, params any) (*inflight, error) {
	return s.conn.send(ctx, s.id, s.gone, method, params)
}

// wait reads the reply of a command sent with send (Conn.wait).
func (s *Session) wait(ctx context.Context, p *inflight, result any) error {
	return s.conn.wait(ctx, s.gone, p, result)
}

// Subscribe buffers the session's events of method until cancel is called
// or the connection closes.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return s.conn.subscribe(s.id, method)
}

// Detach ends the session (Target.detachFromTarget); the target stays open.
func (s *Session) Detach(ctx context.Context) error {
	err := s.conn.Call(ctx, cdptarget.CommandDetachFromTarget, &cdptarget.DetachFromTargetParams{SessionID: cdptarget.SessionID(s.id)}, nil)
	s.conn.mu.Lock()
	delete(s.conn.sessions, s.id)
	s.conn.mu.Unlock()
	s.markGone()
	return err
}
