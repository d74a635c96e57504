package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/providerlaw"
	"github.com/vibespace/vibespace/daemon/secret"
	"github.com/vibespace/vibespace/daemon/socket"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/internal/statefile"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// File names under the state directory.
const (
	stateFile = "state.json"
	auditFile = "audit.jsonl"
	lockName  = "daemon.lock"
)

// Keys of lease.State.Backends: the browsers', and the highest window
// and tab numbers ever used (so a restart never reuses one). The display
// registry keeps its own (displays.DisplaysKey, SessionDisplaysKey,
// LostKey).
const (
	browserRecordKey = "browsers"
	counterKey       = "daemon"
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
	live    LiveView // nil: no live view
	keys    *secret.Store
	law     providerlaw.Law
	stages  *stage.Chain // the registered stages, in order (Config.Stages)

	mu      sync.Mutex // guards the fields below and every entry's mutable fields; never held across a backend call
	targets map[target.ID]*entry
	next    int // the highest window number minted (win:N)
	nextTab int // the highest tab number minted (tab:N): tabs are numbered apart, never twice
	closed  bool

	// reg is the running displays and what is kept beside each (package
	// daemon/displays): its map and its displays' gates are guarded by mu.
	reg       *displays.Registry
	persistMu sync.Mutex
	browsing  Browsing    // the profile words: a registered stage the core asks (browser.go)
	tabs      Tabs        // the words on a session's tabs and desktop apps: a registered stage (browser.go)
	notes     notice.Book // what is owed in words: things lost or not restored, files not written (notice.go)

	srv  *socket.Server // the socket served (package daemon/socket); nil until Listen
	wg   sync.WaitGroup // the background loops (tick, and the registry's: discovery, idle stop, death watchers)
	stop chan struct{}
}

// New prepares a daemon: it takes the state directory's lock (failing with
// ErrRunning if another daemon has it), reads the persisted state,
// re-attaches to the displays an earlier daemon left running and
// reconciles targets and leases against the windows and processes that
// really exist. It does not listen yet.
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
		cfg:     cfg,
		lock:    lk,
		leases:  lease.NewTable(lease.Options{Now: cfg.Now, IdleHandback: cfg.IdleHandback}),
		started: cfg.Now(),
		law:     providerlaw.New(cfg.Providers), // the provider table the daemon reads and its law
		targets: make(map[target.ID]*entry),
		stop:    make(chan struct{}),
	}
	d.reg = displays.New(&d.mu, displayHands{d}, displays.Options{
		Logger: cfg.Logger, Now: cfg.Now, Providers: cfg.Displays, Desktop: desktopProvider(cfg),
		MaxSessionDisplays: cfg.MaxSessionDisplays, DefaultMax: DefaultMaxSessionDisplays,
		IdleStop: cfg.DisplayIdleStop, DefaultIdleStop: DefaultDisplayIdleStop,
		Stop: d.stop, WG: &d.wg,
	})
	cfg.Desktop.Bind(desktopHands{d})
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
	rot := lease.Rotation{MaxBytes: max(cfg.AuditMaxBytes, 0), Keep: cfg.AuditKeep}
	// An audit that cannot be opened does not stop the daemon: it serves,
	// in a lapse of the audit from now (everyone told, status says the
	// audit is not written, auditlapse.go). What opening found wrong with
	// it (set aside, a torn or garbage last line) is told.
	d.audit, err = lease.OpenAuditRotating(filepath.Join(cfg.StateDir, auditFile), cfg.Now, rot)
	if l, lapsed := d.audit.Lapse(); lapsed {
		d.cfg.Logger.Error("audit", "err", err)
		d.auditLapsed(l)
	}
	for _, f := range d.audit.Found() {
		d.owe(notice.Notice{Text: f})
	}
	// A key that cannot be read back is lost, said by provider (never its
	// value), not a lockout.
	if d.keys, err = secret.Open(filepath.Join(cfg.StateDir, keysDir)); err != nil {
		return fail(err)
	}
	for _, f := range d.keys.Found() {
		d.owe(notice.Notice{Text: f})
	}
	st, err := d.store.Load()
	afresh := false
	if dmg, ok := errors.AsType[*statefile.Damage](err); ok {
		// Never a lockout: the damaged file is set aside and everyone is
		// told what could not be restored — nothing, when its copy was
		// whole (what changed since the copy was saved is what was lost).
		if dmg.Restored != "" {
			d.owe(notice.Notice{Text: dmg.Error() + ": windows, tabs and leases as they were then"})
		} else {
			d.owe(notice.Notice{Text: dmg.Error() + "; the windows, tabs and leases of the earlier daemon could not be restored (this daemon started afresh; displays and applications it started may still run)"})
			afresh = true
		}
		err = nil
	}
	if err != nil {
		return fail(err)
	}
	d.restoreNotices(st.Backends[noticesKey])
	if d.stages, err = stage.Make(cfg.Stages, d.stageEnv()); err != nil {
		return fail(err)
	}
	if err := runners(d.stages); err != nil {
		return fail(err)
	}
	if d.browsing, err = stageAs[Browsing](d.stages, "chooses a session's browser profile (package daemon/browsing)"); err != nil {
		return fail(err)
	}
	if d.tabs, err = stageAs[Tabs](d.stages, "answers the words on a session's tabs (package daemon/tabs)"); err != nil {
		return fail(err)
	}
	for _, s := range d.stages.Stages() {
		if w, ok := s.(interface{ Bind(watchingHost) }); ok {
			w.Bind(watchingHands{d}) // the watch verb's stage (daemon/watching)
		}
	}
	d.stages.Restore(st.Backends)
	d.reg.RestoreLost(st.Backends[displays.LostKey])
	if cfg.Browser != nil {
		// Browsers an earlier daemon left (it was killed): stop them; a
		// profile's browser starts again on its next use.
		cfg.Browser.Reap(ctx, st.Backends[browserRecordKey])
		// The browser backend's record is persisted after a browser started
		// or stopped. Once the daemon is closed or detached it writes
		// nothing: the state directory may already be another daemon's.
		cfg.Browser.Observe(func() {
			d.mu.Lock()
			closed := d.closed
			d.mu.Unlock()
			if !closed {
				d.persist()
			}
		})
	}
	if err := d.reconcile(ctx, st); err != nil {
		return fail(err)
	}
	if afresh {
		// The numbers minted are lost with the state: number on past every
		// handle the audit log names, so none an agent holds is reused.
		win, tab := d.audit.HighestHandles()
		d.mu.Lock()
		d.next, d.nextTab = max(d.next, win), max(d.nextTab, tab)
		d.mu.Unlock()
		d.persist()
		d.sweepOrphans(ctx)
	}
	cfg.Desktop.Restore(st.Backends) // the desktop's setting, once its display was reattached
	d.stages.Start(ctx)
	if cfg.Live != nil {
		d.live = cfg.Live(LiveHands{d})
	}
	return d, nil
}

// reconcile rebuilds displays, targets and leases from st, keeping only what
// is alive.
func (d *Daemon) reconcile(ctx context.Context, st lease.State) error {
	// The displays an earlier daemon left running (package daemon/displays).
	d.reg.Reattach(ctx, st.Backends, st.Targets, d.store.Path())
	var counter struct{ Next, Tab int }
	if b := st.Backends[counterKey]; len(b) > 0 {
		json.Unmarshal(b, &counter)
	}
	d.next, d.nextTab = counter.Next, counter.Tab
	alive := make(map[target.ID]bool)
	var lost []target.Target
	for _, t := range st.Targets {
		if n := t.ID.Number(); n > d.next {
			d.next = n // never reuse a number, even of a dropped target
		}
		if n := t.ID.TabNumber(); n > d.nextTab {
			d.nextTab = n // nor a tab's: its handle may be in an agent's hands, an audit row, a cut verb's note
		}
		if t.Display == "" {
			// A target on no display (a tab) dies with the daemon's browser
			// contexts: its sessions are told (the tabs' Lost, package daemon/tabs).
			if t.ID.Kind() == target.KindTab {
				lost = append(lost, t)
			}
			continue
		}
		disp := d.reg.GetLocked(d.reg.KeyOfTarget(t))
		if disp == nil || t.Key == "" {
			d.cfg.Logger.Info("dropping a target whose display is gone", "target", t.ID, "display", t.Display)
			// Remembered as lost, its holder told (the notice is kept by
			// this reconcile's own persist).
			if n, ok := d.reg.LostBeforeRestartLocked(t, st.Leases); ok {
				d.notes.Add(n)
			}
			continue
		}
		kt, err := disp.Kind().Window(ctx, t.Key, t.PID)
		var info kind.Info
		if err == nil {
			info, err = kt.Info(ctx)
		}
		if err != nil {
			d.cfg.Logger.Info("dropping a target that is gone", "target", t.ID, "pid", t.PID, "err", err)
			continue
		}
		t.Title = info.Title
		e := newEntry(t, kt, disp)
		e.info = info
		d.targets[t.ID] = e
		alive[t.ID] = true
	}
	var keep []lease.Lease
	for _, l := range st.Leases {
		if alive[l.Target] {
			keep = append(keep, l)
		}
	}
	d.leases.Restore(keep)
	d.tabs.Lost(lost)
	return d.persist()
}

// persist writes targets, leases and the displays' and browsers' records
// atomically.
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
		rec := e.rec
		if e.tab != nil {
			rec.App = bareURL(rec.App)
		}
		st.Targets = append(st.Targets, rec)
	}
	st.Backends = map[string]json.RawMessage{counterKey: json.RawMessage(fmt.Sprintf(`{"next":%d,"tab":%d}`, d.next, d.nextTab))}
	disps := d.reg.AllLocked()
	d.mu.Unlock()
	if err := d.reg.Keep(disps, st.Backends); err != nil {
		return err
	}
	if len(browsers) > 0 {
		st.Backends[browserRecordKey] = browsers
	}
	d.cfg.Desktop.Keep(st.Backends)
	if ns := d.notes.Record(); ns != nil {
		st.Backends[noticesKey] = ns
	}
	if d.stages != nil {
		d.stages.Keep(st.Backends)
	}
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
	// A write that fails is a condition status lists (d.wrote) until a
	// write succeeds, and is logged; it is no error to the caller: the
	// daemon serves on with its state in memory (it starts on a state
	// directory it cannot write, too).
	err := d.store.Save(st)
	d.wrote(stateFile, err)
	if err != nil {
		d.cfg.Logger.Error("persist state", "err", err)
	}
	return nil
}

// bareURL is what state.json keeps of a tab's address: its scheme, host
// and path. A query or a fragment can hold a secret (a token, a session
// id), and so can userinfo, or an opaque URL's body (data:…); none is
// written to disk. What does not parse is kept as its scheme alone.
func bareURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, ":?#"); i > 0 && raw[i] == ':' {
			return raw[:i+1]
		}
		return ""
	}
	if u.Opaque != "" { // data:…, javascript:… carry their content there
		if u.Scheme == "about" {
			return "about:" + u.Opaque
		}
		return u.Scheme + ":"
	}
	b := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return b.String()
}

// Listen opens the socket (mode 0600, in a 0700 directory; package
// daemon/socket). A socket file left by a daemon that died is replaced:
// holding the lock proves nobody else serves it.
func (d *Daemon) Listen() error {
	srv, err := socket.Listen(socket.Options{
		Path: d.cfg.SocketPath, MaxRequest: d.cfg.MaxRequest, IdleTimeout: d.cfg.IdleTimeout,
		MaxConns: d.cfg.MaxConns, MaxConnsPerPeer: d.cfg.MaxConnsPerPeer, Logger: d.cfg.Logger,
	})
	if err != nil {
		return err
	}
	d.srv = srv
	return nil
}

// Serve starts the daemon's background loops and answers clients (Handle)
// until ctx ends or Close is called. It calls Listen if that was not done
// yet.
func (d *Daemon) Serve(ctx context.Context) error {
	if d.srv == nil {
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
	d.wg.Add(3)
	d.mu.Unlock()
	go d.tick(ctx)
	go d.reg.DiscoverLoop(ctx)
	go d.reg.IdleLoop(ctx)
	return d.srv.Serve(ctx, d)
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

// shutdown stops serving: no new connection, every connection closed, the
// live view stopped. It reports false when the daemon was closed already.
func (d *Daemon) shutdown() bool {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return false
	}
	d.closed = true
	close(d.stop)
	d.mu.Unlock()
	if d.srv != nil {
		d.srv.Close()
	}
	d.wg.Wait()
	if d.live != nil {
		d.live.Close()
	}
	return true
}

// Close stops serving, stops every display and every application on it
// (the daemon is being shut down on purpose) and every browser, forgets the
// targets and leases, and releases the lock. It is safe to call more than
// once. The user's desktop is not ours to stop: only our connections to it
// close, and the operator's setting stands (its record and its windows'
// handles and grants are kept for the next daemon, their leases are not).
func (d *Daemon) Close() error {
	if !d.shutdown() {
		return nil
	}
	desk := d.reg.Desktop()
	d.mu.Lock()
	disps := d.reg.ClearLocked(desk) // all of them; the user's desktop's stays known
	targets := d.targets
	d.targets = make(map[target.ID]*entry)
	if desk != nil {
		for id, e := range targets {
			if e.disp == desk {
				d.targets[id] = e
			}
		}
	}
	d.mu.Unlock()
	var errs []error
	if d.cfg.Browser != nil {
		errs = append(errs, d.cfg.Browser.Close())
	}
	errs = append(errs, d.reg.CloseAll(disps))
	d.leases.Restore(nil)
	d.persist()
	d.audit.Close()
	d.lock.release()
	return errors.Join(errs...)
}

// Detach stops serving but leaves the displays and their applications
// running and the state on disk, as a crash would: the next daemon
// re-attaches. Tests use it to play a daemon killed with -9 inside one
// process.
func (d *Daemon) Detach() {
	if !d.shutdown() {
		return
	}
	d.audit.Close()
	d.lock.release()
}

// record appends an audit line; a failure to audit is logged, not fatal:
// the verb still runs, and everyone is told the audit lapsed, and when it
// resumes (auditlapse.go).
func (d *Daemon) record(e lease.Entry) {
	if err := d.audit.RecordWatched(e, d.auditLapsed); err != nil {
		d.cfg.Logger.Error("audit", "err", err)
	}
}

// SocketPath is where the daemon listens.
func (d *Daemon) SocketPath() string { return d.cfg.SocketPath }
