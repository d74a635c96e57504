package cdp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// transport carries whole CDP messages between a Conn and the browser.
// The Conn's read loop is the only caller of next; writes are serialised by
// the Conn; close may come from any goroutine and wakes a blocked next.
type transport interface {
	// next returns the next incoming message. The bytes are valid until the
	// next call. A message over maxMessage is an error.
	next() ([]byte, error)
	// write sends one message (data is the caller's own, freshly encoded),
	// as one write, given up at deadline.
	write(data []byte, deadline time.Time) error
	close() error
}

// wsTransport is a DevTools WebSocket (client side).
type wsTransport struct {
	nc   net.Conn
	rd   *wsutil.Reader
	ctl  wsutil.FrameHandlerFunc
	wmu  sync.Mutex   // serialises frames on nc: messages and control replies
	wbuf bytes.Buffer // one frame, header and masked payload (under wmu)
	msg  bytes.Buffer // the message next returned last
	// ctlTimeout bounds a control reply (pong, close).
	ctlTimeout time.Duration
}

func newWSTransport(nc net.Conn, src io.Reader, ctlTimeout time.Duration) *wsTransport {
	t := &wsTransport{nc: nc, ctlTimeout: ctlTimeout}
	t.ctl = wsutil.ControlFrameHandler(ctlWriter{t}, ws.StateClientSide)
	t.rd = &wsutil.Reader{
		Source:         src,
		State:          ws.StateClientSide,
		MaxMessageSize: maxMessage,
		OnIntermediate: t.ctl,
	}
	return t
}

// ctlWriter writes control replies (pong, close) under the frame lock.
type ctlWriter struct{ t *wsTransport }

func (w ctlWriter) Write(p []byte) (int, error) {
	w.t.wmu.Lock()
	defer w.t.wmu.Unlock()
	w.t.nc.SetWriteDeadline(time.Now().Add(w.t.ctlTimeout))
	return w.t.nc.Write(p)
}

func (t *wsTransport) next() ([]byte, error) {
	for {
		hdr, err := t.rd.NextFrame()
		if err != nil {
			return nil, err
		}
		if hdr.OpCode.IsControl() {
			if err := t.ctl(hdr, t.rd); err != nil {
				return nil, err
			}
			continue
		}
		if hdr.OpCode != ws.OpText && hdr.OpCode != ws.OpBinary {
			if err := t.rd.Discard(); err != nil {
				return nil, err
			}
			continue
		}
		t.msg.Reset()
		if _, err := t.msg.ReadFrom(t.rd); err != nil {
			return nil, err
		}
		return t.msg.Bytes(), nil
	}
}

func (t *wsTransport) write(data []byte, deadline time.Time) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.nc.SetWriteDeadline(deadline)
	// One write per frame: a header written on its own would cost the
	// browser a second wake-up and read for every command. data is the
	// caller's own freshly encoded message, so it is masked in place.
	f := ws.MaskFrameInPlace(ws.NewFrame(ws.OpText, true, data))
	t.wbuf.Reset()
	err := ws.WriteHeader(&t.wbuf, f.Header)
	if err == nil {
		t.wbuf.Write(f.Payload)
		_, err = t.nc.Write(t.wbuf.Bytes())
	}
	if t.wbuf.Cap() > 1<<20 {
		t.wbuf = bytes.Buffer{} // a big one-off command keeps no big buffer
	}
	return err
}

func (t *wsTransport) close() error { return t.nc.Close() }

// pipeTransport is Chromium's --remote-debugging-pipe: the browser reads
// commands from one pipe and writes replies and events to another, each
// message a JSON text ended by a NUL byte. Nothing listens anywhere: the
// two file descriptors the browser inherited are the only road to it.
type pipeTransport struct {
	r *os.File // the browser's replies and events
	w *os.File // our commands

	// buf[off:] is what was read and not yet returned; buf[off:off+scan]
	// holds no NUL. Only next touches them.
	buf       []byte
	off, scan int
	max       int
}

// pipeChunk is how much one read asks for.
const pipeChunk = 64 << 10

func newPipeTransport(r, w *os.File) *pipeTransport {
	return &pipeTransport{r: r, w: w, max: maxMessage}
}

func (t *pipeTransport) next() ([]byte, error) {
	for {
		rest := t.buf[t.off:]
		if i := bytes.IndexByte(rest[t.scan:], 0); i >= 0 {
			n := t.scan + i
			if n > t.max {
				return nil, fmt.Errorf("a message of %d bytes, over %d", n, t.max)
			}
			msg := rest[:n:n]
			t.off += n + 1
			t.scan = 0
			return msg, nil
		}
		t.scan = len(rest)
		if t.scan > t.max {
			return nil, fmt.Errorf("a message over %d bytes", t.max)
		}
		// Make room: move what is left to the front (the message returned
		// last is no longer the caller's), grow when a chunk does not fit,
		// and drop a big buffer once a big message has gone through.
		if t.off > 0 {
			if cap(t.buf) > 1<<20 && len(rest) < pipeChunk {
				t.buf = append(make([]byte, 0, 2*pipeChunk), rest...)
			} else {
				t.buf = t.buf[:copy(t.buf, rest)]
			}
			t.off = 0
		}
		if cap(t.buf)-len(t.buf) < pipeChunk {
			t.buf = append(make([]byte, 0, 2*cap(t.buf)+pipeChunk), t.buf...)
		}
		n, err := t.r.Read(t.buf[len(t.buf):cap(t.buf)])
		t.buf = t.buf[:len(t.buf)+n]
		if n > 0 {
			continue
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		if len(t.buf) > 0 && errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // a message cut short
		}
		return nil, err
	}
}

func (t *pipeTransport) write(data []byte, deadline time.Time) error {
	if err := t.w.SetWriteDeadline(deadline); err != nil {
		return err
	}
	// One write per message, its terminator included (os.File.Write
	// finishes a short write itself, within the deadline).
	_, err := t.w.Write(append(data, 0))
	return err
}

func (t *pipeTransport) close() error {
	// Closing our write end is the browser's EOF: it then shuts down
	// cleanly on its own. Closing the read end wakes a blocked next.
	errW := t.w.Close()
	errR := t.r.Close()
	return errors.Join(errW, errR)
}
