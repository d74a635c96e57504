package atspi

import (
	"context"
)

// peerSlot is the peer-to-peer connection to one application, opened at
// most once at a time: concurrent callers wait for the first one's answer.
type peerSlot struct {
	ready chan struct{} // closed once conn is set
	conn  *wconn        // nil: use the bus
}

func (p *peerSlot) close() {
	<-p.ready
	if p.conn != nil {
		p.conn.Close()
	}
}

// route returns where calls to the application with bus name name go: its
// peer-to-peer socket (Application.GetApplicationBusAddress) when it offers
// one, the accessibility bus otherwise. An application that does not answer
// the question in time is reached through the bus this time and asked again
// next time.
func (b *Bus) route(ctx context.Context, name string) route {
	bus := route{c: b.wbus, dest: name}
	if b.opts.NoPeer || name == registryName || name == "" {
		return bus
	}
	b.mu.Lock()
	p, ok := b.peers[name]
	if ok {
		b.mu.Unlock()
		select {
		case <-p.ready:
		case <-ctx.Done():
			return bus
		}
		if p.conn == nil {
			return bus
		}
		if p.conn.alive() {
			return route{c: p.conn}
		}
		// The application went away (or restarted its bridge), or a write
		// to it stalled: forget it; the next call dials anew. A dead
		// connection's socket is shut down already (wconn.kill) and its
		// reader, which may not have seen the end yet, frees it: nothing
		// here waits for that.
		b.mu.Lock()
		if b.peers[name] == p {
			delete(b.peers, name)
		}
		b.mu.Unlock()
		return bus
	}
	p = &peerSlot{ready: make(chan struct{})}
	b.peers[name] = p
	b.mu.Unlock()

	conn, keep := b.openPeer(ctx, bus)
	p.conn = conn
	close(p.ready)
	if !keep {
		b.mu.Lock()
		if b.peers[name] == p {
			delete(b.peers, name)
		}
		b.mu.Unlock()
	}
	if conn == nil {
		return bus
	}
	return route{c: conn}
}

// openPeer asks the application for its peer socket and connects to it.
// keep is false when the outcome should not be remembered (the application
// did not answer in time).
func (b *Bus) openPeer(ctx context.Context, bus route) (conn *wconn, keep bool) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := bus.call(cctx, rootPath, ifaceApplication+".GetApplicationBusAddress")
	var addr string
	if r.err == nil {
		addr = r.body.str()
		r.err = r.body.err
	}
	if r.err != nil {
		b.log.Debug("atspi: no peer socket", "app", bus.dest, "err", r.err)
		return nil, cctx.Err() == nil
	}
	if addr == "" {
		return nil, true
	}
	conn, err := dialWire(cctx, addr, false, b.opts.CallTimeout, b.opts.Calls)
	if err != nil {
		b.log.Debug("atspi: peer socket refused", "app", bus.dest, "addr", addr, "err", err)
		return nil, cctx.Err() == nil
	}
	b.log.Debug("atspi: peer socket", "app", bus.dest, "addr", addr)
	return conn, true
}
