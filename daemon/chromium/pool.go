package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/xvfb"
)

// Defaults of Options' zero fields.
const (
	DefaultBinary      = "chromium"
	DefaultMaxBrowsers = 4
	DefaultIdleStop    = 10 * time.Minute
)

// Options configure a Pool.
type Options struct {
	// Binary is the Chromium program; "" means DefaultBinary in PATH. A
	// desktop app's headed Chromium is the same program.
	Binary string
	// AppDisplay is the display a desktop app opens on (a display
	// provider's name); "" means DefaultAppDisplay.
	AppDisplay string
	// MaxBrowsers is the ceiling on browsers running at once (the shared
	// one counts); 0 means DefaultMaxBrowsers.
	MaxBrowsers int
	// IdleStop stops a profile's browser unused this long; 0 means
	// DefaultIdleStop, negative never.
	IdleStop time.Duration
	// ExtraFlags are passed to every browser started.
	ExtraFlags []string
	// StartTimeout bounds one browser's start; 0 means cdp's default.
	StartTimeout time.Duration
	Logger       *slog.Logger
	// TabPane is the road of a watched tab's pictures: PaneWindow or
	// PaneScreencast. "" means PaneWindow for a tab of a headed browser
	// (PaneDisplay's, or a profile opened headed) and the screencast for
	// a headless one's; PaneScreencast keeps every tab on the screencast.
	TabPane string
	// PaneDisplay, when set, names the X display (":N") every browser the
	// pool launches runs headed on (starting it if need be), each tab in a
	// window of its own, so that a watched tab is read through its window
	// (PaneWindow). nil runs them headless (a profile opened headed
	// excepted).
	PaneDisplay func(ctx context.Context) (string, error)
	// PaneXvfb runs the shared browser (a profile's outlives the daemon,
	// its display would not) headed on a private Xvfb of its own, started with
	// it and stopped with it (its crash too): no display provider's, so
	// none of its windows is ever a target. Each window is the size of a
	// headless browser's, so its tab's viewport is too. It comes before
	// PaneDisplay; an Xvfb that does not start leaves the browser headless
	// (logged). The daemon's serve sets it for the window road (ChoosePane).
	PaneXvfb bool
	// PaneWhy is doctor's words on the tab road chosen (ChoosePane).
	PaneWhy string
	// MaxContexts caps the sessions' contexts in the shared browser, 0
	// none: past it a new session's first verb waits for a slot as long
	// as it may, then is refused pool_busy (contextcap.go). The daemon
	// derives it from memory (pool.Cap); ContextCapWhy says how.
	MaxContexts   int
	ContextCapWhy string
	// ContextWait bounds a session's wait for a context under the cap; 0
	// means as long as its verb may.
	ContextWait time.Duration
	// Calls, when set, sees the method of every CDP command sent to
	// every browser of the pool (cdp.DialOptions.Calls): tests count a
	// verb's round trips with it.
	Calls func(method string)
}

// Pool is the daemon's browser backend. Safe for concurrent use.
type Pool struct {
	o       Options
	startMu chan struct{} // one slot: starting a browser or creating a context

	mu       sync.Mutex
	browsers map[string]*browser     // by key: "" the shared one, else the profile id
	contexts map[string]*cdp.Context // ephemeral contexts by owner (in the shared browser)
	ctxOf    map[string]*browser     // the browser each ephemeral context lives in
	observe  []func()
	// slotsTaken and slotQueue are the cap on contexts (contextcap.go).
	slotsTaken int
	slotQueue  []*slotWaiter
	ctxBusy    map[string]int // verbs using each owner's context now
	// aheadPhase and aheadErr are Ahead's progress, for doctor.
	aheadPhase int
	aheadErr   error
	closed     bool
	stop       chan struct{}
	done       chan struct{}
	watchers   sync.WaitGroup // one per browser: its unexpected exit
}

// browser is one running Chromium.
type browser struct {
	b       *cdp.Browser
	profile string // "" for the shared browser
	label   string
	dir     string // its user-data-dir
	temp    bool   // dir is ours to remove
	headed  bool
	users   map[string]bool // sessions that used it
	last    time.Time       // when it was last used
	busy    int             // verbs using it now
	def     *cdp.Context    // a profile's own context
	// defaultCtx: def is the remote browser's own default context (the
	// endpoint refused one of ours): never disposed; of its tabs only
	// those we opened are ours, and closed when we stop.
	defaultCtx bool
	// stopping is set (under Pool.mu) before the pool stops it: an exit
	// without it is a crash, a kill, or some other end nobody asked for.
	stopping bool
	// provider is the row of somebody else's browser (cdp, cloud:<name>),
	// "" for one the pool launched; endpoint is where it was reached
	// (never a key). Such a browser is only ever disconnected from.
	provider string
	endpoint string
	// pane is the private display it shows on (Options.PaneXvfb), nil
	// for none: stopped after the browser.
	pane *xvfb.Desktop
	// ahead: started by Ahead, before any verb asked for it; kept while
	// idle until a session has used it (sharedIdle).
	ahead bool
}

func (b *browser) alive() bool {
	select {
	case <-b.b.Exited():
		return false
	default:
		return true
	}
}

var (
	_ kind.Browser      = (*Pool)(nil)
	_ kind.BrowserUsage = (*Pool)(nil)
)

// New returns a pool; no browser starts until the first use.
func New(o Options) *Pool {
	if o.Binary == "" {
		o.Binary = DefaultBinary
	}
	if o.AppDisplay == "" {
		o.AppDisplay = DefaultAppDisplay
	}
	if o.MaxBrowsers <= 0 {
		o.MaxBrowsers = DefaultMaxBrowsers
	}
	if o.IdleStop == 0 {
		o.IdleStop = DefaultIdleStop
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pool{
		o: o, startMu: make(chan struct{}, 1),
		browsers: make(map[string]*browser), contexts: make(map[string]*cdp.Context), ctxOf: make(map[string]*browser), ctxBusy: make(map[string]int),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go p.idleLoop()
	return p
}

// Observe registers f, called after a browser started or stopped.
func (p *Pool) Observe(f func()) {
	p.mu.Lock()
	p.observe = append(p.observe, f)
	p.mu.Unlock()
}

func (p *Pool) changed() {
	p.mu.Lock()
	fs := append([]func(){}, p.observe...)
	p.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Context returns key's browser context, starting its browser if needed.
func (p *Pool) Context(ctx context.Context, key kind.BrowserKey) (kind.BrowserContext, func(), error) {
	c, release, err := p.context(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	return browserContext{c, p.o.TabPane, p.o.Logger}, release, nil
}

func (p *Pool) context(ctx context.Context, key kind.BrowserKey) (*cdp.Context, func(), error) {
	if c, release := p.existing(key); c != nil {
		return c, release, nil
	}
	made := false
	if key.Profile == "" && key.Provider == "" && p.o.MaxContexts > 0 {
		if err := p.takeSlot(ctx); err != nil {
			return nil, nil, err
		}
		defer func() {
			if !made {
				p.mu.Lock()
				p.freeSlotsLocked(1)
				p.mu.Unlock()
			}
		}()
	}
	select {
	case p.startMu <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, target.Refuse(target.CodeTimeout, "another browser (or the shared one, started ahead at the daemon's start) was still starting").Wrap(ctx.Err())
	}
	defer func() { <-p.startMu }()
	if c, release := p.existing(key); c != nil {
		return c, release, nil
	}
	started := false
	defer func() {
		if started {
			p.changed()
		}
	}()
	bkey := key.Profile
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, target.Refuse(target.CodeInternal, "the daemon is shutting down")
	}
	br := p.browsers[bkey]
	if br != nil && !br.alive() {
		p.forgetLocked(br)
		br = nil
	}
	if br == nil && key.Provider == "" {
		if err := p.ceilingLocked(key); err != nil {
			p.mu.Unlock()
			return nil, nil, err
		}
	}
	p.mu.Unlock()
	if br == nil {
		var err error
		if key.Provider != "" {
			br, err = p.connect(ctx, key)
		} else {
			br, err = p.launch(ctx, key)
		}
		if err != nil {
			return nil, nil, err
		}
		started = true
	}
	p.mu.Lock()
	br.users[key.Session] = true
	release := p.holdLocked(br)
	if key.Profile == "" {
		release = p.holdContextLocked(key.Owner, release)
	}
	p.mu.Unlock()
	if key.Profile != "" {
		return br.def, release, nil
	}
	c, err := br.b.NewContext(ctx)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("chromium: new browser context: %w", err)
	}
	p.mu.Lock()
	p.contexts[key.Owner] = c
	p.ctxOf[key.Owner] = br
	made = true
	p.mu.Unlock()
	return c, release, nil
}

// holdLocked marks br in use until the returned release is called.
func (p *Pool) holdLocked(br *browser) func() {
	br.busy++
	br.last = time.Now()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			br.busy--
			br.last = time.Now()
			p.mu.Unlock()
		})
	}
}

// existing is key's context, held, when its browser runs.
func (p *Pool) existing(key kind.BrowserKey) (*cdp.Context, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	br := p.browsers[key.Profile]
	if br == nil || !br.alive() {
		return nil, nil
	}
	var c *cdp.Context
	if key.Profile != "" {
		c = br.def
	} else if p.ctxOf[key.Owner] == br {
		c = p.contexts[key.Owner]
	}
	if c == nil {
		return nil, nil
	}
	br.users[key.Session] = true
	if key.Profile == "" {
		return c, p.holdContextLocked(key.Owner, p.holdLocked(br))
	}
	return c, p.holdLocked(br)
}

// ceilingLocked refuses one browser more than the ceiling. It names the
// asking session's own browsers and counts the others'.
func (p *Pool) ceilingLocked(key kind.BrowserKey) error {
	running := 0
	var yours []string
	for _, br := range p.browsers {
		if !br.alive() || br.provider != "" { // somebody else's runs on no machine of ours
			continue
		}
		running++
		if br.users[key.Session] {
			if br.profile == "" {
				yours = append(yours, "the shared browser (your own context)")
			} else {
				yours = append(yours, fmt.Sprintf("profile %s (%s)", br.label, br.profile))
			}
		}
	}
	if running < p.o.MaxBrowsers {
		return nil
	}
	sort.Strings(yours)
	others := running - len(yours)
	what := "the shared browser"
	if key.Profile != "" {
		what = fmt.Sprintf("profile %s (%s)", key.Label, key.Profile)
	}
	mine := "none of them is yours"
	if len(yours) > 0 {
		mine = "yours: " + strings.Join(yours, ", ")
	}
	return target.Refuse(target.CodeBrowserLimit,
		"%d browsers run, the most this daemon allows at once, so %s cannot start; %s; %d other(s) belong to other sessions (detach a profile you no longer need, or wait for an idle one to stop)",
		running, what, mine, others).With("limit", p.o.MaxBrowsers).With("yours", yours).With("others", others)
}

// paneFlags keep a headed browser's covered windows painting at full rate.
var paneFlags = []string{"--disable-backgrounding-occluded-windows", "--disable-renderer-backgrounding", "--disable-background-timer-throttling"}

// launch starts the browser of key.
func (p *Pool) launch(ctx context.Context, key kind.BrowserKey) (*browser, error) {
	br := &browser{profile: key.Profile, label: key.Label, users: map[string]bool{key.Session: true}}
	o := cdp.Options{Binary: p.o.Binary, Headless: true, ExtraFlags: p.o.ExtraFlags, StartTimeout: p.o.StartTimeout, Logger: p.o.Logger, Calls: p.o.Calls}
	if key.Profile != "" {
		if key.Dir == "" {
			return nil, fmt.Errorf("chromium: profile %s has no directory", key.Profile)
		}
		br.dir = key.Dir
		// A profile is a live credential whose cookies Chromium flushes
		// only now and then: if the daemon dies, the kernel closes the
		// daemon's end of the browser's pipe and the browser shuts down
		// cleanly by itself, cookies written (no SIGKILL at our death).
		o.Outlive = true
		if key.Headed && key.Display != "" {
			o.Headless, o.Display, br.headed = false, key.Display, true
		}
	}
	if key.Profile == "" && p.o.PaneXvfb && p.o.TabPane != PaneScreencast {
		// The shared browser only: a profile's outlives the daemon (to
		// write its cookies), which its display would not.
		d, err := startPaneXvfb(ctx, p.o)
		if err != nil {
			p.o.Logger.Warn("the private display of the browser's tabs did not start: the browser runs headless, its tabs watched through the screencast", "err", err)
		} else {
			br.pane = d
			defer func() {
				if br.b == nil { // the browser did not start
					p.closePane(br)
				}
			}()
			o.Headless, o.Display, br.headed = false, d.Display, true
			o.ExtraFlags = append(slices.Clip(o.ExtraFlags), paneGeometry(ctx, d.Display)...)
		}
	}
	if !br.headed && p.o.PaneDisplay != nil && p.o.TabPane != PaneScreencast {
		disp, err := p.o.PaneDisplay(ctx)
		if err != nil {
			return nil, target.Refuse(target.CodeInternal, "the display the browser's tabs show on did not start: %v", err).Wrap(err)
		}
		o.Headless, o.Display, br.headed = false, disp, true
		o.ExtraFlags = append(slices.Clip(o.ExtraFlags), paneGeometry(ctx, disp)...)
	}
	if br.headed {
		// Each tab's window is read as its pane while others cover it (they
		// all lie at one place): none may stop painting for being covered.
		o.ExtraFlags = append(slices.Clip(o.ExtraFlags), paneFlags...)
	}
	if key.Profile == "" {
		dir, err := os.MkdirTemp("", "vibespace-browser-*")
		if err != nil {
			return nil, fmt.Errorf("chromium: %w", err)
		}
		br.dir, br.temp = dir, true
	}
	o.UserDataDir = br.dir
	// The browser lives until the pool stops it, not as long as this verb.
	b, err := cdp.Launch(context.WithoutCancel(ctx), o)
	if err != nil {
		if br.temp {
			os.RemoveAll(br.dir)
		}
		return nil, target.Refuse(target.CodeInternal, "the browser did not start: %v", err).Wrap(err)
	}
	br.b = b
	br.last = time.Now()
	if key.Profile != "" {
		def, err := b.DefaultContext(ctx)
		if err != nil {
			p.stopBrowser(br)
			return nil, fmt.Errorf("chromium: the profile's context: %w", err)
		}
		br.def = def
	}
	p.o.Logger.Info("browser started", "profile", key.Profile, "pid", b.PID(), "headed", br.headed)
	p.adopt(br)
	return br, nil
}

// adopt makes br the browser of its profile and watches for its end (a
// process's exit, or a remote connection's).
func (p *Pool) adopt(br *browser) {
	p.mu.Lock()
	p.browsers[br.profile] = br
	p.watchers.Add(1)
	p.mu.Unlock()
	go p.watch(br)
}

// watch waits for br's main process to exit. An exit the pool did not ask
// for (a crash, a kill) is logged with how it ended, its processes are
// reaped, its temporary profile is removed at once, and the pool forgets
// it (its tabs are gone; the next use starts it again).
func (p *Pool) watch(br *browser) {
	defer p.watchers.Done()
	select {
	case <-br.b.Exited():
	case <-p.stop:
		return // Close stops every browser
	}
	p.mu.Lock()
	unexpected := !br.stopping
	if unexpected {
		br.stopping = true
		p.forgetLocked(br)
	}
	p.mu.Unlock()
	if !unexpected {
		return
	}
	if br.provider != "" {
		// Somebody else's browser: the connection ended (their browser
		// closed, the service hung up); there is no process of ours.
		p.o.Logger.Warn("the connection to a browser of provider ended", "provider", br.provider, "endpoint", br.endpoint, "profile", br.profile)
	} else {
		p.o.Logger.Warn("browser exited unexpectedly", "pid", br.b.PID(), "profile", br.profile, "status", br.b.ExitState().String())
	}
	br.b.Close() // reaps what is left of its process group
	p.closePane(br)
	if br.temp {
		if err := os.RemoveAll(br.dir); err != nil {
			p.o.Logger.Warn("removing a crashed browser's profile", "dir", br.dir, "err", err)
		}
	}
	p.changed()
}

// forgetLocked drops a browser (crashed or stopped) and its contexts.
func (p *Pool) forgetLocked(br *browser) {
	if p.browsers[br.profile] == br {
		delete(p.browsers, br.profile)
	}
	n := 0
	for owner, b := range p.ctxOf {
		if b == br {
			delete(p.ctxOf, owner)
			delete(p.contexts, owner)
			n++
		}
	}
	p.freeSlotsLocked(n)
}

// stopBrowser closes a browser and reaps its processes.
func (p *Pool) stopBrowser(br *browser) error {
	p.mu.Lock()
	br.stopping = true
	p.mu.Unlock()
	if br.provider != "" {
		// Somebody else's browser: dispose of the context we made in it
		// (or, in its default context, close the tabs we opened there and
		// no other), then disconnect. It is never asked to close, never
		// signalled.
		if br.def != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var err error
			if br.defaultCtx {
				err = br.def.CloseOpened(ctx)
			} else {
				err = br.def.Close(ctx)
			}
			cancel()
			if err != nil {
				p.o.Logger.Warn("leaving a browser of provider: our tabs or context could not be closed", "provider", br.provider, "profile", br.profile, "err", err)
			}
		}
		err := br.b.Close()
		p.o.Logger.Info("disconnected from a browser of provider", "provider", br.provider, "profile", br.profile, "endpoint", br.endpoint)
		return err
	}
	err := br.b.Close()
	p.closePane(br)
	if br.temp {
		os.RemoveAll(br.dir)
	}
	p.o.Logger.Info("browser stopped", "profile", br.profile, "pid", br.b.PID())
	return err
}

// Release disposes of an ephemeral context.
func (p *Pool) Release(ctx context.Context, key kind.BrowserKey) error {
	if key.Profile != "" {
		return nil
	}
	p.mu.Lock()
	c := p.contexts[key.Owner]
	delete(p.contexts, key.Owner)
	delete(p.ctxOf, key.Owner)
	if c != nil {
		p.freeSlotsLocked(1)
	}
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close(ctx)
}

// Usage is every browser running now and the ceiling.
func (p *Pool) Usage() kind.Usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := kind.Usage{Max: p.o.MaxBrowsers, Browsers: []kind.BrowserUsed{}}
	for _, br := range p.browsers {
		if !br.alive() || br.stopping {
			continue
		}
		b := kind.BrowserUsed{Profile: br.profile, Label: br.label, Busy: br.busy > 0, Users: []string{}}
		for s := range br.users {
			b.Users = append(b.Users, s)
		}
		sort.Strings(b.Users)
		u.Browsers = append(u.Browsers, b)
	}
	sort.Slice(u.Browsers, func(i, j int) bool { return u.Browsers[i].Profile < u.Browsers[j].Profile })
	return u
}

// Stop stops the browser of profile now, as a person asked: the shared
// browser is never stopped this way (it holds every session's context),
// and a browser a verb uses now is refused browser_in_use. Whoever asks
// checks first that no tab of it is open.
func (p *Pool) Stop(ctx context.Context, profile string) error {
	if profile == "" {
		return target.Refuse(target.CodeBadRequest, "the shared browser holds every session's own context: it is not stopped alone")
	}
	p.mu.Lock()
	br := p.browsers[profile]
	if br == nil || !br.alive() || br.stopping {
		p.mu.Unlock()
		return target.Refuse(target.CodeBadRequest, "the browser of profile %s is not running", profile).With("profile", profile)
	}
	if br.busy > 0 {
		p.mu.Unlock()
		return target.Refuse(target.CodeBrowserInUse, "a verb is using the browser of profile %s now", profile).With("profile", profile)
	}
	p.forgetLocked(br)
	p.mu.Unlock()
	p.o.Logger.Info("stopping a browser a person chose", "profile", profile)
	err := p.stopBrowser(br)
	p.changed()
	return err
}

// Running reports whether profile's browser (or the shared one, "") runs.
func (p *Pool) Running(profile string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	br := p.browsers[profile]
	return br != nil && br.alive()
}

// record is one running browser as persisted.
type record struct {
	PID  int    `json:"pid"`
	Dir  string `json:"dir"`
	Temp bool   `json:"temp,omitempty"`
	// TmpDir is the browser's own TMPDIR (cdp's Browser.TempDir), where
	// Chromium's temporary files live: Reap removes it once the browser
	// is gone, whether it was stopped or killed.
	TmpDir string `json:"tmpdir,omitempty"`
}

// Record names the running browsers: their process group and their
// user-data-dir (which Reap checks before it kills anything).
func (p *Pool) Record() json.RawMessage {
	p.mu.Lock()
	var rs []record
	for _, br := range p.browsers {
		if br.alive() && br.provider == "" { // never one of somebody else's: Reap would stop it
			rs = append(rs, record{PID: br.b.PID(), Dir: br.dir, Temp: br.temp, TmpDir: br.b.TempDir()})
		}
	}
	p.mu.Unlock()
	if len(rs) == 0 {
		return nil
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].PID < rs[j].PID })
	b, _ := json.Marshal(rs)
	return b
}

// Reap kills the browsers of an earlier daemon's record. A process is
// killed only when its command line still carries the recorded
// user-data-dir, so a reused PID is never hit. Each browser's own TMPDIR
// is removed then (with what Chromium left there: a browser killed with
// -9 leaves its singleton socket's directory), and the shared browser's
// temporary profile.
func (p *Pool) Reap(ctx context.Context, rec json.RawMessage) {
	if len(rec) == 0 {
		return
	}
	var rs []record
	if err := json.Unmarshal(rec, &rs); err != nil {
		p.o.Logger.Warn("browser record unreadable", "err", err)
		return
	}
	for _, r := range rs {
		if r.PID <= 1 || r.Dir == "" {
			continue
		}
		if ours(r.PID, r.Dir) {
			p.o.Logger.Info("stopping a browser an earlier daemon left", "pid", r.PID)
			stopGroup(ctx, r.PID, r.Dir)
		}
		if r.Temp && strings.HasPrefix(filepath.Base(r.Dir), "vibespace-browser-") {
			os.RemoveAll(r.Dir)
		}
		if r.TmpDir != "" && strings.HasPrefix(filepath.Base(r.TmpDir), cdp.TempDirPrefix) {
			os.RemoveAll(r.TmpDir)
		}
	}
}

// ours reports whether a live process of group pgid runs with
// --user-data-dir=dir: the leader's own argument list, or a helper's
// (Chromium rewrites a helper's command line into one space-separated
// string). The leader may be gone while its helpers finish.
func ours(pgid int, dir string) bool {
	for _, pid := range cdp.GroupProcesses(pgid) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			continue
		}
		flag := "--user-data-dir=" + dir
		for _, a := range strings.Split(string(b), "\x00") {
			if a == flag || strings.Contains(" "+a+" ", " "+flag+" ") {
				return true
			}
		}
	}
	return false
}

// How long a browser an earlier daemon left has to go: on its own first
// (that daemon's death closed its pipe, and it is writing its profile to
// disk), then after SIGTERM, before its group is killed.
const (
	exitGrace = 5 * time.Second
	termGrace = 2 * time.Second
)

// stopGroup stops the browser of process group pgid, left by a daemon that
// died. Nothing can ask it to close any more (its pipe was that daemon's
// alone, and it listens nowhere), and it needs not be asked: the pipe's
// EOF already made it shut down cleanly, so it is waited for. One still
// running after exitGrace is hung: SIGTERM, then SIGKILL for its group.
// Waiting matters: a new browser on the same profile must not start while
// the old one still writes it.
func stopGroup(ctx context.Context, pgid int, dir string) {
	gone := func(d time.Duration) bool {
		wctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		for len(cdp.GroupProcesses(pgid)) > 0 {
			if wctx.Err() != nil {
				return false
			}
			time.Sleep(20 * time.Millisecond)
		}
		return true
	}
	if gone(exitGrace) {
		return
	}
	if !ours(pgid, dir) {
		return // the group changed hands meanwhile
	}
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	if gone(termGrace) {
		return
	}
	killGroup(ctx, pgid)
}

// killGroup kills process group pgid and waits, bounded, until none of
// it is left (the leader is not our child: a zombie of it is reaped by
// whoever its parent is).
func killGroup(ctx context.Context, pgid int) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if len(cdp.GroupProcesses(pgid)) == 0 || ctx.Err() != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Doctor says whether Chromium is there, and which road a watched tab's
// pictures take, and why (Options.PaneWhy).
func (p *Pool) Doctor(ctx context.Context) []Check {
	path, err := exec.LookPath(p.o.Binary)
	if err != nil {
		return []Check{{Name: "browser", Detail: fmt.Sprintf("%s not found: browser.* verbs cannot start a browser (install chromium)", p.o.Binary)}}
	}
	p.mu.Lock()
	n := 0
	for _, br := range p.browsers {
		if br.alive() {
			n++
		}
	}
	p.mu.Unlock()
	checks := []Check{{Name: "browser", OK: true, Detail: fmt.Sprintf("%s; %d of at most %d browsers running", path, n, p.o.MaxBrowsers)}, p.contextCapCheck()}
	if p.o.PaneWhy != "" {
		road := PaneScreencast
		if p.o.PaneXvfb && p.o.TabPane != PaneScreencast {
			road = PaneWindow
		}
		checks = append(checks, Check{Name: "tab pane", OK: true, Detail: road + ": " + p.o.PaneWhy + p.aheadState()})
	}
	return checks
}

// Check is one row of doctor's matrix.
type Check = kind.Check

// idleLoop stops profile browsers nobody used for IdleStop, and the shared
// browser when it is that idle and holds nothing (sharedIdle); a browser
// that crashed is forgotten by its watch.
func (p *Pool) idleLoop() {
	defer close(p.done)
	every := 30 * time.Second
	if p.o.IdleStop > 0 && p.o.IdleStop/4 < every {
		every = max(p.o.IdleStop/4, 50*time.Millisecond)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.mu.Lock()
		var idle []*browser
		var shared *browser
		for _, br := range p.browsers {
			if !br.alive() || p.o.IdleStop <= 0 || br.busy > 0 || time.Since(br.last) <= p.o.IdleStop {
				continue
			}
			switch {
			case br.profile != "":
				p.forgetLocked(br)
				idle = append(idle, br)
			case br.provider == "":
				shared = br
			}
		}
		p.mu.Unlock()
		for _, br := range idle {
			p.o.Logger.Info("stopping an idle browser", "profile", br.profile)
			p.stopBrowser(br)
		}
		if shared != nil && p.sharedIdle(shared) {
			idle = append(idle, shared)
		}
		if len(idle) > 0 {
			p.changed()
		}
	}
}

// sharedIdle stops the shared browser, idle past IdleStop, when none of
// its sessions' contexts holds anything its stop would lose: no tab and
// no cookie. The next verb that needs it starts it again, each session
// with a fresh context, as empty as the one it had. A context that holds
// a cookie keeps the browser running, however long idle. It says whether
// it stopped the browser.
func (p *Pool) sharedIdle(br *browser) bool {
	p.mu.Lock()
	if br.ahead && len(br.users) == 0 {
		p.mu.Unlock()
		p.o.Logger.Debug(aheadKept, "pid", br.b.PID())
		return false
	}
	last := br.last
	var cs []*cdp.Context
	for owner, b := range p.ctxOf {
		if b == br {
			cs = append(cs, p.contexts[owner])
		}
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range cs {
		tabs, cookies, err := c.Holds(ctx)
		if err != nil || tabs > 0 || cookies > 0 {
			p.o.Logger.Debug("the shared browser is idle and kept: a context holds something", "context", c.ID(), "tabs", tabs, "cookies", cookies, "err", err)
			return false
		}
	}
	p.mu.Lock()
	if p.browsers[br.profile] != br || br.busy > 0 || !br.last.Equal(last) {
		p.mu.Unlock() // a verb came meanwhile
		return false
	}
	p.forgetLocked(br)
	p.mu.Unlock()
	p.o.Logger.Info("stopping the idle shared browser: none of its contexts holds a tab or a cookie", "contexts", len(cs), "idle", p.o.IdleStop)
	p.stopBrowser(br)
	return true
}

// Close stops every browser and reaps its processes.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stop)
	var all []*browser
	for _, br := range p.browsers {
		all = append(all, br)
	}
	p.browsers = make(map[string]*browser)
	p.contexts = make(map[string]*cdp.Context)
	p.ctxOf = make(map[string]*browser)
	p.mu.Unlock()
	<-p.done
	var first error
	for _, br := range all {
		if err := p.stopBrowser(br); err != nil && first == nil {
			first = err
		}
	}
	p.watchers.Wait()
	return first
}
