package x11

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
)

// Options say how OpenWith and WatchInput reach a display that is not one
// of ours: the user's own desktop.
type Options struct {
	// Xauthority is the path of the Xauthority file whose
	// MIT-MAGIC-COOKIE-1 for the display authenticates the connection
	// (the user's own, never $XAUTHORITY of our process). Empty: the
	// connection carries no cookie, as to our own displays, which admit
	// our uid by the server-interpreted localuser rule.
	Xauthority string
}

// OpenWith connects to the X display name as Open does, but dials the
// server itself and authenticates with the cookie o.Xauthority holds for
// that display: it never reads $DISPLAY, $XAUTHORITY or ~/.Xauthority.
// ":N" is Linux's abstract socket @/tmp/.X11-unix/XN, or the file socket
// of that name when there is no abstract one; "host:N" is TCP, to a loopback address
// only. A missing or unreadable file, or one without an entry for the
// display, is an error naming the file (never the cookie); so is a server
// that refuses the cookie.
func OpenWith(ctx context.Context, name string, o Options) (*Display, error) {
	tr := new(traffic)
	d, err := openConn(ctx, name, func(ctx context.Context) (*xgb.Conn, error) {
		c, setup, err := dialSetup(ctx, name, o)
		if err != nil {
			return nil, err
		}
		nc := &setupConn{Conn: c, reply: setup, traffic: tr}
		xc, err := xgb.NewConnNet(nc)
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("x11: connect to %s: %w", name, err)
		}
		return xc, nil
	})
	if err != nil {
		return nil, err
	}
	d.traffic = tr
	return d, nil
}

// displayAddr is a display name taken apart.
type displayAddr struct {
	host   string // "" for the local socket
	number int
}

func parseDisplay(name string) (displayAddr, error) {
	i := strings.LastIndex(name, ":")
	if i < 0 {
		return displayAddr{}, fmt.Errorf("x11: bad display name %q", name)
	}
	host, rest := name[:i], name[i+1:]
	if strings.Contains(host, "/") {
		return displayAddr{}, fmt.Errorf("x11: display %q: only \":N\" and \"host:N\" are understood", name)
	}
	if j := strings.IndexByte(rest, '.'); j >= 0 {
		rest = rest[:j] // the screen: we use the default one
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return displayAddr{}, fmt.Errorf("x11: bad display name %q", name)
	}
	if host == "unix" {
		host = ""
	}
	return displayAddr{host: host, number: n}, nil
}

// dialSocket reaches the server: the abstract socket, else the file socket
// of the same name (a server started with -nolisten local has only that),
// or TCP to a loopback address. The abstract socket comes first, as libxcb
// has it: it belongs to this network namespace's server alone, while the
// file in the shared /tmp can be another namespace's — an X server there
// that tries the same display number replaces the file before it finds
// the number's lock taken.
func dialSocket(ctx context.Context, a displayAddr) (net.Conn, error) {
	var d net.Dialer
	if a.host == "" {
		path := "/tmp/.X11-unix/X" + strconv.Itoa(a.number)
		if c, err := d.DialContext(ctx, "unix", "@"+path); err == nil {
			return c, nil
		}
		return d.DialContext(ctx, "unix", path)
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, a.host)
	if err != nil {
		return nil, err
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return nil, fmt.Errorf("%s is not a loopback address: only this machine's displays are reached", a.host)
		}
	}
	return d.DialContext(ctx, "tcp", net.JoinHostPort(a.host, strconv.Itoa(6000+a.number)))
}

// Xauthority families (Xauth.h).
const (
	familyLocal = 256
	familyWild  = 0xffff
)

// cookieFor reads the MIT-MAGIC-COOKIE-1 the Xauthority file at path holds
// for display a: the first entry, in file order, that is FamilyWild, or
// FamilyLocal with this machine's hostname for a local display (FamilyLocal
// of this hostname too for a loopback TCP display, as Xlib does), whose
// display number is the display's or empty. Errors name the file, never a
// cookie.
func cookieFor(path string, a displayAddr) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("x11: Xauthority %s: %w", path, err)
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("x11: Xauthority %s: this machine's hostname: %w", path, err)
	}
	want := strconv.Itoa(a.number)
	r := bytes.NewReader(raw)
	field := func() ([]byte, error) {
		var n uint16
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return nil, err
		}
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	for r.Len() > 0 {
		var family uint16
		if err := binary.Read(r, binary.BigEndian, &family); err != nil {
			return nil, fmt.Errorf("x11: Xauthority %s is malformed", path)
		}
		var f [4][]byte // address, display, auth name, auth data
		for i := range f {
			if f[i], err = field(); err != nil {
				return nil, fmt.Errorf("x11: Xauthority %s is malformed", path)
			}
		}
		addrOK := family == familyWild || family == familyLocal && string(f[0]) == host
		dispOK := len(f[1]) == 0 || string(f[1]) == want
		if addrOK && dispOK && string(f[2]) == "MIT-MAGIC-COOKIE-1" && len(f[3]) == 16 {
			return f[3], nil
		}
	}
	return nil, fmt.Errorf("x11: Xauthority %s has no MIT-MAGIC-COOKIE-1 for display :%d of %s (family Local or Wild)", path, a.number, host)
}

// DialConn dials the X display name (see OpenWith for the names and the
// Xauthority file) and makes the connection setup itself, under ctx,
// authenticated by o. The answer is a net.Conn for an X library's
// NewConnNet: it swallows the library's own setup request (whatever cookie
// the library found or did not) and replays the server's setup answer to
// it, then carries the library's bytes both ways.
func DialConn(ctx context.Context, name string, o Options) (net.Conn, error) {
	c, setup, err := dialSetup(ctx, name, o)
	if err != nil {
		return nil, err
	}
	return &setupConn{Conn: c, reply: setup}, nil
}

// dialSetup dials the display and makes the connection setup: the raw
// connection and the server's setup answer.
func dialSetup(ctx context.Context, name string, o Options) (net.Conn, []byte, error) {
	a, err := parseDisplay(name)
	if err != nil {
		return nil, nil, err
	}
	var cookie []byte
	if o.Xauthority != "" {
		if cookie, err = cookieFor(o.Xauthority, a); err != nil {
			return nil, nil, err
		}
	}
	ctx, cancel := withDefault(ctx)
	defer cancel()
	c, err := dialSocket(ctx, a)
	if err != nil {
		return nil, nil, fmt.Errorf("x11: connect to %s: %w", name, err)
	}
	setup, err := handshake(ctx, c, cookie)
	if err != nil {
		c.Close()
		what := "without a cookie"
		if o.Xauthority != "" {
			what = "with the cookie of " + o.Xauthority
		}
		return nil, nil, fmt.Errorf("x11: connect to %s %s: %w", name, what, err)
	}
	return c, setup, nil
}

// handshake sends the connection setup request (little-endian, protocol
// 11.0, MIT-MAGIC-COOKIE-1 when cookie is set) and reads the answer, all of
// it, under ctx.
func handshake(ctx context.Context, c net.Conn, cookie []byte) ([]byte, error) {
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	authName := ""
	if cookie != nil {
		authName = "MIT-MAGIC-COOKIE-1"
	}
	buf := make([]byte, 12+xgb.Pad(len(authName))+xgb.Pad(len(cookie)))
	buf[0] = 'l'
	xgb.Put16(buf[2:], 11)
	xgb.Put16(buf[6:], uint16(len(authName)))
	xgb.Put16(buf[8:], uint16(len(cookie)))
	copy(buf[12:], authName)
	copy(buf[12+xgb.Pad(len(authName)):], cookie)
	if _, err := c.Write(buf); err != nil {
		return nil, ctxOr(ctx, err)
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return nil, ctxOr(ctx, err)
	}
	reply := make([]byte, 8+4*int(xgb.Get16(head[6:])))
	copy(reply, head)
	if _, err := io.ReadFull(c, reply[8:]); err != nil {
		return nil, ctxOr(ctx, err)
	}
	switch head[0] {
	case 1:
		if !stop() {
			return nil, ctx.Err()
		}
		return reply, nil
	case 0:
		n := min(int(head[1]), len(reply)-8)
		return nil, fmt.Errorf("the X server refused the connection: %s", strings.TrimSpace(string(reply[8:8+n])))
	default:
		return nil, errors.New("the X server asks for more authentication than a cookie")
	}
}

func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// setupConn is a connection whose setup is done: the first Write (the X
// library's setup request) is dropped, and Reads answer the setup reply
// first. (xgb's NewConnNet still looks up a cookie in $XAUTHORITY before it
// writes; whatever it finds is dropped with its request. Only an entry
// there that is not MIT-MAGIC-COOKIE-1 and matches first makes xgb give up
// before writing, which is its error, not a wrong cookie sent.)
type setupConn struct {
	net.Conn
	reply []byte // still to be read
	// wrote: the setup request was swallowed. xgb writes it and reads the
	// answer on the goroutine that called NewConnNet, before it starts
	// its reader and writer goroutines, so neither field races.
	wrote bool
	// traffic (nil: not counted) counts the requests written and the
	// replies read; out and in follow the two byte streams (each used by
	// one goroutine of xgb's).
	traffic *traffic
	out     streamCount
	in      streamCount
}

func (c *setupConn) Read(p []byte) (int, error) {
	if len(c.reply) > 0 {
		n := copy(p, c.reply)
		c.reply = c.reply[n:]
		return n, nil
	}
	n, err := c.Conn.Read(p)
	if c.traffic != nil {
		if r := c.in.replies(p[:n]); r > 0 {
			c.traffic.replies.Add(uint64(r))
		}
	}
	return n, err
}

func (c *setupConn) Write(p []byte) (int, error) {
	if !c.wrote {
		c.wrote = true
		return len(p), nil
	}
	n, err := c.Conn.Write(p)
	if c.traffic != nil {
		if r := c.out.requests(p[:n]); r > 0 {
			c.traffic.requests.Add(uint64(r))
		}
	}
	return n, err
}

// traffic is what one connection sent and waited for since it was set up.
type traffic struct {
	requests atomic.Uint64 // requests written
	replies  atomic.Uint64 // replies read: one per request that waits for an answer
}

// Traffic is what a connection sent and was answered since it was set up.
type Traffic struct {
	// Requests is the X requests written, whether or not they wait for
	// an answer (an XTEST FakeInput does not).
	Requests uint64
	// Replies is the replies read: one for every request that asked for
	// an answer (an error instead of a reply is not counted). A caller
	// waits for each, though requests sent together are waited for
	// together.
	Replies uint64
}

// Add is t and u together.
func (t Traffic) Add(u Traffic) Traffic {
	return Traffic{Requests: t.Requests + u.Requests, Replies: t.Replies + u.Replies}
}

// Sub is what t counts beyond an earlier count u.
func (t Traffic) Sub(u Traffic) Traffic {
	return Traffic{Requests: t.Requests - u.Requests, Replies: t.Replies - u.Replies}
}

// Traffic counts the requests this connection wrote and the replies it
// read, since it was opened (setup excluded). Counting costs a look at
// each message's header as it passes: it is always on. A test or a
// benchmark reads it before and after a call: the round trips a verb
// costs on the X road.
func (d *Display) Traffic() Traffic {
	if d.traffic == nil {
		return Traffic{}
	}
	return Traffic{Requests: d.traffic.requests.Load(), Replies: d.traffic.replies.Load()}
}

// streamCount follows one direction of the X byte stream (little-endian,
// as handshake sets up) across reads or writes cut anywhere, to count its
// messages by their headers.
type streamCount struct {
	head [32]byte // the header read so far of the message in hand
	got  int      // bytes of head filled
	skip uint64   // bytes of the message in hand still to pass
}

// pass passes over what is left of the message in hand in p, and returns
// the rest of p.
func (s *streamCount) pass(p []byte) []byte {
	k := min(uint64(len(p)), s.skip)
	s.skip -= k
	return p[k:]
}

// requests counts the requests that start in p, client to server: a
// request's header is 4 bytes (its length in 4-byte units at byte 2), or
// 8 under BIG-REQUESTS (length 0 there, the length at byte 4).
func (s *streamCount) requests(p []byte) int {
	n := 0
	for len(p) > 0 {
		if s.skip > 0 {
			p = s.pass(p)
			continue
		}
		if s.got < 4 {
			k := copy(s.head[s.got:4], p)
			s.got += k
			p = p[k:]
			if s.got < 4 {
				break
			}
		}
		units := uint64(binary.LittleEndian.Uint16(s.head[2:4]))
		if units == 0 {
			k := copy(s.head[s.got:8], p)
			s.got += k
			p = p[k:]
			if s.got < 8 {
				break
			}
			units = uint64(binary.LittleEndian.Uint32(s.head[4:8]))
			s.skip = max(units*4, 8) - 8
		} else {
			s.skip = units*4 - 4
		}
		s.got = 0
		n++
	}
	return n
}

// replies counts the replies that start in p, server to client: every
// message is 32 bytes, and a reply (type 1) or a generic event (type 35)
// has 4 more bytes for each unit of its length at byte 4.
func (s *streamCount) replies(p []byte) int {
	n := 0
	for len(p) > 0 {
		if s.skip > 0 {
			p = s.pass(p)
			continue
		}
		k := copy(s.head[s.got:32], p)
		s.got += k
		p = p[k:]
		if s.got < 32 {
			break
		}
		s.got = 0
		switch {
		case s.head[0] == 1:
			n++
			s.skip = 4 * uint64(binary.LittleEndian.Uint32(s.head[4:8]))
		case s.head[0]&0x7f == 35:
			s.skip = 4 * uint64(binary.LittleEndian.Uint32(s.head[4:8]))
		}
	}
	return n
}
