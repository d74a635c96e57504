package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Options configure a Pool.
type Options struct {
	// Binary is the Firefox program; "" lets bidi.Launch find firefox-esr
	// or firefox.
	Binary string
	// MaxBrowsers is how many Firefoxes may run at once; 0 means 4.
	MaxBrowsers int
	// StartTimeout bounds a browser's start; 0 means 90 s.
	StartTimeout time.Duration
	Logger       *slog.Logger
	// Calls, when set, sees the method of every BiDi command sent to
	// every browser of the pool (bidi.Options.Calls): tests count a
	// verb's round trips with it.
	Calls func(method string)
}

// Pool runs the Firefoxes of the profiles whose provider is firefox: one
// browser a profile, in which every session that uses the profile has its
// own user context (BiDi's isolation of cookies and storage). Safe for
// concurrent use.
type Pool struct {
	o       Options
	startMu chan struct{} // one start at a time

	mu        sync.Mutex
	browsers  map[string]*browser // by profile id
	observers []func()
	closed    bool
}

type browser struct {
	b        *bidi.Browser
	profile  string
	label    string
	users    map[string]bool
	contexts map[string]bidi.UserContext // by session
	busy     int
}

func (br *browser) alive() bool {
	select {
	case <-br.b.Exited():
		return false
	default:
		return true
	}
}

// NewPool returns a pool; no browser starts until the first use.
func NewPool(o Options) *Pool {
	if o.MaxBrowsers <= 0 {
		o.MaxBrowsers = 4
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 90 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pool{o: o, startMu: make(chan struct{}, 1), browsers: map[string]*browser{}}
}

// Observe registers f, called after a browser started or stopped.
func (p *Pool) Observe(f func()) {
	p.mu.Lock()
	p.observers = append(p.observers, f)
	p.mu.Unlock()
}

func (p *Pool) changed() {
	p.mu.Lock()
	obs := append([]func(){}, p.observers...)
	p.mu.Unlock()
	for _, f := range obs {
		f()
	}
}

// Context is the session's user context in the profile's Firefox,
// starting the browser when it is not running.
func (p *Pool) Context(ctx context.Context, key kind.BrowserKey) (kind.BrowserContext, func(), error) {
	if key.Profile == "" {
		return nil, nil, target.Refuse(target.CodeBadRequest, "a Firefox tab lives in a profile whose provider is firefox: vibespace-browser new <label> --browser firefox")
	}
	if err := p.lockStart(ctx); err != nil {
		return nil, nil, err
	}
	defer func() { <-p.startMu }()
	br, err := p.browserLocked(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	uc, ok := br.contexts[key.Session]
	p.mu.Unlock()
	if !ok {
		var err error
		if uc, err = br.b.Conn().CreateUserContext(ctx); err != nil {
			return nil, nil, fmt.Errorf("firefox: a user context: %w", err)
		}
	}
	p.mu.Lock()
	br.contexts[key.Session] = uc
	br.users[key.Session] = true
	br.busy++
	p.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			p.mu.Lock()
			br.busy--
			p.mu.Unlock()
		})
	}
	return browserContext{conn: br.b.Conn(), uc: uc}, release, nil
}

// lockStart takes the pool's start lock (one start at a time).
func (p *Pool) lockStart(ctx context.Context) error {
	select {
	case p.startMu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return target.Refuse(target.CodeTimeout, "another browser was still starting").Wrap(ctx.Err())
	}
}

// browserLocked is the running Firefox of key's profile, started when it
// is not running. The caller holds the start lock.
func (p *Pool) browserLocked(ctx context.Context, key kind.BrowserKey) (*browser, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, target.Refuse(target.CodeInternal, "the daemon is shutting down")
	}
	br := p.browsers[key.Profile]
	if br != nil && !br.alive() {
		delete(p.browsers, key.Profile)
		br = nil
	}
	running := 0
	for _, b := range p.browsers {
		if b.alive() {
			running++
		}
	}
	p.mu.Unlock()
	if br != nil {
		return br, nil
	}
	if running >= p.o.MaxBrowsers {
		return nil, target.Refuse(target.CodeBrowserLimit, "%d Firefoxes run, the most this daemon allows at once", running).With("limit", p.o.MaxBrowsers)
	}
	br, err := p.launch(ctx, key)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.browsers[key.Profile] = br
	p.mu.Unlock()
	p.changed()
	return br, nil
}

// Start starts the Firefox of profile id now, when it is not running, as
// the first use would (a warm-up: that use then does not wait for it).
func (p *Pool) Start(ctx context.Context, id string) error {
	if err := p.lockStart(ctx); err != nil {
		return err
	}
	defer func() { <-p.startMu }()
	_, err := p.browserLocked(ctx, kind.BrowserKey{Profile: id})
	return err
}

func (p *Pool) launch(ctx context.Context, key kind.BrowserKey) (*browser, error) {
	lctx, cancel := context.WithTimeout(ctx, p.o.StartTimeout)
	defer cancel()
	// The browser outlives this verb: its life is the pool's.
	b, err := bidi.Launch(context.WithoutCancel(lctx), bidi.Options{Binary: p.o.Binary, Headless: true, StartTimeout: p.o.StartTimeout, Logger: p.o.Logger, Calls: p.o.Calls})
	if err != nil {
		if errors.Is(err, bidi.ErrNoIsolation) {
			return nil, target.Refuse(target.CodeNotOnThisProvider, "Firefox is not started here: its Remote Agent would listen on a port another user could reach, and this machine gives no network namespace to hide it in (%v)", err).
				With("provider", Provider).With("feature", "no open door").With("reason", err.Error())
		}
		return nil, fmt.Errorf("firefox: start: %w", err)
	}
	p.o.Logger.Info("firefox started", "profile", key.Profile, "pid", b.PID())
	return &browser{b: b, profile: key.Profile, label: key.Label, users: map[string]bool{}, contexts: map[string]bidi.UserContext{}}, nil
}

// browserContext is one session's user context in a Firefox.
type browserContext struct {
	conn *bidi.Conn
	uc   bidi.UserContext
}

// NewTab opens a blank tab in the user context.
func (b browserContext) NewTab(ctx context.Context) (kind.Target, error) {
	id, err := b.conn.CreateTab(ctx, b.uc)
	if err != nil {
		return nil, (&Tab{}).fail(err)
	}
	return NewTab(b.conn, id), nil
}

// Release closes the session's user context (its tabs, its cookies).
func (p *Pool) Release(ctx context.Context, key kind.BrowserKey) error {
	p.mu.Lock()
	br := p.browsers[key.Profile]
	var uc bidi.UserContext
	ok := false
	if br != nil {
		uc, ok = br.contexts[key.Session]
		delete(br.contexts, key.Session)
	}
	p.mu.Unlock()
	if !ok {
		return nil
	}
	err := br.b.Conn().RemoveUserContext(ctx, uc)
	if errors.Is(err, bidi.ErrClosed) {
		return nil
	}
	return err
}

// Running reports whether the profile's Firefox runs.
func (p *Pool) Running(profile string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	br := p.browsers[profile]
	return br != nil && br.alive()
}

type record struct {
	Profile string `json:"profile"`
	Relay   int    `json:"relay"`
}

// Record names the running Firefoxes by their relay's process id.
func (p *Pool) Record() json.RawMessage {
	p.mu.Lock()
	var rs []record
	for _, br := range p.browsers {
		if br.alive() {
			rs = append(rs, record{Profile: br.profile, Relay: br.b.PID()})
		}
	}
	p.mu.Unlock()
	data, _ := json.Marshal(rs)
	return data
}

// Reap kills the relays an earlier daemon's record names, when they are
// still relays (their first environment names one): each one's end is its
// browser's.
func (p *Pool) Reap(ctx context.Context, rec json.RawMessage) {
	var rs []record
	if json.Unmarshal(rec, &rs) != nil {
		return
	}
	for _, r := range rs {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", r.Relay))
		if err == nil && strings.Contains(string(env), "VIBESPACE_BIDI_RELAY=") {
			syscall.Kill(r.Relay, syscall.SIGKILL)
		}
	}
}

// Doctor says whether Firefox is there.
func (p *Pool) Doctor(ctx context.Context) []kind.Check {
	bin := p.o.Binary
	if bin == "" {
		bin = "firefox-esr"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return []kind.Check{{Name: "firefox", Detail: fmt.Sprintf("%s not found: profiles of provider firefox cannot start (install firefox-esr)", bin)}}
	}
	return []kind.Check{{Name: "firefox", OK: true, Detail: path + "; its Remote Agent runs in a network namespace of its own, reached only through the daemon's relay"}}
}

// Close stops every Firefox.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	brs := p.browsers
	p.browsers = map[string]*browser{}
	p.mu.Unlock()
	var errs []error
	for _, br := range brs {
		errs = append(errs, br.b.Close())
	}
	return errors.Join(errs...)
}
