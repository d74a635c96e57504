package x11

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Noticing the person. On the user's own desktop the agent must stop the
// moment the person touches their keyboard or mouse. XInput 2 raw events,
// selected on the root window, report every key, button, motion and touch
// of every input device of the X server, whoever has the focus or a grab,
// each naming the slave device it came from (sourceid). Our own input goes
// through XTEST on the core devices, so it comes from the "Virtual core
// XTEST pointer/keyboard" slaves: everything else is the person.
//
// What is observable: input of this X server's own devices (evdev or
// libinput devices of an Xorg, the devices of Xvfb or Xephyr, a master
// added by a client with XIChangeHierarchy, a tablet or touchscreen).
// What is not: another XTEST client on the core devices (xdotool, a VNC
// or RDP server, x2x, Barrier/Synergy) looks exactly like us; and on a
// Wayland session, input to Wayland-native windows never reaches Xwayland
// at all (it sees only what is sent to its own X clients).
//
// Why a byte-stream filter under xgb. jezek/xgb has no XInput 2, and its
// reader takes every event to be 32 bytes: a Generic Event (type 35, the
// only kind XI2 sends) is longer, and the rest of it would be read as the
// next event, desyncing the connection. Rather than a second X client
// written from scratch (setup, sequence numbers, replies, errors), the
// watch's connection is xgb's over a net.Conn that frames the server's
// byte stream itself and takes the Generic Events out before xgb reads:
// xgb still matches replies and errors to requests (the few XI2 requests
// are built by hand on xgb.Conn.NewRequest), and never sees what it cannot
// parse.

// Touch is one input of the person's.
type Touch struct {
	Device   string    // the device's name, as the X server lists it
	DeviceID int       // its XInput 2 device id (the raw event's sourceid)
	What     string    // "key", "button", "motion" or "touch"
	At       time.Time // when we read it
}

// motionEvery is the least time between two motion Touches of one device.
const motionEvery = 100 * time.Millisecond

// XInput 2 protocol numbers (XI2proto.h).
const (
	xiChangeHierarchy  = 43
	xiSetClientPointer = 44
	xiSelectEvents     = 46
	xiQueryVersion     = 47
	xiQueryDevice      = 48

	xiAllDevices       = 0
	xiAllMasterDevices = 1

	xiHierarchyChanged = 11
	xiRawKeyPress      = 13
	xiRawButtonPress   = 15
	xiRawMotion        = 17
	xiRawTouchBegin    = 22

	xiMasterPointer  = 1
	xiMasterKeyboard = 2

	genericEvent = 35
)

// InputWatch is a watch of the person's input on one X display, on a
// connection of its own.
type InputWatch struct {
	name string
	xc   *xgb.Conn
	raw  net.Conn
	root xproto.Window
	xi   byte // XInputExtension's major opcode
	fn   func(Touch)

	q evQueue

	devMu sync.Mutex
	devs  map[int]xiDevice // every device, by id
	ours  map[int]bool     // the XTEST slaves of the core devices: our input
	inFn  atomic.Bool
	// reportOurs makes our own input reported too (tests only).
	reportOurs atomic.Bool
	closing    atomic.Bool
	err        error // why it stopped; written before done is closed
	done       chan struct{}
}

// xiDevice is one device of XIQueryDevice's answer.
type xiDevice struct {
	id, use, attachment int
	name                string
}

// WatchInput starts watching the person's input on display name (see
// OpenWith for name and o): fn is called, from one goroutine, for every
// key press, button press, touch begin and (at most every 100 ms per
// device) motion of a device that is not our own injection's. Devices added
// later (a keyboard plugged in) are watched from the moment the server
// announces them. A server without XInput 2 is an error saying so. The
// watch runs until Close, or until the connection fails (Done, Err).
func WatchInput(ctx context.Context, name string, o Options, fn func(Touch)) (*InputWatch, error) {
	ctx, cancel := withDefault(ctx)
	defer cancel()
	raw, setup, err := dialSetup(ctx, name, o)
	if err != nil {
		return nil, err
	}
	w := &InputWatch{name: name, raw: raw, fn: fn, done: make(chan struct{})}
	w.q.notify = make(chan struct{}, 1)
	split := &geSplit{r: bufio.NewReaderSize(raw, 1<<14), Conn: raw, q: &w.q}
	type res struct {
		c   *xgb.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := xgb.NewConnNet(&setupConn{Conn: split, reply: setup})
		ch <- res{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			raw.Close()
			return nil, fmt.Errorf("x11: watch input on %s: %w", name, r.err)
		}
		w.xc = r.c
	case <-ctx.Done():
		raw.Close()
		if r := <-ch; r.c != nil {
			r.c.Close()
		}
		return nil, timeoutRefusal("connect to "+name, ctx.Err())
	}
	go drainConn(w.xc)
	w.root = xproto.Setup(w.xc).DefaultScreen(w.xc).Root
	if err := w.start(ctx); err != nil {
		w.shut()
		return nil, err
	}
	go w.run()
	return w, nil
}

// drainConn reads whatever xgb delivers as events (core events, errors of
// unchecked requests) until the connection closes.
func drainConn(c *xgb.Conn) {
	for {
		ev, err := c.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
	}
}

// start asks for XInput 2, learns the devices and selects the raw events.
func (w *InputWatch) start(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { w.raw.Close() })
	defer stop()
	fail := func(err error) error {
		if ctx.Err() != nil {
			return timeoutRefusal("XInput 2 setup on "+w.name, ctx.Err())
		}
		return err
	}
	ext, err := xproto.QueryExtension(w.xc, uint16(len("XInputExtension")), "XInputExtension").Reply()
	if err != nil {
		return fail(fmt.Errorf("x11: QueryExtension XInputExtension on %s: %w", w.name, err))
	}
	if !ext.Present {
		return fmt.Errorf("x11: the X server %s has no XInput extension", w.name)
	}
	w.xi = ext.MajorOpcode
	w.q.xi.Store(uint32(w.xi))
	maj, minor, err := xiVersion(w.xc, w.xi, 2, 2)
	if err != nil {
		return fail(fmt.Errorf("x11: XIQueryVersion on %s: %w", w.name, err))
	}
	if maj < 2 {
		return fmt.Errorf("x11: the X server %s has XInput %d.%d, not XInput 2", w.name, maj, minor)
	}
	if err := w.refresh(); err != nil {
		return fail(err)
	}
	raw := uint32(1<<xiRawKeyPress | 1<<xiRawButtonPress | 1<<xiRawMotion)
	if maj > 2 || minor >= 2 {
		raw |= 1 << xiRawTouchBegin
	}
	// HierarchyChanged is only delivered to a selection for XIAllDevices;
	// raw events are selected there too, so that a floating slave (a
	// device attached to no master) is seen as well.
	body := make([]byte, 8+8)
	xgb.Put32(body, uint32(w.root))
	xgb.Put16(body[4:], 1)
	xgb.Put16(body[8:], xiAllDevices)
	xgb.Put16(body[10:], 1)
	xgb.Put32(body[12:], raw|1<<xiHierarchyChanged)
	if err := xiVoid(w.xc, w.xi, xiSelectEvents, body).Check(); err != nil {
		return fail(fmt.Errorf("x11: XISelectEvents on %s: %w", w.name, err))
	}
	return nil
}

// xiRequest is an XInput request of minor opcode minor with body.
func xiRequest(major, minor byte, body []byte) []byte {
	buf := make([]byte, 4+xgb.Pad(len(body)))
	buf[0], buf[1] = major, minor
	xgb.Put16(buf[2:], uint16(len(buf)/4))
	copy(buf[4:], body)
	return buf
}

func xiVoid(c *xgb.Conn, major, minor byte, body []byte) *xgb.Cookie {
	ck := c.NewCookie(true, false)
	c.NewRequest(xiRequest(major, minor, body), ck)
	return ck
}

func xiReply(c *xgb.Conn, major, minor byte, body []byte) ([]byte, error) {
	ck := c.NewCookie(true, true)
	c.NewRequest(xiRequest(major, minor, body), ck)
	return ck.Reply()
}

func xiVersion(c *xgb.Conn, xi byte, major, minor uint16) (int, int, error) {
	body := make([]byte, 4)
	xgb.Put16(body, major)
	xgb.Put16(body[2:], minor)
	r, err := xiReply(c, xi, xiQueryVersion, body)
	if err != nil {
		return 0, 0, err
	}
	if len(r) < 12 {
		return 0, 0, errors.New("short XIQueryVersion reply")
	}
	return int(xgb.Get16(r[8:])), int(xgb.Get16(r[10:])), nil
}

// queryDevices is XIQueryDevice(XIAllDevices).
func queryDevices(c *xgb.Conn, xi byte) ([]xiDevice, error) {
	body := make([]byte, 4)
	xgb.Put16(body, xiAllDevices)
	r, err := xiReply(c, xi, xiQueryDevice, body)
	if err != nil {
		return nil, err
	}
	if len(r) < 32 {
		return nil, errors.New("short XIQueryDevice reply")
	}
	n := int(xgb.Get16(r[8:]))
	out := make([]xiDevice, 0, n)
	p := r[32:]
	for range n {
		if len(p) < 12 {
			return nil, errors.New("short XIQueryDevice reply")
		}
		d := xiDevice{id: int(xgb.Get16(p)), use: int(xgb.Get16(p[2:])), attachment: int(xgb.Get16(p[4:]))}
		classes, nameLen := int(xgb.Get16(p[6:])), int(xgb.Get16(p[8:]))
		p = p[12:]
		if len(p) < xgb.Pad(nameLen) {
			return nil, errors.New("short XIQueryDevice reply")
		}
		d.name = string(p[:nameLen])
		p = p[xgb.Pad(nameLen):]
		for range classes {
			if len(p) < 4 {
				return nil, errors.New("short XIQueryDevice reply")
			}
			l := 4 * int(xgb.Get16(p[2:]))
			if l < 4 || len(p) < l {
				return nil, errors.New("bad XIQueryDevice class")
			}
			p = p[l:]
		}
		out = append(out, d)
	}
	return out, nil
}

// refresh re-learns the devices and which of them are ours: the XTEST
// slaves ("<master name without pointer/keyboard> XTEST pointer/keyboard",
// the server names them so) of the Virtual core pointer and keyboard, the
// masters our Display's XTEST input goes through.
func (w *InputWatch) refresh() error {
	devs, err := queryDevices(w.xc, w.xi)
	if err != nil {
		return fmt.Errorf("x11: XIQueryDevice on %s: %w", w.name, err)
	}
	all := make(map[int]xiDevice, len(devs))
	for _, d := range devs {
		all[d.id] = d
	}
	ours := map[int]bool{}
	for _, d := range devs {
		if d.use == xiMasterPointer || d.use == xiMasterKeyboard {
			continue
		}
		m, ok := all[d.attachment]
		if !ok || m.name != "Virtual core pointer" && m.name != "Virtual core keyboard" {
			continue
		}
		if d.name == "Virtual core XTEST pointer" || d.name == "Virtual core XTEST keyboard" {
			ours[d.id] = true
		}
	}
	w.devMu.Lock()
	w.devs, w.ours = all, ours
	w.devMu.Unlock()
	return nil
}

// Devices names the devices watched now as the person's: every slave
// device (attached or floating) that is not our own XTEST one, sorted.
func (w *InputWatch) Devices() []string {
	w.devMu.Lock()
	defer w.devMu.Unlock()
	var out []string
	for id, d := range w.devs {
		if d.use != xiMasterPointer && d.use != xiMasterKeyboard && !w.ours[id] {
			out = append(out, d.name)
		}
	}
	slices.Sort(out)
	return out
}

// Done is closed when the watch has stopped and fn will not be called
// again.
func (w *InputWatch) Done() <-chan struct{} { return w.done }

// Err says why the watch stopped: nil after Close, else what ended the
// connection. It is nil while the watch runs.
func (w *InputWatch) Err() error {
	select {
	case <-w.done:
		return w.err
	default:
		return nil
	}
}

// Close stops the watch and closes its connection. It returns once fn
// will not be called again; if fn is running at that moment (fn may call
// Close itself), it returns at once and Done is closed when fn returns.
// It is safe to call more than once.
func (w *InputWatch) Close() error {
	w.closing.Store(true)
	w.shut()
	if !w.inFn.Load() {
		<-w.done
	}
	return nil
}

// shut closes the connection: the socket first, so that xgb's own Close
// (a round trip) does not wait on a server that no longer answers.
func (w *InputWatch) shut() {
	w.raw.Close()
	if w.xc != nil {
		w.xc.Close()
	}
}

// run turns raw events into Touches until the connection ends.
func (w *InputWatch) run() {
	defer close(w.done)
	for {
		evs, err := w.q.take()
		for _, e := range evs {
			if w.closing.Load() {
				break
			}
			w.handle(e)
		}
		if err != nil {
			if !w.closing.Load() {
				w.err = fmt.Errorf("x11: input watch on %s: %w", w.name, err)
			}
			w.shut()
			return
		}
	}
}

// handle reports e (motion is thinned already, as it was queued).
func (w *InputWatch) handle(e genEvent) {
	if e.evtype == xiHierarchyChanged {
		// On an error the old list stays; the next change asks again,
		// and a dead connection ends the watch through the reader.
		_ = w.refresh()
		return
	}
	var what string
	switch e.evtype {
	case xiRawKeyPress:
		what = "key"
	case xiRawButtonPress:
		what = "button"
	case xiRawMotion:
		what = "motion"
	case xiRawTouchBegin:
		what = "touch"
	default:
		return
	}
	w.devMu.Lock()
	dev, known := w.devs[e.deviceid]
	src := w.devs[e.sourceid]
	ours := w.ours[e.sourceid]
	w.devMu.Unlock()
	// A slave's event is delivered once from the slave and once more from
	// its master (deviceid the master, sourceid the slave): the slave's
	// copy is the one taken, so that a floating slave is seen too.
	if ours && !w.reportOurs.Load() || known && (dev.use == xiMasterPointer || dev.use == xiMasterKeyboard) {
		return
	}
	name := src.name
	if name == "" {
		name = fmt.Sprintf("device %d", e.sourceid)
	}
	w.inFn.Store(true)
	defer w.inFn.Store(false)
	w.fn(Touch{Device: name, DeviceID: e.sourceid, What: what, At: e.at})
}

// genEvent is one XInput Generic Event, as much of it as we read.
type genEvent struct {
	evtype   int
	deviceid int
	sourceid int // raw events only
	at       time.Time
}

// evQueue carries Generic Events from the reader (xgb's read goroutine,
// inside geSplit.Read) to run. It never blocks the reader, so that xgb's
// replies flow while fn runs; motion is thinned as it is queued (by server
// time, motionEvery per device) so that the queue stays short.
type evQueue struct {
	xi     atomic.Uint32 // XInput's major opcode once known
	notify chan struct{}

	mu         sync.Mutex
	evs        []genEvent
	err        error
	lastMotion map[int]uint32 // server time of the last motion queued, by sourceid
}

// maxQueued bounds the queue should run never take it: beyond it events are
// dropped (only a blocked fn gets there).
const maxQueued = 1 << 14

func (q *evQueue) put(b []byte) {
	if len(b) < 32 || uint32(b[1]) != q.xi.Load() || q.xi.Load() == 0 {
		return
	}
	e := genEvent{evtype: int(xgb.Get16(b[8:])), deviceid: int(xgb.Get16(b[10:])), at: time.Now()}
	stime := xgb.Get32(b[12:])
	if e.evtype >= xiRawKeyPress && e.evtype <= xiRawMotion || e.evtype >= xiRawTouchBegin && e.evtype <= 25 {
		e.sourceid = int(xgb.Get16(b[20:]))
	}
	if e.evtype == xiRawKeyPress+1 || e.evtype == xiRawButtonPress+1 {
		return // releases: the press said it
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if e.evtype == xiRawMotion {
		if q.lastMotion == nil {
			q.lastMotion = map[int]uint32{}
		}
		key := e.sourceid<<16 | e.deviceid
		if t, ok := q.lastMotion[key]; ok && stime-t < uint32(motionEvery/time.Millisecond) {
			return
		}
		q.lastMotion[key] = stime
	}
	if len(q.evs) >= maxQueued {
		return
	}
	q.evs = append(q.evs, e)
	q.wake()
}

func (q *evQueue) wake() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// fail records the end of the stream.
func (q *evQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.wake()
}

// take waits for events or the end; it answers the end only once every
// event before it was taken.
func (q *evQueue) take() ([]genEvent, error) {
	for {
		q.mu.Lock()
		evs, err := q.evs, q.err
		q.evs = nil
		q.mu.Unlock()
		if len(evs) > 0 {
			return evs, nil
		}
		if err != nil {
			return nil, err
		}
		<-q.notify
	}
}

// geSplit frames the server's byte stream (after the setup answer): a
// reply (type 1) or Generic Event (type 35) is 32 bytes and 4×length more,
// every other error or event 32. Generic Events go to q; the rest is read
// by xgb unchanged.
type geSplit struct {
	net.Conn
	r       *bufio.Reader
	q       *evQueue
	pending []byte
}

func (g *geSplit) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		head := make([]byte, 32)
		if _, err := io.ReadFull(g.r, head); err != nil {
			g.q.fail(err)
			return 0, err
		}
		frame := head
		if t := head[0] & 0x7f; t == 1 || t == genericEvent {
			if n := int(xgb.Get32(head[4:])); n > 0 {
				frame = make([]byte, 32+4*n)
				copy(frame, head)
				if _, err := io.ReadFull(g.r, frame[32:]); err != nil {
					g.q.fail(err)
					return 0, err
				}
			}
			if t == genericEvent {
				g.q.put(frame)
				continue
			}
		}
		g.pending = frame
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}
