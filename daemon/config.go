package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/provider"
)

// Defaults of Config's zero fields.
const (
	DefaultMaxRequest   = 1 << 20 // bytes of one request line
	DefaultMaxText      = 1 << 16 // characters of one type through the tree
	DefaultMaxKeysText  = 1500    // characters of one type through injected keys
	DefaultVerbTimeout  = 30 * time.Second
	DefaultIdleHandback = 10 * time.Minute
	DefaultIdleTimeout  = 30 * time.Second // a connection with no whole request for this long is closed
	DefaultMaxConns     = 64               // connections served at once

	// A per-session display (kind.PerSession) with no window for this
	// long is stopped; at most this many run at once.
	DefaultDisplayIdleStop    = 5 * time.Minute
	DefaultMaxSessionDisplays = 4

	// The audit log's size bound, and how many old files are kept
	// (audit.jsonl.1, audit.jsonl.2). The daemon's own log is bounded the
	// same way by the program that writes it (cmd/vibespace-daemon).
	DefaultLogMaxBytes = 8 << 20
	DefaultLogKeep     = 2

	// An acting verb watches for its effect this long at most, looking
	// every DefaultVerifyPoll (the registered watcher, stage.Watcher); the same action that saw no
	// visible change this many times in a row is refused no_progress the
	// next time (package daemon/budget).
	DefaultVerifyWait      = 500 * time.Millisecond
	DefaultVerifyPoll      = 50 * time.Millisecond
	DefaultNoProgressAfter = 3
)

// Config configures a Daemon. StateDir, SocketPath and at least one display
// or a browser are required; the rest have defaults. Nothing in this package
// reads the environment: the command's main derives the paths (see Paths)
// and registers the kinds.
type Config struct {
	StateDir   string // VIBESPACE_HOME: state.json, audit.jsonl (rotated), daemon.lock; the program's daemon.log, daemon.stderr
	SocketPath string // the Unix socket to listen on

	// Displays are the sorts of display windows can live on, each started
	// on its first use; the first is the default of open. Their names
	// (kind.DisplayProvider.Name) must differ. None means no window road:
	// window verbs are refused no_display.
	Displays []kind.DisplayProvider
	// Providers is the table of where a browser comes from (package
	// provider) that the daemon reads: its gate, the capability law's
	// probe, doctor, new. nil means provider.All(), the table itself; a
	// test gives it with a row's Cannot changed (the browser backend reads
	// the table itself: a row's name, tier and key are the table's).
	Providers []provider.Row
	// Browser runs the browsers of the browser.* verbs (package
	// daemon/chromium); nil means no browser road: those verbs are refused
	// no_browser.
	Browser kind.Browser
	// Desktop is the user's own desktop: its road and the gate of its
	// admission (package daemon/yourdesktop; nil: no road). It is off
	// until the operator opts in (desktop on); its road's name must differ
	// from every display provider's.
	Desktop DesktopGate
	// Live makes the live view (package daemon/live) once the daemon is
	// made, from the core's hands it lends the view; nil means none: watch
	// is refused live_view_unavailable.
	Live func(LiveHands) LiveView
	// Stages are the work that runs around every verb (package
	// daemon/stage), in order: the program registers them in one place
	// (cmd/vibespace-daemon/stages). None means none: no budget, no
	// trace, no audit of verbs.
	Stages []stage.Registration

	// IdleHandback hands a takeover back after this long without user
	// input; negative means never, zero the default.
	IdleHandback time.Duration
	MaxRequest   int           // bytes; default DefaultMaxRequest
	MaxText      int           // characters typed through the tree; default DefaultMaxText
	MaxKeysText  int           // characters typed as keys; default DefaultMaxKeysText
	VerbTimeout  time.Duration // bound on one verb; default DefaultVerbTimeout
	IdleTimeout  time.Duration // bound on reading one request; default DefaultIdleTimeout
	MaxConns     int           // connections served at once; default DefaultMaxConns
	// AuditMaxBytes bounds audit.jsonl: a line that would take it past
	// this begins a new file, and AuditKeep old ones are kept
	// (audit.jsonl.1 the newest). Zero means DefaultLogMaxBytes and
	// DefaultLogKeep; a negative AuditMaxBytes, no bound.
	AuditMaxBytes int64
	AuditKeep     int
	// LogFile is the file the program writes this daemon's Logger to,
	// rotated with LogKeep old files kept; Stderr where its standard error
	// (a panic's trace) goes. Status names them; "" means not told.
	LogFile string
	LogKeep int
	Stderr  string
	Logger  *slog.Logger // nil discards
	Now     func() time.Time

	// DisplayIdleStop stops a per-session display (kind.PerSession) that
	// has had no window this long; zero means DefaultDisplayIdleStop,
	// negative never. Shared displays are never stopped as idle.
	DisplayIdleStop time.Duration
	// MaxSessionDisplays bounds the per-session displays running at once,
	// across sessions: one more is refused display_limit. Zero means
	// DefaultMaxSessionDisplays.
	MaxSessionDisplays int

	// MaxConnsPerPeer bounds the connections one process holds at once;
	// default half of MaxConns.
	MaxConnsPerPeer int

	// The trace (the stage daemon/trace): TraceSteps bounds the steps
	// kept per session (default DefaultTraceSteps); TraceRetention removes
	// a step, and its picture, this old (default DefaultTraceRetention;
	// negative keeps them); TracePictureMax bounds one kept picture in
	// bytes (default DefaultTracePictureMax; a larger one is not kept).
	TraceSteps      int
	TraceRetention  time.Duration
	TracePictureMax int64
	// VerifyWait bounds how long an acting verb watches for its effect (a
	// change ends the wait early); VerifyPoll is how often it looks.
	// Zero means DefaultVerifyWait, DefaultVerifyPoll.
	VerifyWait time.Duration
	VerifyPoll time.Duration
	// NoProgressAfter is how many times in a row one session's same
	// action may see no visible change before the next is refused
	// no_progress; zero means DefaultNoProgressAfter, negative never.
	NoProgressAfter int
}

func (c *Config) fill() error {
	if c.StateDir == "" || c.SocketPath == "" {
		return errors.New("daemon: StateDir and SocketPath are required")
	}
	if len(c.Displays) == 0 && c.Browser == nil {
		return errors.New("daemon: no display and no browser: nothing to drive")
	}
	seen := map[string]bool{}
	for _, p := range c.Displays {
		if p == nil || p.Name() == "" || seen[p.Name()] {
			return fmt.Errorf("daemon: every display provider needs a name of its own (%v)", c.Displays)
		}
		seen[p.Name()] = true
	}
	if c.Desktop == nil {
		c.Desktop = noDesktop{}
	}
	if p := c.Desktop.Provider(); p != nil && (p.Name() == "" || seen[p.Name()]) {
		return fmt.Errorf("daemon: the desktop road needs a name of its own, not %q", p.Name())
	}
	if c.IdleHandback == 0 {
		c.IdleHandback = DefaultIdleHandback
	}
	if c.IdleHandback < 0 {
		c.IdleHandback = 0
	}
	if c.MaxRequest <= 0 {
		c.MaxRequest = DefaultMaxRequest
	}
	if c.MaxText <= 0 {
		c.MaxText = DefaultMaxText
	}
	if c.MaxKeysText <= 0 {
		c.MaxKeysText = DefaultMaxKeysText
	}
	if c.VerbTimeout <= 0 {
		c.VerbTimeout = DefaultVerbTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxConns <= 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.AuditMaxBytes == 0 {
		c.AuditMaxBytes = DefaultLogMaxBytes
	}
	if c.AuditKeep <= 0 {
		c.AuditKeep = DefaultLogKeep
	}
	if c.DisplayIdleStop == 0 {
		c.DisplayIdleStop = DefaultDisplayIdleStop
	}
	if c.MaxSessionDisplays <= 0 {
		c.MaxSessionDisplays = DefaultMaxSessionDisplays
	}
	if c.MaxConnsPerPeer <= 0 {
		c.MaxConnsPerPeer = max(1, c.MaxConns/2)
	}
	if c.TraceSteps <= 0 {
		c.TraceSteps = DefaultTraceSteps
	}
	if c.TraceRetention == 0 {
		c.TraceRetention = DefaultTraceRetention
	}
	if c.TracePictureMax <= 0 {
		c.TracePictureMax = DefaultTracePictureMax
	}
	if c.VerifyWait <= 0 {
		c.VerifyWait = DefaultVerifyWait
	}
	if c.VerifyPoll <= 0 {
		c.VerifyPoll = DefaultVerifyPoll
	}
	if c.NoProgressAfter == 0 {
		c.NoProgressAfter = DefaultNoProgressAfter
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}
