package x11

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// clientSyncTimeout bounds one wait for a client's _NET_WM_PING answer.
const clientSyncTimeout = time.Second

// errNoPing means the focused client cannot tell us it has read its events:
// there is no focused client, or it does not speak _NET_WM_PING.
var errNoPing = errors.New("x11: the focused window does not answer _NET_WM_PING")

// pongListener is a second connection to the display that selects
// SubstructureNotify on the root window, the only way to receive the
// _NET_WM_PING answers clients send there. It is opened on first use, so a
// Display that only lists windows never opens it.
type pongListener struct {
	conn *xgb.Conn
	ping xproto.Atom

	mu      sync.Mutex
	next    uint32
	waiters map[uint32]chan struct{}
}

// syncClient returns once the client owning the keyboard focus has read
// every event sent before the call: it sends that window a _NET_WM_PING
// after them and waits for the answer. errNoPing if it cannot be asked.
func (d *Display) syncClient(ctx context.Context) error {
	top, err := d.focusTop(ctx)
	if err != nil {
		return err
	}
	protos, err := d.atom(ctx, "WM_PROTOCOLS")
	if err != nil {
		return err
	}
	ping, err := d.atom(ctx, "_NET_WM_PING")
	if err != nil {
		return err
	}
	speaks, err := call(ctx, d, "read WM_PROTOCOLS", func() (bool, error) {
		r, err := xproto.GetProperty(d.conn, false, top, protos, xproto.AtomAtom, 0, 64).Reply()
		if err != nil {
			return false, err
		}
		for i := 0; i+4 <= len(r.Value); i += 4 {
			if xproto.Atom(xgb.Get32(r.Value[i:])) == ping {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if !speaks {
		return errNoPing
	}
	l, err := d.pongs(ctx, ping)
	if err != nil {
		return err
	}
	token, ch := l.wait()
	defer l.forget(token)
	ev := xproto.ClientMessageEvent{
		Format: 32, Window: top, Type: protos,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(ping), token, uint32(top), 0, 0}),
	}
	xproto.SendEvent(d.conn, false, top, xproto.EventMaskNoEvent, string(ev.Bytes()))
	ctx, cancel := context.WithTimeout(ctx, clientSyncTimeout)
	defer cancel()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return timeoutRefusal("_NET_WM_PING of window "+WindowID(top).String(), ctx.Err())
	case <-d.done:
		return ErrClosed
	}
}

// focusTop is the top-level window that receives keyboard events now: the
// focus window's top-level ancestor, or under PointerRoot focus the
// top-level under the pointer.
func (d *Display) focusTop(ctx context.Context) (xproto.Window, error) {
	return call(ctx, d, "find the focused window", func() (xproto.Window, error) {
		f, err := xproto.GetInputFocus(d.conn).Reply()
		if err != nil {
			return 0, err
		}
		w := f.Focus
		if w == xproto.InputFocusNone || w == xproto.InputFocusPointerRoot || w == d.root {
			p, err := xproto.QueryPointer(d.conn, d.root).Reply()
			if err != nil {
				return 0, err
			}
			w = p.Child
		}
		for range 64 {
			if w == 0 {
				return 0, errNoPing
			}
			t, err := xproto.QueryTree(d.conn, w).Reply()
			if err != nil {
				return 0, errNoPing // gone since: nobody left to read the events
			}
			if t.Parent == d.root {
				return w, nil
			}
			w = t.Parent
		}
		return 0, errNoPing
	})
}

// pongs opens the listener connection once.
func (d *Display) pongs(ctx context.Context, ping xproto.Atom) (*pongListener, error) {
	d.ext.pongMu.Lock()
	defer d.ext.pongMu.Unlock()
	if d.ext.pong != nil {
		return d.ext.pong, nil
	}
	l, err := call(ctx, d, "open the ping listener", func() (*pongListener, error) {
		c, err := xgb.NewConnDisplay(d.name)
		if err != nil {
			return nil, err
		}
		err = xproto.ChangeWindowAttributesChecked(c, d.root, xproto.CwEventMask,
			[]uint32{xproto.EventMaskSubstructureNotify}).Check()
		if err != nil {
			c.Close()
			return nil, err
		}
		return &pongListener{conn: c, ping: ping, waiters: map[uint32]chan struct{}{}}, nil
	})
	if err != nil {
		return nil, err
	}
	d.ext.pong = l
	go l.run()
	return l, nil
}

// run reads the listener's events until its connection closes.
func (l *pongListener) run() {
	for {
		ev, err := l.conn.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		cm, ok := ev.(xproto.ClientMessageEvent)
		if !ok || cm.Format != 32 || xproto.Atom(cm.Data.Data32[0]) != l.ping {
			continue
		}
		l.mu.Lock()
		if ch, ok := l.waiters[cm.Data.Data32[1]]; ok {
			close(ch)
			delete(l.waiters, cm.Data.Data32[1])
		}
		l.mu.Unlock()
	}
}

func (l *pongListener) wait() (uint32, chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	ch := make(chan struct{})
	l.waiters[l.next] = ch
	return l.next, ch
}

func (l *pongListener) forget(token uint32) {
	l.mu.Lock()
	delete(l.waiters, token)
	l.mu.Unlock()
}

// closeSync closes the listener connection, if it was opened.
func (d *Display) closeSync() {
	d.ext.pongMu.Lock()
	defer d.ext.pongMu.Unlock()
	if d.ext.pong != nil {
		d.ext.pong.conn.Close()
		d.ext.pong = nil
	}
}

// Settle waits until the client owning the keyboard focus has read every
// event sent before the call, so what a verb typed has reached the
// application before the verb answers. A GTK client answers _NET_WM_PING
// only once it has handled the events queued before it (GDK reads one event
// at a time and handles it before it reads the next), so for GTK the answer
// also means the keys were handled. It reports false, with no error, when
// the client cannot tell: it does not speak _NET_WM_PING, there is no
// focused client, or it did not answer within clientSyncTimeout (a busy
// application; the events are still queued for it). Only a cancelled ctx
// or a closed Display is an error.
func (d *Display) Settle(ctx context.Context) (bool, error) {
	err := d.syncClient(ctx)
	switch {
	case err == nil:
		return true, nil
	case ctx.Err() != nil:
		return false, timeoutRefusal("wait for the focused client", ctx.Err())
	case errors.Is(err, ErrClosed):
		return false, err
	default:
		return false, nil
	}
}
