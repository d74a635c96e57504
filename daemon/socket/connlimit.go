package socket

import (
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/target"
)

// Connections that sit idle must not lock well-behaved clients out (issue
// 11: 66 idle sockets got every CLI refused busy for the 30 s idle
// timeout). Two rules keep serving: one peer process holds at most
// Options.MaxConnsPerPeer connections, and when every slot is taken, the
// connection that has waited longest for a request (idleEvictAfter at
// least) is hung up on to let the newcomer in. A connection running a verb
// is never let go.

// idleEvictAfter is how long a connection must have waited for a request
// before a newcomer may take its slot: a client sends its request at once
// after it connects (microseconds; a loaded machine, milliseconds).
const idleEvictAfter = time.Second

// refusedLogEvery bounds the log lines of refused and evicted connections:
// one, then at most one per this long, with how many it stands for.
const refusedLogEvery = 10 * time.Second

// connGate holds what Serve knows of each connection it serves.
type connGate struct {
	mu      sync.Mutex
	conns   map[net.Conn]*connState
	perPeer map[int32]int // connections served by peer PID

	logged  time.Time // the last refusal or eviction logged
	refused int       // refusals since, not logged
	evicted int       // evictions since, not logged
}

// connState is one served connection.
type connState struct {
	pid     int32     // the peer's PID (SO_PEERCRED); 0 unknown
	waiting time.Time // since when it waits for a request; zero while it runs one
	let     bool      // hung up on for a newcomer, who has its slot now
}

// admit gives c a slot, or says why not. Its peer holding its share
// already, or every slot taken, the connection that has waited longest for
// a request (of that peer, or of anyone) gives its slot to c if it has
// waited idleEvictAfter; else c is refused busy. It never blocks.
func (s *Server) admit(c net.Conn) error {
	pid := peerPID(c)
	g := &s.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.conns == nil {
		g.conns, g.perPeer = make(map[net.Conn]*connState), make(map[int32]int)
	}
	now := time.Now()
	switch {
	case pid != 0 && g.perPeer[pid] >= s.opt.MaxConnsPerPeer:
		if !g.letGo(s, now, pid) {
			return target.Refuse(target.CodeBusy, "the daemon is serving %d connections of process %d already, the most one process gets, and none has been idle for %v; close some, or try again", g.perPeer[pid], pid, idleEvictAfter).
				With("limit", s.opt.MaxConnsPerPeer).With("pid", pid)
		}
	default:
		select {
		case s.slots <- struct{}{}:
		default:
			if !g.letGo(s, now, 0) {
				return target.Refuse(target.CodeBusy, "the daemon is serving %d connections already, its limit, and none has been idle for %v; try again", s.opt.MaxConns, idleEvictAfter).
					With("limit", s.opt.MaxConns)
			}
		}
	}
	g.conns[c] = &connState{pid: pid, waiting: now}
	g.perPeer[pid]++
	return nil
}

// letGo hangs up on the connection (of peer pid; 0: of anyone) that has
// waited longest for a request, if that is idleEvictAfter at least; its
// slot is the newcomer's then. It reports whether it found one.
func (g *connGate) letGo(s *Server, now time.Time, pid int32) bool {
	var victim net.Conn
	var oldest time.Time
	for vc, st := range g.conns {
		if st.let || st.waiting.IsZero() || now.Sub(st.waiting) < idleEvictAfter || (pid != 0 && st.pid != pid) {
			continue
		}
		if victim == nil || st.waiting.Before(oldest) {
			victim, oldest = vc, st.waiting
		}
	}
	if victim == nil {
		return false
	}
	g.conns[victim].let = true
	victim.Close()
	g.evicted++
	g.logLocked(s, now)
	return true
}

// leave forgets c and frees its slot (unless a newcomer has it already).
func (s *Server) leave(c net.Conn) {
	g := &s.gate
	g.mu.Lock()
	st := g.conns[c]
	delete(g.conns, c)
	if st != nil {
		if g.perPeer[st.pid]--; g.perPeer[st.pid] <= 0 {
			delete(g.perPeer, st.pid)
		}
	}
	g.mu.Unlock()
	if st == nil || !st.let {
		<-s.slots
	}
}

// waiting marks c as waiting for its next request: a newcomer may take its
// slot once it has waited idleEvictAfter.
func (s *Server) waiting(c net.Conn) {
	s.gate.mu.Lock()
	if st := s.gate.conns[c]; st != nil {
		st.waiting = time.Now()
	}
	s.gate.mu.Unlock()
}

// serving marks c as running the request it sent, so nobody takes its
// slot; false if it was let go for a newcomer meanwhile (then its request
// must not run: nobody will read its answer).
func (s *Server) serving(c net.Conn) bool {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	st := s.gate.conns[c]
	if st == nil || st.let {
		return false
	}
	st.waiting = time.Time{}
	return true
}

// refused counts a refused connection for the log.
func (s *Server) refused() {
	g := &s.gate
	g.mu.Lock()
	g.refused++
	g.logLocked(s, time.Now())
	g.mu.Unlock()
}

// logLocked logs the refusals and evictions counted, at most once per
// refusedLogEvery (a client retrying in a loop writes no line per try).
func (g *connGate) logLocked(s *Server, now time.Time) {
	if now.Sub(g.logged) < refusedLogEvery {
		return
	}
	s.opt.Logger.Warn("at the connection limit", "max", s.opt.MaxConns, "max_per_process", s.opt.MaxConnsPerPeer,
		"refused", g.refused, "idle_hung_up", g.evicted, "over", refusedLogEvery)
	g.logged, g.refused, g.evicted = now, 0, 0
}

// peerPID is the PID of the process at the other end of c (0 if unknown).
func peerPID(c net.Conn) int32 {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0
	}
	var pid int32
	raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			pid = cred.Pid
		}
	})
	return pid
}
