package bidi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// DefaultCallTimeout bounds a call whose context has no deadline.
const DefaultCallTimeout = 30 * time.Second

// maxMessage caps one incoming message (a full-page screenshot is a few MB
// of base64).
const maxMessage = 256 << 20

// ctlTimeout bounds a WebSocket control reply (pong, close).
const ctlTimeout = 5 * time.Second

// Conn is one BiDi connection (one WebSocket) to a browser. Safe for
// concurrent use.
type Conn struct {
	nc      net.Conn
	rd      *wsutil.Reader
	ctl     wsutil.FrameHandlerFunc
	wmu     sync.Mutex // serialises frames on nc
	timeout time.Duration
	calls   func(method string)
	nextID  atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan reply
	subs    map[string]map[*Events]struct{} // by event method
	err     error                           // why the connection ended; set before done closes

	done      chan struct{}
	closeOnce sync.Once
	readDone  chan struct{}
}

// ConnOptions tune a Conn. The zero value is ready to use.
type ConnOptions struct {
	// CallTimeout bounds a call whose context has no deadline; 0 means
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// Calls, when set, is called with the method of every command sent,
	// before it is written (a verb's round trips, which tests count).
	Calls func(method string)
}

type reply struct {
	result json.RawMessage
	err    error
}

// inMsg is one message from the browser: a command's answer (success or
// error, with its id) or an event.
type inMsg struct {
	Type       string          `json:"type"`
	ID         *int64          `json:"id"`
	Result     json.RawMessage `json:"result"`
	Error      string          `json:"error"`
	Message    string          `json:"message"`
	Stacktrace string          `json:"stacktrace"`
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
}

type outMsg struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// handshake opens the WebSocket of Firefox's Remote Agent over nc (a
// stream already connected to it: the relay's socket) and returns the Conn
// over it. ctx bounds the handshake.
func handshake(ctx context.Context, nc net.Conn, host string, o ConnOptions) (*Conn, error) {
	d := ws.Dialer{NetDial: func(context.Context, string, string) (net.Conn, error) { return nc, nil }}
	_, br, _, err := d.Dial(ctx, "ws://"+host+"/session")
	if err != nil {
		return nil, fmt.Errorf("bidi: websocket handshake: %w", err)
	}
	var src io.Reader = nc
	if br != nil { // the browser already sent bytes after its answer
		src = io.MultiReader(br, nc)
	}
	return newConn(nc, src, o), nil
}

func newConn(nc net.Conn, src io.Reader, o ConnOptions) *Conn {
	c := &Conn{
		nc:       nc,
		timeout:  o.CallTimeout,
		calls:    o.Calls,
		pending:  map[int64]chan reply{},
		subs:     map[string]map[*Events]struct{}{},
		done:     make(chan struct{}),
		readDone: make(chan struct{}),
	}
	if c.timeout <= 0 {
		c.timeout = DefaultCallTimeout
	}
	c.ctl = wsutil.ControlFrameHandler(ctlWriter{c}, ws.StateClientSide)
	c.rd = &wsutil.Reader{Source: src, State: ws.StateClientSide, MaxMessageSize: maxMessage, OnIntermediate: c.ctl}
	go c.readLoop()
	return c
}

type ctlWriter struct{ c *Conn }

func (w ctlWriter) Write(p []byte) (int, error) {
	w.c.wmu.Lock()
	defer w.c.wmu.Unlock()
	w.c.nc.SetWriteDeadline(time.Now().Add(ctlTimeout))
	return w.c.nc.Write(p)
}

// Done is closed when the connection has ended; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (wrapping ErrClosed), nil while it lives.
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

// Close ends the connection; pending calls return ErrClosed.
func (c *Conn) Close() error {
	c.shut(ErrClosed)
	<-c.readDone
	return nil
}

func (c *Conn) shut(why error) {
	c.closeOnce.Do(func() {
		if !errors.Is(why, ErrClosed) {
			why = fmt.Errorf("%w: %w", ErrClosed, why)
		}
		c.mu.Lock()
		c.err = why
		pend := c.pending
		c.pending = nil
		subs := c.subs
		c.subs = nil
		c.mu.Unlock()
		close(c.done)
		c.nc.Close()
		for _, ch := range pend {
			ch <- reply{err: why}
		}
		for _, set := range subs {
			for e := range set {
				e.stop()
			}
		}
	})
}

func (c *Conn) readLoop() {
	defer close(c.readDone)
	var buf bytes.Buffer
	for {
		msg, err := c.next(&buf)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = io.EOF
			}
			c.shut(fmt.Errorf("reading: %w", err))
			return
		}
		var m inMsg
		if err := json.Unmarshal(msg, &m); err != nil {
			continue // not ours to understand; a call waiting for it times out
		}
		switch {
		case m.Type == "event":
			c.dispatch(m.Method, m.Params)
		case m.ID != nil:
			c.mu.Lock()
			ch := c.pending[*m.ID]
			delete(c.pending, *m.ID)
			c.mu.Unlock()
			if ch == nil {
				continue // its caller gave up
			}
			if m.Type == "error" {
				ch <- reply{err: &Error{Code: m.Error, Message: m.Message, Stacktrace: m.Stacktrace}}
			} else {
				ch <- reply{result: bytes.Clone(m.Result)}
			}
		}
	}
}

// next reads one whole text or binary message into buf.
func (c *Conn) next(buf *bytes.Buffer) ([]byte, error) {
	for {
		hdr, err := c.rd.NextFrame()
		if err != nil {
			return nil, err
		}
		if hdr.OpCode.IsControl() {
			if err := c.ctl(hdr, c.rd); err != nil {
				return nil, err
			}
			continue
		}
		if hdr.OpCode != ws.OpText && hdr.OpCode != ws.OpBinary {
			if err := c.rd.Discard(); err != nil {
				return nil, err
			}
			continue
		}
		buf.Reset()
		if _, err := buf.ReadFrom(c.rd); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
}

// Call sends one command and waits for its answer, decoding its result
// into res (when res is not nil). ctx bounds the wait, and the
// connection's CallTimeout when ctx has no deadline. A command the browser
// refused is an *Error with the method filled in.
func (c *Conn) Call(ctx context.Context, method string, params, res any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	if params == nil {
		params = struct{}{}
	}
	id := c.nextID.Add(1)
	data, err := json.Marshal(outMsg{ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("bidi: %s: encoding: %w", method, err)
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.pending == nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("bidi: %s: %w", method, err)
	}
	c.pending[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		if c.pending != nil {
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}
	if c.calls != nil {
		c.calls(method)
	}
	// A frame once begun must end: one cut short by a deadline loses the
	// stream for every call. Its write gets at least writeGrace, whatever
	// ctx's deadline (measured: a wait bounded by 1 s that ended as a
	// write began killed the connection, and with it the browser's every
	// tab); the wait for the answer is ctx's.
	dl, _ := ctx.Deadline()
	if least := time.Now().Add(writeGrace); dl.Before(least) {
		dl = least
	}
	if err := c.write(data, dl); err != nil {
		forget()
		if cerr := c.Err(); cerr != nil {
			return fmt.Errorf("bidi: %s: %w", method, cerr)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("bidi: %s: %w", method, ctx.Err())
		}
		c.shut(fmt.Errorf("writing: %w", err)) // a frame cut short: the stream is lost
		return fmt.Errorf("bidi: %s: %w", method, c.Err())
	}
	select {
	case r := <-ch:
		if r.err != nil {
			var e *Error
			if errors.As(r.err, &e) {
				e.Method = method
				return e
			}
			return fmt.Errorf("bidi: %s: %w", method, r.err)
		}
		if res == nil {
			return nil
		}
		if err := json.Unmarshal(r.result, res); err != nil {
			return fmt.Errorf("bidi: %s: decoding its result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		forget()
		return fmt.Errorf("bidi: %s: %w", method, ctx.Err())
	}
}

// writeGrace is the least time a command's frame is given to be written.
const writeGrace = 5 * time.Second

func (c *Conn) write(data []byte, deadline time.Time) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(deadline)
	return wsutil.WriteClientMessage(c.nc, ws.OpText, data)
}

// Events is a stream of the browser's events of some methods, in the order
// they came, buffered without bound so that a slow reader never stalls the
// connection. Its channel closes when Stop is called or the connection
// ends. It only receives what the browser sends: the browser sends an
// event once a session.subscribe asked for it (Session.Subscribe).
type Events struct {
	c        *Conn
	methods  []string
	out      chan Event
	wake     chan struct{}
	quit     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	queue    []Event
}

// Event is one event: its method ("browsingContext.load", …) and params.
type Event struct {
	Method string
	Params json.RawMessage
}

// Events starts receiving the events of methods. Call it before the
// command whose events are wanted, then Subscribe (or have subscribed).
func (c *Conn) Events(methods ...string) *Events {
	e := &Events{c: c, methods: methods, out: make(chan Event), wake: make(chan struct{}, 1), quit: make(chan struct{})}
	c.mu.Lock()
	if c.subs == nil {
		c.mu.Unlock()
		e.stop()
		close(e.out)
		return e
	}
	for _, m := range methods {
		if c.subs[m] == nil {
			c.subs[m] = map[*Events]struct{}{}
		}
		c.subs[m][e] = struct{}{}
	}
	c.mu.Unlock()
	go e.pump()
	return e
}

// C delivers the events.
func (e *Events) C() <-chan Event { return e.out }

// Stop ends the stream.
func (e *Events) Stop() {
	e.c.mu.Lock()
	for _, m := range e.methods {
		if set := e.c.subs[m]; set != nil {
			delete(set, e)
		}
	}
	e.c.mu.Unlock()
	e.stop()
}

func (e *Events) stop() { e.stopOnce.Do(func() { close(e.quit) }) }

func (c *Conn) dispatch(method string, params json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := range c.subs[method] {
		e.mu.Lock()
		e.queue = append(e.queue, Event{Method: method, Params: bytes.Clone(params)})
		e.mu.Unlock()
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
}

func (e *Events) pump() {
	defer close(e.out)
	for {
		e.mu.Lock()
		if len(e.queue) == 0 {
			e.mu.Unlock()
			select {
			case <-e.wake:
				continue
			case <-e.quit:
				return
			}
		}
		v := e.queue[0]
		e.queue[0] = Event{}
		e.queue = e.queue[1:]
		e.mu.Unlock()
		select {
		case e.out <- v:
		case <-e.quit:
			return
		}
	}
}
