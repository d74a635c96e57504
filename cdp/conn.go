package cdp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/gobwas/ws"
)

// DefaultCallTimeout bounds a call whose context has no deadline.
const DefaultCallTimeout = 30 * time.Second

// maxMessage caps one incoming message (a full-page screenshot or the AX
// tree of a huge page is a few MB).
const maxMessage = 256 << 20

// Conn is one CDP connection to a browser: the pipe of a browser Launch
// started, or a DevTools WebSocket (Dial). It is the browser-level CDP
// session (no sessionId) and carries every flat-mode Session attached
// through it. It implements github.com/chromedp/cdproto/cdp.Session. Safe
// for concurrent use.
type Conn struct {
	tr      transport
	wmu     sync.Mutex // serialises messages on tr
	timeout time.Duration
	log     *slog.Logger
	calls   func(method string)
	nextID  atomic.Int64

	mu       sync.Mutex
	pending  map[int64]chan reply
	subs     map[subKey]map[*subscription]struct{}
	sessions map[string]*Session // attached flat sessions by id
	err      error               // why the connection closed; set before done closes

	done      chan struct{}
	closeOnce sync.Once
	readDone  chan struct{}
}

type subKey struct{ session, method string }

type reply struct {
	result jsonv2.Value
	err    *wireError
}

// wireMsg is one message on the wire, in either direction.
type wireMsg struct {
	ID        int64        `json:"id,omitzero"`
	SessionID string       `json:"sessionId,omitzero"`
	Method    string       `json:"method,omitzero"`
	Params    jsonv2.Value `json:"params,omitzero"`
	Result    jsonv2.Value `json:"result,omitzero"`
	Error     *wireError   `json:"error,omitzero"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitzero"`
}

// DialOptions tune Dial. The zero value is ready to use.
type DialOptions struct {
	// CallTimeout bounds a call whose context has no deadline; 0 means
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// Logger receives debug lines about the connection; nil discards them.
	// Message contents are never logged.
	Logger *slog.Logger
	// Calls, when set, is called with the method of every command the
	// connection sends (on any session), before it is written: the
	// count of a verb's round trips, which tests hold to budgets. It
	// must be quick and safe for concurrent use.
	Calls func(method string)
}

// orTimeout is ctx, bounded by d when it has no deadline of its own.
func orTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// Dial opens a DevTools WebSocket (a "ws://…/devtools/browser/…" URL), for
// a browser this process did not start. ctx bounds the handshake only.
// Launch never opens one: its browsers speak over a pipe.
func Dial(ctx context.Context, wsURL string, o DialOptions) (*Conn, error) {
	ctx, cancel := orTimeout(ctx, DefaultCallTimeout)
	defer cancel()
	nc, br, _, err := ws.Dialer{}.Dial(ctx, wsURL)
	if err != nil {
		var st ws.StatusError
		if errors.As(err, &st) {
			err = &HandshakeStatus{Code: int(st)}
		}
		return nil, fmt.Errorf("cdp: dial devtools: %w", err)
	}
	var src io.Reader = nc
	if br != nil { // the server already sent bytes after the handshake
		src = io.MultiReader(br, nc)
	}
	return newConn(newWSTransport(nc, src, callTimeout(o)), o), nil
}

// newPipeConn runs a Conn over the two pipe ends of a browser started with
// --remote-debugging-pipe: r carries its replies and events (its fd 4), w
// our commands (its fd 3). Closing the Conn closes both, and the browser
// then shuts down by itself.
func newPipeConn(r, w *os.File, o DialOptions) *Conn {
	return newConn(newPipeTransport(r, w), o)
}

func callTimeout(o DialOptions) time.Duration {
	if o.CallTimeout <= 0 {
		return DefaultCallTimeout
	}
	return o.CallTimeout
}

func newConn(tr transport, o DialOptions) *Conn {
	c := &Conn{
		tr:       tr,
		timeout:  callTimeout(o),
		log:      o.Logger,
		calls:    o.Calls,
		pending:  make(map[int64]chan reply),
		subs:     make(map[subKey]map[*subscription]struct{}),
		sessions: make(map[string]*Session),
		done:     make(chan struct{}),
		readDone: make(chan struct{}),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	go c.readLoop()
	return c
}

// Close closes the connection. Calls in flight return ErrClosed. It is
// idempotent.
func (c *Conn) Close() error {
	c.shutdown(ErrClosed)
	<-c.readDone
	return nil
}

// Done is closed when the connection has closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection closed, or nil while it is open.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	default:
		return nil
	}
}

func (c *Conn) shutdown(err error) {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.err = err
		subs := c.subs
		c.subs = make(map[subKey]map[*subscription]struct{})
		sessions := c.sessions
		c.sessions = make(map[string]*Session)
		c.mu.Unlock()
		close(c.done)
		c.tr.close()
		for _, set := range subs {
			for s := range set {
				s.stop()
			}
		}
		for _, s := range sessions {
			s.markGone()
		}
	})
}

func (c *Conn) readLoop() {
	defer close(c.readDone)
	for {
		data, err := c.tr.next()
		if err != nil {
			c.shutdown(fmt.Errorf("%w: %v", ErrClosed, err))
			return
		}
		c.dispatch(data)
	}
}

// dispatch routes one incoming message: a reply to its caller, an event to
// its subscribers. data is reused after dispatch returns.
func (c *Conn) dispatch(data []byte) {
	var m wireMsg
	if err := jsonv2.Unmarshal(data, &m); err != nil {
		c.log.Debug("cdp: undecodable message", "err", err, "len", len(data))
		return
	}
	if m.ID != 0 {
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- reply{result: m.Result, err: m.Error}
		}
		return
	}
	if m.Method == "" {
		return
	}
	if m.SessionID == "" && m.Method == "Target.detachedFromTarget" {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if jsonv2.Unmarshal(m.Params, &p) == nil {
			c.mu.Lock()
			s := c.sessions[p.SessionID]
			delete(c.sessions, p.SessionID)
			c.mu.Unlock()
			if s != nil {
				s.markGone()
			}
		}
	}
	c.mu.Lock()
	set := c.subs[subKey{m.SessionID, m.Method}]
	for s := range set {
		s.push(m.Params)
	}
	c.mu.Unlock()
}

// Call runs method with params on the browser-level session and decodes the
// result into result (a pointer, or nil to discard it). It implements
// github.com/chromedp/cdproto/cdp.Session.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, "", nil, method, params, result)
}

// Subscribe buffers the browser-level events of method until cancel is
// called or the connection closes (then the channel closes). It implements
// github.com/chromedp/cdproto/cdp.Session.
func (c *Conn) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return c.subscribe("", method)
}

// call sends one command and waits for its reply. gone, when not nil, is
// the session's end: a target that closed may never answer, so the call
// returns ErrSessionGone instead of waiting for its deadline.
func (c *Conn) call(ctx context.Context, session string, gone <-chan struct{}, method string, params, result any) error {
	ctx, cancel := orTimeout(ctx, c.timeout)
	defer cancel()
	p, err := c.send(ctx, session, gone, method, params)
	if err != nil {
		return err
	}
	return c.wait(ctx, gone, p, result)
}

// checkedDecoder is a result that decodes itself from bytes already known
// to be one well-formed JSON value: dispatch checked the whole message as
// it arrived, so a big result (an AX tree is half a megabyte) is not
// checked a second time before it is read.
type checkedDecoder interface {
	decodeChecked(data []byte) error
}

// inflight is a command on the wire whose reply has not been read yet.
type inflight struct {
	method string
	id     int64
	ch     chan reply
}

// send writes one command and returns without waiting for its reply; wait
// reads it. ctx is checked before the write only. The browser runs the
// commands of one session in the order they arrive, and the frames of one
// goroutine's sends go out in the order it sent them, so independent
// commands can be pipelined: send each, then wait for each. A reply nobody
// waits for is dropped when it comes.
func (c *Conn) send(ctx context.Context, session string, gone <-chan struct{}, method string, params any) (*inflight, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	}
	select {
	case <-gone:
		return nil, fmt.Errorf("cdp: %s: %w", method, ErrSessionGone)
	default:
	}
	m := wireMsg{ID: c.nextID.Add(1), SessionID: session, Method: method}
	if params != nil {
		p, err := jsonv2.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("cdp: %s: encoding params: %w", method, err)
		}
		m.Params = p
	}
	data, err := jsonv2.Marshal(&m)
	if err != nil {
		return nil, fmt.Errorf("cdp: %s: encoding message: %w", method, err)
	}
	ch := make(chan reply, 1) // buffered: the read loop never waits on a caller that left
	c.mu.Lock()
	select {
	case <-c.done:
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	default:
	}
	c.pending[m.ID] = ch
	c.mu.Unlock()
	if c.calls != nil {
		c.calls(method)
	}
	if err := c.write(ctx, data); err != nil {
		c.forget(m.ID)
		return nil, fmt.Errorf("cdp: %s: %w", method, err)
	}
	return &inflight{method: method, id: m.ID, ch: ch}, nil
}

// wait waits for the reply of a sent command and decodes its result into
// result (a pointer, or nil to discard it). A ctx without a deadline gets
// the connection's call timeout. When ctx or the session ends first, the
// reply is dropped.
func (c *Conn) wait(ctx context.Context, gone <-chan struct{}, p *inflight, result any) error {
	ctx, cancel := orTimeout(ctx, c.timeout)
	defer cancel()
	method := p.method
	select {
	case r := <-p.ch:
		if r.err != nil {
			return &Error{Method: method, Code: r.err.Code, Message: r.err.Message, Data: r.err.Data}
		}
		if result == nil || len(r.result) == 0 {
			return nil
		}
		var err error
		if d, ok := result.(checkedDecoder); ok {
			err = d.decodeChecked(r.result)
		} else {
			err = jsonv2.Unmarshal(r.result, result)
		}
		if err != nil {
			return fmt.Errorf("cdp: %s: decoding result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		c.forget(p.id)
		return fmt.Errorf("cdp: %s: %w", method, ctx.Err())
	case <-gone:
		c.forget(p.id)
		return fmt.Errorf("cdp: %s: %w", method, ErrSessionGone)
	case <-c.done:
		return fmt.Errorf("cdp: %s: %w", method, c.Err())
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// write sends one message. It is bounded by the connection's call timeout,
// not by the caller's context: a message cut short by one caller's deadline
// would corrupt the stream for every other caller. A write that fails (the
// browser stopped reading for that long, or went away) leaves the stream
// unusable, so it closes the connection.
func (c *Conn) write(ctx context.Context, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.tr.write(data, time.Now().Add(c.timeout)); err != nil {
		c.shutdown(fmt.Errorf("%w: write: %v", ErrClosed, err))
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return nil
}

func (c *Conn) subscribe(session, method string) (<-chan jsonv2.Value, func()) {
	s := newSubscription()
	k := subKey{session, method}
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		s.stop()
		return s.out, func() {}
	default:
	}
	set := c.subs[k]
	if set == nil {
		set = make(map[*subscription]struct{})
		c.subs[k] = set
	}
	set[s] = struct{}{}
	c.mu.Unlock()
	cancel := func() {
		c.mu.Lock()
		if set := c.subs[k]; set != nil {
			delete(set, s)
			if len(set) == 0 {
				delete(c.subs, k)
			}
		}
		c.mu.Unlock()
		s.stop()
	}
	return s.out, cancel
}
