package x11

import (
	"context"
	"fmt"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xproto"

	"github.com/vibespace/vibespace/target"
)

// Damage watches one window's pixels through the X DAMAGE extension: C
// delivers a signal whenever they changed since the last signal. The
// damage object reports at level NonEmpty, so the server sends one event
// when the window's damage goes from empty to not empty; on that event we
// subtract the whole damage (re-arming it) before signalling, so a read of
// the window made after the signal, on the same connection, sees every
// change the signal stands for. Drawing into a window that another window
// covers signals too when the window keeps its own pixels (Composite
// redirection, KeepOwnPixels): its pixmap changed.
type Damage struct {
	d      *Display
	id     damage.Damage
	win    WindowID
	c      chan struct{}
	done   chan struct{}
	end    sync.Once
	closed sync.Once
}

// damageState is a Display's table of watchers, read by its event loop.
type damageState struct {
	mu       sync.Mutex
	initDone bool
	initErr  error
	byID     map[damage.Damage]*Damage
	byWin    map[WindowID][]*Damage
}

// C is signalled (capacity 1, coalescing) when the window's pixels changed,
// and once more when the window is destroyed or the watcher closed; then
// Done is closed.
func (g *Damage) C() <-chan struct{} { return g.c }

// Done is closed when the watcher ended: the window was destroyed or Close
// was called.
func (g *Damage) Done() <-chan struct{} { return g.done }

// Window is the window watched.
func (g *Damage) Window() WindowID { return g.win }

func (g *Damage) signal() {
	select {
	case g.c <- struct{}{}:
	default:
	}
}

// finish ends the watcher and wakes its consumer.
func (g *Damage) finish() {
	g.end.Do(func() {
		close(g.done)
		g.signal()
	})
}

// Close destroys the damage object and ends the watcher. It is safe to call
// more than once.
func (g *Damage) Close() error {
	var err error
	g.closed.Do(func() {
		g.d.dropDamage(g)
		g.finish()
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		// Unchecked: a window already destroyed took its damage object
		// with it, and the server's BadDamage goes to the event loop.
		_, err = call(ctx, g.d, "DamageDestroy", func() (struct{}, error) {
			damage.Destroy(g.d.conn, g.id)
			return struct{}{}, nil
		})
		if err == ErrClosed {
			err = nil
		}
	})
	return err
}

// WatchDamage starts watching window id's pixels. A server without DAMAGE
// answers an error; so does a window that is gone (window_gone).
func (d *Display) WatchDamage(ctx context.Context, id WindowID) (*Damage, error) {
	if err := d.initDamage(ctx); err != nil {
		return nil, err
	}
	g := &Damage{d: d, win: id, c: make(chan struct{}, 1), done: make(chan struct{})}
	_, err := call(ctx, d, "DamageCreate "+id.String(), func() (struct{}, error) {
		did, err := damage.NewDamageId(d.conn)
		if err != nil {
			return struct{}{}, err
		}
		g.id = did
		// Registered before the request: the first event may come at once.
		d.addDamage(g)
		// Our connection's own event mask on the window, plus
		// StructureNotify, so that its destruction ends the watcher.
		a, err := xproto.GetWindowAttributes(d.conn, xproto.Window(id)).Reply()
		if err != nil {
			d.dropDamage(g)
			return struct{}{}, goneOr(err, id)
		}
		mask := a.YourEventMask | xproto.EventMaskStructureNotify
		if err := xproto.ChangeWindowAttributesChecked(d.conn, xproto.Window(id), xproto.CwEventMask, []uint32{mask}).Check(); err != nil {
			d.dropDamage(g)
			return struct{}{}, goneOr(err, id)
		}
		if err := damage.CreateChecked(d.conn, did, xproto.Drawable(id), damage.ReportLevelNonEmpty).Check(); err != nil {
			d.dropDamage(g)
			return struct{}{}, goneOr(err, id)
		}
		return struct{}{}, nil
	})
	if err != nil {
		d.dropDamage(g)
		return nil, err
	}
	return g, nil
}

// initDamage negotiates DAMAGE once per connection.
func (d *Display) initDamage(ctx context.Context) error {
	s := &d.ext.dmg
	s.mu.Lock()
	if s.initDone {
		err := s.initErr
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	_, err := call(ctx, d, "DAMAGE version", func() (struct{}, error) {
		if err := damage.Init(d.conn); err != nil {
			return struct{}{}, fmt.Errorf("x11: the X server offers no DAMAGE extension: %w", err)
		}
		if _, err := damage.QueryVersion(d.conn, 1, 1).Reply(); err != nil {
			return struct{}{}, fmt.Errorf("x11: damage version: %w", err)
		}
		return struct{}{}, nil
	})
	if target.CodeOf(err) == target.CodeTimeout || err == ErrClosed {
		return err // not remembered: the next call asks again
	}
	s.mu.Lock()
	s.initDone, s.initErr = true, err
	s.mu.Unlock()
	return err
}

func (d *Display) addDamage(g *Damage) {
	s := &d.ext.dmg
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = make(map[damage.Damage]*Damage)
		s.byWin = make(map[WindowID][]*Damage)
	}
	s.byID[g.id] = g
	s.byWin[g.win] = append(s.byWin[g.win], g)
}

func (d *Display) dropDamage(g *Damage) {
	s := &d.ext.dmg
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID[g.id] == g {
		delete(s.byID, g.id)
	}
	ws := s.byWin[g.win]
	for i, h := range ws {
		if h == g {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.byWin, g.win)
	} else {
		s.byWin[g.win] = ws
	}
}

// dispatchDamage hands ev to the watcher it concerns. It runs on the event
// loop and never waits for a reply.
func (d *Display) dispatchDamage(ev xgb.Event) {
	s := &d.ext.dmg
	switch e := ev.(type) {
	case damage.NotifyEvent:
		s.mu.Lock()
		g := s.byID[e.Damage]
		s.mu.Unlock()
		if g == nil {
			return
		}
		// Re-arm first: the subtract reaches the server before any read
		// the signal causes.
		damage.Subtract(d.conn, e.Damage, 0, 0)
		g.signal()
	case xproto.DestroyNotifyEvent:
		s.mu.Lock()
		gs := append([]*Damage(nil), s.byWin[WindowID(e.Window)]...)
		delete(s.byWin, WindowID(e.Window))
		for _, g := range gs {
			delete(s.byID, g.id)
		}
		s.mu.Unlock()
		for _, g := range gs {
			g.finish()
		}
	}
}

// endDamage ends every watcher when the connection closes.
func (d *Display) endDamage() {
	s := &d.ext.dmg
	s.mu.Lock()
	var gs []*Damage
	for _, g := range s.byID {
		gs = append(gs, g)
	}
	s.byID, s.byWin = nil, nil
	s.mu.Unlock()
	for _, g := range gs {
		g.finish()
	}
}
