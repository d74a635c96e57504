package daemon

import (
	"errors"
	"log/slog"
	"time"
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
)

// Config configures a Daemon. StateDir, SocketPath and Backend are
// required; the rest have defaults. Nothing in this package reads the
// environment: the command's main derives the paths (see Paths).
type Config struct {
	StateDir   string // VIBESPACE_HOME: state.json, audit.jsonl, daemon.lock, daemon.log
	SocketPath string // the Unix socket to listen on
	Backend    Backend
	// Browser runs the browsers of the browser.* verbs (package
	// daemon/chromium); nil means no browser road: those verbs are refused
	// no_browser.
	Browser BrowserBackend

	// IdleHandback hands a takeover back after this long without user
	// input; negative means never, zero the default.
	IdleHandback time.Duration
	MaxRequest   int           // bytes; default DefaultMaxRequest
	MaxText      int           // characters typed through the tree; default DefaultMaxText
	MaxKeysText  int           // characters typed as keys; default DefaultMaxKeysText
	VerbTimeout  time.Duration // bound on one verb; default DefaultVerbTimeout
	IdleTimeout  time.Duration // bound on reading one request; default DefaultIdleTimeout
	MaxConns     int           // connections served at once; default DefaultMaxConns
	Logger       *slog.Logger  // nil discards
	LivePort     int           // the live view's port on 127.0.0.1; 0 picks a free one
	LiveFPS      int           // the live view's capture rate of a window; 0 means capture's default
	Now          func() time.Time
}

func (c *Config) fill() error {
	if c.StateDir == "" || c.SocketPath == "" {
		return errors.New("daemon: StateDir and SocketPath are required")
	}
	if c.Backend == nil {
		return errors.New("daemon: no Backend")
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
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}
