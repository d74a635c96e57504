package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// File names under the state directory.
const (
	stateFile = "state.json"
	auditFile = "audit.jsonl"
	lockName  = "daemon.lock"
)

// Keys of lease.State.Backends: the display's record, and the highest
// target number ever used (so a restart never reuses one).
const (
	backendKey = "display"
	counterKey = "daemon"
)

// Daemon is one running daemon. Create it with New, run it with Serve, stop
// it with Close.
type Daemon struct {
	cfg     Config
	lock    *lockFile
	store   *lease.Store
	audit   *lease.Audit
	leases  *lease.Table
	started time.Time

	mu      sync.Mutex // guards the fields below; never held across a backend call
	targets map[target.ID]*entry
	next    int
	display Display
	closed  bool

	dispGate    chan struct{} // one slot: bringing the display up
	injectGate  chan struct{} // one slot: one injected input sequence at a time
	injectOwner *entry        // the target whose input holds injectGate; guarded by mu
	stackGate   chan struct{} // one slot: raising a window and acting on what is on screen
	connSlots   chan struct{} // one slot per connection served (Config.MaxConns)
	persistMu   sync.Mutex
	br          browserState // tabs and their browser contexts (browser.go)

	ln    net.Listener
	wg    sync.WaitGroup
	conns map[net.Conn]struct{} // guarded by mu
	stop  chan struct{}

	live liveView // the live view (live.go), started on the first watch
}

// entry is one target and what the daemon keeps beside it.
type entry struct {
	t      target.Target // guarded by Daemon.mu
	win    Window        // last read, guarded by Daemon.mu
	gate   chan struct{} // one slot: backend calls on this target
	refs   *target.RefTable
	flight map[*int]context.CancelFunc // verbs in flight; guarded by Daemon.mu
}

// New prepares a daemon: it takes the state directory's lock (failing with
// ErrRunning if another daemon has it), reads the persisted state,
// re-attaches to the display an earlier daemon left running and reconciles
// targets and leases against the windows and processes that really exist.
// It does not listen yet.
func New(ctx context.Context, cfg Config) (*Daemon, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("daemon: state dir: %w", err)
	}
	lk, err := acquireLock(filepath.Join(cfg.StateDir, lockName))
	if err != nil {
		return nil, err
	}
	d := &Daemon{
		cfg:        cfg,
		lock:       lk,
		leases:     lease.NewTable(lease.Options{Now: cfg.Now, IdleHandback: cfg.IdleHandback}),
		started:    cfg.Now(),
		targets:    make(map[target.ID]*entry),
		dispGate:   make(chan struct{}, 1),
		injectGate: make(chan struct{}, 1),
		stackGate:  make(chan struct{}, 1),
		connSlots:  make(chan struct{}, cfg.MaxConns),
		conns:      make(map[net.Conn]struct{}),
		stop:       make(chan struct{}),
	}
	fail := func(err error) (*Daemon, error) {
		if d.audit != nil {
			d.audit.Close()
		}
		lk.release()
		return nil, err
	}
	if d.store, err = lease.OpenStore(cfg.StateDir, stateFile); err != nil {
		return fail(err)
	}
	if d.audit, err = lease.OpenAudit(filepath.Join(cfg.StateDir, auditFile), cfg.Now); err != nil {
		return fail(err)
	}
	st, err := d.store.Load()
	if err != nil {
		return fail(err)
	}
	if cfg.Browser != nil {
		// Browsers an earlier daemon left (it was killed): stop them; a
		// profile's browser starts again on its next use.
		cfg.Browser.Reap(ctx, st.Backends[browserRecordKey])
		cfg.Browser.Observe(d.browsersChanged)
	}
	if err := d.reconcile(ctx, st); err != nil {
		return fail(err)
	}
	return d, nil
}

// reconcile rebuilds targets and leases from st, keeping only what is alive.
func (d *Daemon) reconcile(ctx context.Context, st lease.State) error {
	rec := st.Backends[backendKey]
	if len(rec) > 0 {
		disp, err := d.cfg.Backend.Reattach(ctx, rec)
		if err != nil {
			d.cfg.Logger.Info("the display of the earlier daemon is gone; dropping its targets", "err", err)
			st.Targets, st.Leases = nil, nil
		} else {
			d.display = disp
		}
	}
	var counter struct{ Next int }
	if b := st.Backends[counterKey]; len(b) > 0 {
		json.Unmarshal(b, &counter)
	}
	d.next = counter.Next
	alive := make(map[target.ID]bool)
	for _, t := range st.Targets {
		if n := t.ID.Number(); n > d.next {
			d.next = n // never reuse a number, even of a dropped target
		}
		if t.ID.Kind() == target.KindTab {
			continue // tabs die with the daemon's browser contexts
		}
		if d.display == nil {
			continue
		}
		w, err := d.display.Window(ctx, t.XID)
		if err != nil || !d.display.Alive(t.PID) {
			d.cfg.Logger.Info("dropping a target that is gone", "target", t.ID, "pid", t.PID, "err", err)
			continue
		}
		t.Title = w.Title
		d.targets[t.ID] = newEntry(t, w)
		alive[t.ID] = true
	}
	var keep []lease.Lease
	for _, l := range st.Leases {
		if alive[l.Target] {
			keep = append(keep, l)
		}
	}
	d.leases.Restore(keep)
	return d.persist()
}

func newEntry(t target.Target, w Window) *entry {
	return &entry{t: t, win: w, gate: make(chan struct{}, 1), refs: target.NewRefTable(), flight: make(map[*int]context.CancelFunc)}
}

// persist writes targets, leases and the display record atomically.
func (d *Daemon) persist() error {
	d.persistMu.Lock()
	defer d.persistMu.Unlock()
	st := lease.State{Saved: d.cfg.Now().UTC(), Leases: d.leases.All()}
	var browsers json.RawMessage
	if d.cfg.Browser != nil {
		browsers = d.cfg.Browser.Record()
	}
	d.mu.Lock()
	for _, e := range d.targets {
		st.Targets = append(st.Targets, e.t)
	}
	st.Backends = map[string]json.RawMessage{counterKey: json.RawMessage(fmt.Sprintf(`{"next":%d}`, d.next))}
	if d.display != nil {
		st.Backends[backendKey] = d.display.Record()
	}
	if len(browsers) > 0 {
		st.Backends[browserRecordKey] = browsers
	}
	d.mu.Unlock()
	live := make(map[target.ID]bool, len(st.Targets))
	for _, t := range st.Targets {
		live[t.ID] = true
	}
	ls := st.Leases[:0]
	for _, l := range st.Leases {
		if live[l.Target] {
			ls = append(ls, l)
		}
	}
	st.Leases = ls
	if err := d.store.Save(st); err != nil {
		d.cfg.Logger.Error("persist state", "err", err)
		return err
	}
	return nil
}

// Listen opens the socket (mode 0600, in a 0700 directory). A socket file
// left by a daemon that died is replaced: holding the lock proves nobody
// else serves it.
func (d *Daemon) Listen() error {
	dir := filepath.Dir(d.cfg.SocketPath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("daemon: socket dir: %w", err)
	}
	os.Remove(d.cfg.SocketPath)
	ln, err := net.Listen("unix", d.cfg.SocketPath)
	if err != nil {
		return fmt.Errorf("daemon: listen: %w", err)
	}
	if err := os.Chmod(d.cfg.SocketPath, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("daemon: chmod socket: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	d.ln = ln
	return nil
}

// Serve answers clients until ctx ends or Close is called. It calls Listen
// if that was not done yet.
func (d *Daemon) Serve(ctx context.Context) error {
	if d.ln == nil {
		if err := d.Listen(); err != nil {
			return err
		}
	}
	// Add under mu, after checking closed: Close sets closed under mu before
	// it waits, so no Add can race with its Wait.
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.wg.Add(1)
	d.mu.Unlock()
	go d.tick(ctx)
	go func() {
		select {
		case <-ctx.Done():
			d.ln.Close()
		case <-d.stop:
		}
	}()
	for {
		c, err := d.ln.Accept()
		if err != nil {
			select {
			case <-d.stop:
				return nil
			default:
			}
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			d.cfg.Logger.Warn("accept", "err", err)
			continue
		}
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			c.Close()
			return nil
		}
		select {
		case d.connSlots <- struct{}{}:
		default:
			d.mu.Unlock()
			d.refuseConn(c)
			continue
		}
		d.conns[c] = struct{}{}
		d.wg.Add(1)
		d.mu.Unlock()
		go d.serveConn(ctx, c)
	}
}

// tick applies idle handback even when nobody asks.
func (d *Daemon) tick(ctx context.Context) {
	defer d.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.stop:
			return
		case <-t.C:
			for _, id := range d.leases.Expire() {
				d.record(lease.Entry{Session: "daemon (idle handback)", Target: id, Verb: "handback", OK: true})
				d.persist()
			}
		}
	}
}

// Close stops serving, stops the display and every application on it (the
// daemon is being shut down on purpose), forgets the targets, and releases
// the lock. It is safe to call more than once.
func (d *Daemon) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	close(d.stop)
	for c := range d.conns {
		c.Close()
	}
	disp := d.display
	d.display = nil
	d.targets = make(map[target.ID]*entry)
	d.mu.Unlock()
	if d.ln != nil {
		d.ln.Close()
		os.Remove(d.cfg.SocketPath)
	}
	d.wg.Wait()
	d.closeLive()
	var err error
	if d.cfg.Browser != nil {
		err = d.cfg.Browser.Close()
	}
	if disp != nil {
		if derr := disp.Close(); err == nil {
			err = derr
		}
	}
	d.leases.Restore(nil)
	d.persist()
	d.audit.Close()
	d.lock.release()
	return err
}

// Detach stops serving but leaves the display and its applications running
// and the state on disk, as a crash would: the next daemon re-attaches.
// Tests use it to play a daemon killed with -9 inside one process.
func (d *Daemon) Detach() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	close(d.stop)
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	if d.ln != nil {
		d.ln.Close()
		os.Remove(d.cfg.SocketPath)
	}
	d.wg.Wait()
	d.closeLive()
	d.audit.Close()
	d.lock.release()
}

// record appends an audit line; a failure to audit is logged, not fatal.
func (d *Daemon) record(e lease.Entry) {
	if err := d.audit.Record(e); err != nil {
		d.cfg.Logger.Error("audit", "err", err)
	}
}

// SocketPath is where the daemon listens.
func (d *Daemon) SocketPath() string { return d.cfg.SocketPath }
