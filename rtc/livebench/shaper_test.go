package livebench

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The emulated poor link. This kernel has no netem qdisc, so the link is
// emulated in user space at our end of each connection: every packet (or
// TCP chunk) in each direction is serialised at Rate through a queue of at
// most Queue bytes, then delayed by Delay. 100 ms each way is 200 ms RTT.
const (
	linkRate  = 1_000_000 / 8 // bytes per second: 1 Mbit/s
	linkDelay = 100 * time.Millisecond
	linkQueue = 32 << 10 // ≈ 260 ms of queue at 1 Mbit/s, like a small router's
)

// linkDesc says what the poor link is, for the benchmark's table.
const linkDesc = "user-space link: 1 Mbit/s each way, +100 ms each way (200 ms RTT), 32 KB queue (UDP: tail drop; TCP: back-pressure)"

// link is one direction of an emulated link. send hands it a packet; out
// receives the packet when it has crossed.
type link struct {
	rate  float64
	delay time.Duration
	queue int
	out   func(p []byte, addr net.Addr)

	mu        sync.Mutex
	busyUntil time.Time // when the queued packets will have been serialised
	q         chan packet
	dropped   atomic.Int64
	sent      atomic.Int64

	done chan struct{}
}

type packet struct {
	at   time.Time
	p    []byte
	addr net.Addr
}

func newLink(out func([]byte, net.Addr)) *link {
	l := &link{rate: linkRate, delay: linkDelay, queue: linkQueue, out: out, q: make(chan packet, 8192), done: make(chan struct{})}
	go l.deliver()
	return l
}

// backlog is how many bytes wait to be serialised at now. Called with mu.
func (l *link) backlog(now time.Time) int {
	if !l.busyUntil.After(now) {
		return 0
	}
	return int(l.busyUntil.Sub(now).Seconds() * l.rate)
}

// enqueue schedules p (copied); with drop, a packet that does not fit the
// queue is dropped (a router's tail drop) and false returned; without,
// enqueue waits until it fits (TCP's flow control pushing back).
func (l *link) enqueue(p []byte, addr net.Addr, drop bool) bool {
	for {
		now := time.Now()
		l.mu.Lock()
		over := l.backlog(now) + len(p) - l.queue
		if over > 0 && l.backlog(now) > 0 {
			l.mu.Unlock()
			if drop {
				l.dropped.Add(1)
				return false
			}
			select {
			case <-time.After(time.Duration(float64(over) / l.rate * float64(time.Second))):
				continue
			case <-l.done:
				return false
			}
		}
		start := now
		if l.busyUntil.After(now) {
			start = l.busyUntil
		}
		l.busyUntil = start.Add(time.Duration(float64(len(p)) / l.rate * float64(time.Second)))
		pk := packet{at: l.busyUntil.Add(l.delay), p: append([]byte(nil), p...), addr: addr}
		select {
		case l.q <- pk:
			l.sent.Add(1)
		default:
			l.dropped.Add(1)
		}
		l.mu.Unlock()
		return true
	}
}

// deliver hands each packet on when it is due, in order.
func (l *link) deliver() {
	for {
		select {
		case pk := <-l.q:
			if d := time.Until(pk.at); d > 0 {
				select {
				case <-time.After(d):
				case <-l.done:
					return
				}
			}
			l.out(pk.p, pk.addr)
		case <-l.done:
			return
		}
	}
}

func (l *link) close() {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
}

// shapedPacketConn is a UDP socket whose traffic both ways crosses the
// emulated link: what we write is queued and delayed before it is sent,
// what arrives is queued and delayed before we read it. A packet that finds
// the queue full is dropped, as a router drops it.
type shapedPacketConn struct {
	net.PacketConn
	up, down *link
	in       chan packet
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	deadline time.Time
}

func newShapedPacketConn(inner net.PacketConn) *shapedPacketConn {
	c := &shapedPacketConn{PacketConn: inner, in: make(chan packet, 8192), closed: make(chan struct{})}
	c.up = newLink(func(p []byte, addr net.Addr) { _, _ = inner.WriteTo(p, addr) })
	c.down = newLink(func(p []byte, addr net.Addr) {
		select {
		case c.in <- packet{p: p, addr: addr}:
		default: // the reader is far behind: lost
		}
	})
	go c.read()
	return c
}

func (c *shapedPacketConn) read() {
	buf := make([]byte, 65536)
	for {
		n, addr, err := c.PacketConn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		c.down.enqueue(buf[:n], addr, true)
	}
}

func (c *shapedPacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	c.up.enqueue(p, addr, true)
	return len(p), nil
}

func (c *shapedPacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	c.mu.Lock()
	dl := c.deadline
	c.mu.Unlock()
	var timeout <-chan time.Time
	if !dl.IsZero() {
		t := time.NewTimer(time.Until(dl))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case pk := <-c.in:
		return copy(p, pk.p), pk.addr, nil
	case <-c.closed:
		return 0, nil, net.ErrClosed
	case <-timeout:
		return 0, nil, os.ErrDeadlineExceeded
	}
}

func (c *shapedPacketConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return nil
}

func (c *shapedPacketConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.PacketConn.SetWriteDeadline(t)
}

func (c *shapedPacketConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		c.up.close()
		c.down.close()
		err = c.PacketConn.Close()
	})
	return err
}

// dropped counts the packets the link's queues dropped, both ways.
func (c *shapedPacketConn) dropped() int64 { return c.up.dropped.Load() + c.down.dropped.Load() }

// shapedProxy listens on 127.0.0.1 and forwards each connection to target
// through the emulated link, both directions. TCP never loses a byte, so a
// full queue stops the proxy reading (back-pressure) instead of dropping.
type shapedProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	links  []*link
	wg     sync.WaitGroup
}

func newShapedProxy(target string) (*shapedProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &shapedProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *shapedProxy) Addr() string { return p.ln.Addr().String() }

func (p *shapedProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		// Small socket buffers on the proxy's side, so that the queue that
		// matters is the link's, as on a real narrow link.
		if tc, ok := u.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(32 << 10)
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(32 << 10)
		}
		down := newLink(func(b []byte, _ net.Addr) { _, _ = c.Write(b) })
		up := newLink(func(b []byte, _ net.Addr) { _, _ = u.Write(b) })
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.links = append(p.links, down, up)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(u, c, down)
		go p.pipe(c, u, up)
	}
}

// pipe reads src and sends what it read across l to dst, in segments of
// at most one MTU, until src ends; then, once the queue has crossed, it
// closes dst's writing side.
func (p *shapedProxy) pipe(src, dst net.Conn, l *link) {
	defer p.wg.Done()
	buf := make([]byte, 1448)
	for {
		n, err := src.Read(buf)
		if n > 0 && !l.enqueue(buf[:n], nil, false) {
			return
		}
		if err != nil {
			select {
			case <-time.After(l.delay + time.Duration(float64(l.queue)/l.rate*float64(time.Second))):
			case <-l.done:
			}
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			return
		}
	}
}

// Close stops the proxy and every connection through it.
func (p *shapedProxy) Close() error {
	err := p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	for _, l := range p.links {
		l.close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}
