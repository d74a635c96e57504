package atspi

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// errWireClosed: the connection ended (the application exited, or Close).
var errWireClosed = errors.New("atspi: connection closed")

// errWireStalled: a write could not be made in time — the peer stopped
// reading (a frozen application whose socket buffer filled). The
// connection is dead, since a partly written message leaves the stream
// unusable, and every call on it fails with this error: a timeout, not a
// vanished object.
var errWireStalled = fmt.Errorf("atspi: connection stalled: a write could not be made in time: %w", context.DeadlineExceeded)

// writeSlack is how much later than the deadline last set a new call's
// deadline must be before the connection's write deadline is moved: it
// spares a deadline update per call in a burst.
const writeSlack = 10 * time.Millisecond

// writeFloor is the least time a write is given: a deadline that is about
// to pass must not pass inside a healthy write and condemn the connection
// (a write to a reading peer takes microseconds).
const writeFloor = 50 * time.Millisecond

// remoteError is an error reply: its D-Bus name is the code to branch on.
type remoteError struct {
	Name    string
	Message string
}

func (e *remoteError) Error() string { return e.Name + ": " + e.Message }

// reply is one finished call: a body to read, or why there is none.
type reply struct {
	tag  any
	body body
	err  error // transport, deadline or *remoteError
}

// waiter is where a call's reply goes: ch, which must have room for it,
// or fn, which the reader goroutine calls (it must not wait for another
// reply of the same connection).
type waiter struct {
	ch  chan<- reply
	fn  func(reply)
	tag any
}

func (w waiter) deliver(r reply) {
	if w.fn != nil {
		w.fn(r)
		return
	}
	w.ch <- r
}

// deliverLater is deliver from the caller of start, which may hold what
// fn takes: fn is called on a goroutine of its own.
func (w waiter) deliverLater(r reply) {
	if w.fn != nil {
		go w.fn(r)
		return
	}
	w.ch <- r
}

// wconn is a connection speaking wire.go: one reader goroutine; calls
// matched to replies by serial; writes buffered and, while corked, held to
// go out as one write. Replies are delivered on the channel each call
// names, which must have room: the reader blocks on a full channel (or
// the reader calls the function the call names: startFn).
//
// A stalled write kills the connection, by construction: once a write
// of a message could not complete, the connection is dead for everyone
// before any call that waited on it returns. The write may have left
// part of a message in the socket's buffer, behind which any later
// message would be read as the rest of it. Dead means c.err is set
// (under mu) and dead is true: begin refuses new calls, a call
// registered before writes nothing once it holds wmu, alive says no (so
// route forgets a dead peer socket and the next walk dials anew), and
// the socket is shut down, which ends the reader; the reader fails the
// calls in flight. A connection dies (kill):
//   - in the writer, when a write fails (its deadline passed, the socket
//     closed), before the writer lets go of wmu and returns;
//   - in forget, when a call gives up while a write on the connection
//     waits for room in the socket's buffer (sockConn.stuck): the peer
//     has stopped reading, and the call must not return while the
//     connection it leaves could still be used. (The stuck write's own
//     deadline, the latest of its calls', may be much later.)
//
// None of this waits on timing: the reader's own end, which may come
// long after (its thread must be scheduled), decides nothing.
type wconn struct {
	c      *sockConn
	serial atomic.Uint32

	wmu   sync.Mutex
	w     *bufio.Writer
	scr   []byte
	corks int
	wdl   time.Time // the write deadline set on c
	wdef  time.Duration
	// count, when set, is added one for every call started (Options.Calls).
	count *atomic.Uint64
	// name is the unique name the bus gave the connection (Hello); empty
	// on a peer-to-peer connection.
	name string

	mu      sync.Mutex
	pending map[uint32]waiter
	err     error // set when the connection died (kill) or the reader ended
	stalled bool  // a write could not be made in time
	dead    atomic.Bool
	done    chan struct{} // closed when the reader has ended
}

// dialWire connects to a unix D-Bus address, authenticates (EXTERNAL) and,
// for a bus, says Hello; bounded by ctx. callTimeout bounds the writes of a
// call that comes without a deadline; count (nil: none) counts the calls
// made after Hello.
func dialWire(ctx context.Context, addr string, bus bool, callTimeout time.Duration, count *atomic.Uint64) (*wconn, error) {
	network, where, err := unixAddress(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, where)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	r := bufio.NewReaderSize(nc, 64<<10)
	err = authExternal(nc, r)
	if !stop() {
		err = ctx.Err()
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("atspi: %s: %w", addr, err)
	}
	if r.Buffered() != 0 {
		// A server says nothing after its OK before our first call.
		nc.Close()
		return nil, fmt.Errorf("atspi: %s: unasked bytes after authentication", addr)
	}
	sc, err := newSockConn(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("atspi: %s: %w", addr, err)
	}
	c := &wconn{c: sc, w: bufio.NewWriterSize(sc, 64<<10), wdef: callTimeout, pending: make(map[uint32]waiter), done: make(chan struct{})}
	r = bufio.NewReaderSize(sc, 64<<10)
	go c.read(r)
	if bus {
		rp := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Hello")
		if rp.err != nil {
			c.Close()
			return nil, fmt.Errorf("atspi: %s: Hello: %w", addr, rp.err)
		}
		c.name, _ = rp.str()
	}
	c.count = count
	return c, nil
}

// authExternal runs the SASL EXTERNAL exchange as this process's uid.
func authExternal(w io.Writer, r *bufio.Reader) error {
	uid := hex.EncodeToString([]byte(strconv.Itoa(os.Getuid())))
	if _, err := io.WriteString(w, "\x00AUTH EXTERNAL "+uid+"\r\n"); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "OK ") {
		return fmt.Errorf("authentication refused: %q", strings.TrimSpace(line))
	}
	_, err = io.WriteString(w, "BEGIN\r\n")
	return err
}

// Close ends the connection; every call in flight fails.
func (c *wconn) Close() error {
	err := c.kill(errWireClosed, false)
	<-c.done
	return err
}

// alive reports whether calls may still be made on the connection: it is
// not dead, though its reader may not have seen the end yet.
func (c *wconn) alive() bool {
	return !c.dead.Load()
}

// kill makes the connection dead for everyone (see wconn) and shuts its
// socket down, which ends the reader; the reader fails the calls in
// flight. stalled says a write could not be made in time: the calls then
// fail as timeouts (errWireStalled), not as a vanished object. It never
// waits for the reader nor for a writer, so a writer (holding wmu) and a
// walk (holding its own lock) may call it.
func (c *wconn) kill(err error, stalled bool) error {
	c.mu.Lock()
	if stalled {
		c.stalled = true
		err = errWireStalled
	}
	if c.err == nil {
		c.err = err
	}
	c.dead.Store(true)
	c.mu.Unlock()
	return c.c.Close()
}

// start sends a method call; its reply (tagged tag) goes to ch. dest is
// empty on a peer-to-peer connection. deadline bounds the write (zero: the
// connection's call timeout from now): a peer that stops reading cannot
// hold the writer, nor the callers queued behind it, past it. It returns
// the call's serial, for forget.
func (c *wconn) start(deadline time.Time, dest string, path string, method string, args []any, ch chan<- reply, tag any) uint32 {
	return c.begin(deadline, dest, path, method, args, waiter{ch: ch, tag: tag})
}

// startFn is start with the reply handed to fn on the connection's reader
// goroutine (on one of its own if the call fails before it is written):
// no goroutine is woken per reply. fn must not wait for a reply of this
// connection.
func (c *wconn) startFn(deadline time.Time, dest string, path string, method string, args []any, fn func(reply), tag any) uint32 {
	return c.begin(deadline, dest, path, method, args, waiter{fn: fn, tag: tag})
}

func (c *wconn) begin(deadline time.Time, dest string, path string, method string, args []any, wt waiter) uint32 {
	i := strings.LastIndexByte(method, '.')
	serial := c.serial.Add(1)
	if c.count != nil {
		c.count.Add(1)
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		wt.deliverLater(reply{tag: wt.tag, err: err})
		return serial
	}
	c.pending[serial] = wt
	c.mu.Unlock()

	c.wmu.Lock()
	if c.dead.Load() {
		// It died since: nothing more is written on it. The call is in
		// pending, which the reader fails.
		c.wmu.Unlock()
		return serial
	}
	scr, err := appendCall(c.scr[:0], serial, dest, path, method[:i], method[i+1:], args)
	if err != nil {
		c.wmu.Unlock()
		if c.drop(serial) {
			wt.deliverLater(reply{tag: wt.tag, err: err})
		}
		return serial
	}
	c.scr = scr
	c.writeBy(deadline)
	_, err = c.w.Write(c.scr)
	if err == nil && c.corks == 0 {
		err = c.w.Flush()
	}
	if err != nil {
		c.writeFailed(err) // the reader then fails every call, this one included
	}
	c.wmu.Unlock()
	return serial
}

// writeBy makes the connection's write deadline at least deadline (zero:
// the call timeout from now). Called with wmu held. The deadline only moves
// later: what is buffered goes out with the calls written after it.
func (c *wconn) writeBy(deadline time.Time) {
	now := time.Now()
	if deadline.IsZero() {
		deadline = now.Add(c.wdef)
	}
	deadline = later(deadline, now.Add(writeFloor))
	if deadline.Sub(c.wdl) <= writeSlack {
		return
	}
	c.wdl = deadline
	c.c.SetWriteDeadline(deadline)
}

// writeFailed kills the connection after a failed write, with wmu held:
// before the writer returns, and before any writer queued behind it
// writes. A write that missed its deadline kills it as stalled, so the
// calls on it fail as timeouts (errWireStalled), not as a vanished object
// (one that forget's kill cut short finds it killed as stalled already).
func (c *wconn) writeFailed(err error) {
	c.kill(fmt.Errorf("%w (write: %v)", errWireClosed, err), errors.Is(err, os.ErrDeadlineExceeded))
}

// forget drops a call whose caller stopped waiting (its deadline passed);
// it reports whether the call was still in flight. A late reply is
// discarded. A call that gives up while a write on the connection waits
// for room kills the connection first (see wconn).
func (c *wconn) forget(serial uint32) bool {
	ok := c.drop(serial)
	if ok && c.c.stuck() {
		c.kill(nil, true)
	}
	return ok
}

// drop takes a call out of pending; it reports whether it was there.
func (c *wconn) drop(serial uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[serial]
	delete(c.pending, serial)
	return ok
}

// call makes one call and waits for its reply, bounded by ctx.
func (c *wconn) call(ctx context.Context, dest, path, method string, args ...any) reply {
	if err := ctx.Err(); err != nil {
		return reply{err: err}
	}
	ch := make(chan reply, 1)
	deadline, _ := ctx.Deadline()
	serial := c.start(deadline, dest, path, method, args, ch, nil)
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		if c.forget(serial) {
			return reply{err: ctx.Err()}
		}
		return <-ch
	}
}

// cork holds writes in the buffer until the matching uncork.
func (c *wconn) cork() {
	c.wmu.Lock()
	c.corks++
	c.wmu.Unlock()
}

// uncork releases one cork and, if flush, writes out what is buffered. A
// caller that does not flush must flush later (or make a call with no cork
// held): until then its calls sit in the buffer.
func (c *wconn) uncork(flush bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.corks > 0 {
		c.corks--
	}
	if !flush || c.w.Buffered() == 0 {
		return
	}
	// The deadline set by the buffered calls' writes bounds the flush
	// (given at least writeFloor).
	c.writeBy(c.wdl)
	if c.dead.Load() {
		return
	}
	if err := c.w.Flush(); err != nil {
		c.writeFailed(err)
	}
}

// read is the reader goroutine: it delivers replies until the connection
// ends, then fails every call still in flight.
func (c *wconn) read(r *bufio.Reader) {
	defer close(c.done)
	var err error
	for err == nil {
		err = c.readOne(r)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		err = errWireClosed
	}
	c.kill(fmt.Errorf("%w (%v)", errWireClosed, err), false)
	c.c.release()
	c.mu.Lock()
	fail := errWireClosed
	if c.stalled {
		fail = errWireStalled
	}
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, w := range pending {
		w.deliver(reply{tag: w.tag, err: fail})
	}
}

func (c *wconn) readOne(r *bufio.Reader) error {
	var fixed [16]byte
	if r.Buffered() == 0 {
		c.gather()
	}
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return err
	}
	var order binary.ByteOrder
	switch fixed[0] {
	case 'l':
		order = binary.LittleEndian
	case 'B':
		order = binary.BigEndian
	default:
		return fmt.Errorf("bad byte order %q", fixed[0])
	}
	typ := fixed[1]
	bodyLen := order.Uint32(fixed[4:])
	fieldsLen := order.Uint32(fixed[12:])
	if bodyLen > 1<<27 || fieldsLen > 1<<26 {
		return errors.New("message too long")
	}
	padded := (int(fieldsLen) + 7) &^ 7
	buf := make([]byte, padded+int(bodyLen))
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	if typ != msgMethodReturn && typ != msgError {
		return nil // signals and calls to us are not ours to answer
	}
	// The fields array (a(yv)) starts at offset 16, a multiple of 8, so
	// alignment within buf is alignment within the message.
	fields := body{b: buf[:fieldsLen], order: order}
	var replySerial uint32
	var errName string
	for fields.off < len(fields.b) && fields.err == nil {
		fields.align(8)
		code := fields.byte1()
		v := fields.variant()
		switch code {
		case fieldReplySerial:
			replySerial, _ = v.(uint32)
		case fieldErrorName:
			errName, _ = v.(string)
		}
	}
	if fields.err != nil {
		return fields.err
	}
	c.mu.Lock()
	w, ok := c.pending[replySerial]
	delete(c.pending, replySerial)
	c.mu.Unlock()
	if !ok {
		return nil // its caller stopped waiting
	}
	rp := reply{tag: w.tag, body: body{b: buf[padded:], order: order}}
	if typ == msgError {
		e := &remoteError{Name: errName}
		if len(rp.body.b) > 0 {
			e.Message = rp.body.str()
		}
		rp.err = e
	}
	w.deliver(rp)
	return nil
}

// gatherMin is how many calls must be in flight on a connection before
// its reader, having read all that had come, waits gatherWait for more
// replies to come before it reads again: an application with that many
// questions to answer is busy for longer than the wait (tens of
// microseconds a call in GTK 3), so it does not wait for us, and one read
// then takes the replies of the wait instead of one read, and one wake-up,
// per reply.
const (
	gatherMin  = 32
	gatherWait = 200 * time.Microsecond
)

// gather waits gatherWait if at least gatherMin calls are in flight.
func (c *wconn) gather() {
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n >= gatherMin {
		ts := syscall.NsecToTimespec(gatherWait.Nanoseconds())
		syscall.Nanosleep(&ts, nil)
	}
}

// unixAddress parses the first unix entry of a D-Bus address list
// ("unix:path=/run/…/socket,guid=…" or "unix:abstract=name") into a
// net.Dial network and address.
func unixAddress(addr string) (network, where string, err error) {
	for _, entry := range strings.Split(addr, ";") {
		rest, ok := strings.CutPrefix(entry, "unix:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v, err := url.PathUnescape(v)
			if err != nil {
				return "", "", fmt.Errorf("atspi: bad address %q: %w", addr, err)
			}
			switch k {
			case "path":
				return "unix", v, nil
			case "abstract":
				return "unix", "@" + v, nil
			}
		}
	}
	return "", "", fmt.Errorf("atspi: no unix path in address %q", addr)
}

// boolean reads a reply of one b.
func (r reply) boolean() (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	v := r.body.u32()
	return v != 0, r.body.err
}

// str reads a reply of one s.
func (r reply) str() (string, error) {
	if r.err != nil {
		return "", r.err
	}
	s := r.body.str()
	return s, r.body.err
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
