// Package serve is the vibespace daemon's program: it runs the daemon with
// the native (X11/AT-SPI) and Chromium backends in the foreground until
// SIGTERM or SIGINT. The command lines start it (they link only the wire
// protocol); their serve runs it in the foreground.
package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/cmd/internal/poolroad"
	"github.com/vibespace/vibespace/cmd/internal/sshroad"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/handoff"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/pool"
	"github.com/vibespace/vibespace/daemon/yourdesktop"
	"github.com/vibespace/vibespace/lease"
)

// newTimeout bounds starting the daemon: reading its state and re-attaching
// to the display an earlier one left running.
const newTimeout = time.Minute

// Run runs the daemon program with args (args[0] is the program) and
// returns its exit code. Its log goes to daemon.log in the state directory,
// rotated at a size bound, and to stderr too unless stderr is the state
// directory's daemon.stderr (where the command lines start it with its
// standard error: a panic's trace lands there).
func Run(ctx context.Context, args []string, stderr io.Writer, getenv daemoncall.Env) int {
	a := &cli.App{
		Name:  daemoncall.DaemonName,
		Usage: "the vibespace daemon, in the foreground (vibespace-window and vibespace-browser start it when none answers)",
		Description: `One daemon per user and state directory ($VIBESPACE_HOME, else
$XDG_STATE_HOME/vibespace): it owns the private display, the browsers, the
leases and the socket the command lines talk to. SIGTERM or SIGINT stops it with
the display and the applications it started; one killed with -9 leaves them
running, and the next one re-attaches.`,
		Writer:         stderr,
		ErrWriter:      stderr,
		HideVersion:    true,
		ExitErrHandler: func(*cli.Context, error) {}, // never os.Exit inside Run
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return daemoncall.Usage("%v (see: %s --help)", err, daemoncall.DaemonName)
		},
		Flags: daemoncall.ServeFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return daemoncall.Usage("%s takes no arguments, got %q (see: %s --help)", daemoncall.DaemonName, c.Args().First(), daemoncall.DaemonName)
			}
			return serve(c, stderr, getenv)
		},
	}
	return daemoncall.ExitCode(a.RunContext(ctx, args), daemoncall.DaemonName, stderr)
}

func serve(c *cli.Context, stderr io.Writer, getenv daemoncall.Env) error {
	// The road of a watched tab (a window of the shared browser on a
	// private Xvfb, or the screencast), before anything starts.
	pane, paneWhy, err := chromium.ChoosePane(c.String("tab-pane"))
	if err != nil {
		return daemoncall.Usage("%v", err)
	}
	stateDir, sock, err := daemon.Paths(getenv)
	if err != nil {
		return daemoncall.Usage("%v", err)
	}
	if getenv("GOGC") == "" {
		// A long-lived daemon with a small live heap: trade a little GC
		// work for a smaller resident set (the goal is agent-browser's
		// daemon, 18 MB, or less).
		debug.SetGCPercent(50)
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	logs, err := openLog(stateDir, stderr, getenv)
	if err != nil {
		return daemoncall.Internal(err)
	}
	defer logs.file.Close()
	log := slog.New(slog.NewTextHandler(logs.w, nil))
	idle := c.Duration("idle-handback")
	if idle == 0 {
		idle = -1
	}
	logf := func(f string, a ...any) { log.Info(fmt.Sprintf(f, a...)) }
	// The one place kinds and displays are registered: a new display is one
	// package and one line here.
	// The portal's restore token (the person's standing grant on Wayland)
	// is kept server-side, beside the state, 0600.
	no := native.Options{WalkTimeout: c.Duration("walk-timeout"), Logf: logf, TokenPath: filepath.Join(stateDir, "desktop-portal-token"), Owner: ownerOf(stateDir)}
	displays := []kind.DisplayProvider{native.Xvfb(no), native.Xpra(no)}
	// The desktop pool (--pool-desks N): N more displays, desk1…deskN,
	// each lent to one session at a time (its stage: stages.WithPool);
	// its words for a person are the live view's.
	var pl *pool.Pool
	var routes map[string]http.Handler
	// Each --pool-remote is one more member: a desktop of that host's own
	// pool, borrowed and returned there over the ssh road (poolroad).
	var remotes []pool.Remote
	for _, spec := range c.StringSlice("pool-remote") {
		r, err := poolroad.New(spec, sshroad.Env(getenv), sock)
		if err != nil {
			return daemoncall.Usage("--pool-remote: %v", err)
		}
		remotes = append(remotes, r)
	}
	if n := c.Int("pool-desks"); n > 0 || len(remotes) > 0 {
		var inner kind.DisplayProvider
		switch k := c.String("pool-kind"); k {
		case native.ProviderName:
			inner = native.Xvfb(no)
		case native.XpraName:
			inner = native.Xpra(no)
		default:
			return daemoncall.Usage("--pool-kind takes xvfb or xpra, not %q", k)
		}
		pl = pool.New(pool.Config{Desks: n, Kind: inner.Name(), Inner: inner, IdleReturn: c.Duration("pool-idle"),
			Margin: c.Float64("pool-margin"), PerDesk: int64(c.Int("pool-per-desk")) << 20, Logf: logf, Remotes: remotes})
		displays = append(displays, pl.Desks()...)
		routes = pl.Routes()
		capped, why := pl.Cap()
		log.Info("desktop pool", "desks", n, "remote", len(remotes), "kind", inner.Name(), "cap", capped, "derived", why)
	}
	// Hand-offs to a person: the stage answers handoff, the live view
	// shows "needs you" and takes a decline.
	hd := handoff.New()
	if routes == nil {
		routes = map[string]http.Handler{}
	}
	maps.Copy(routes, hd.Routes())
	// The user's own desktop, one of the displays: off until the operator
	// opts in; its admission (the setting, the pixels grant, the person's
	// own input) is the gate's.
	desktop := yourdesktop.New(native.Desktop(no))
	// The shared browser's contexts are capped by memory as the desks are.
	maxContexts, contextsWhy := pool.ContextCap(pool.MemAvailable, c.Float64("pool-margin"), int64(c.Int("browser-per-context"))<<20)
	log.Info("browser contexts", "cap", maxContexts, "derived", contextsWhy)
	// Firefox beside Chromium: the tabs of a profile of provider firefox.
	chrome := chromium.New(chromium.Options{Binary: c.String("chromium"), MaxBrowsers: c.Int("max-browsers"), Logger: log,
		TabPane: pane, PaneXvfb: pane == chromium.PaneWindow, PaneWhy: paneWhy, MaxContexts: maxContexts, ContextCapWhy: contextsWhy})
	br := firefox.Beside(chrome, firefox.NewPool(firefox.Options{MaxBrowsers: c.Int("max-browsers"), Logger: log}))
	// Re-attaching to an earlier daemon's display talks to its X server
	// and buses: bounded, so a wedged one cannot hang the start.
	nctx, ncancel := context.WithTimeout(ctx, newTimeout)
	d, err := daemon.New(nctx, daemon.Config{
		StateDir: stateDir, SocketPath: sock, Displays: displays, Desktop: desktop, Browser: br,
		Stages: stages.Of(pl, hd),
		Live:   live.For(live.Options{Logger: log, VerbTimeout: c.Duration("verb-timeout"), Routes: routes, Asks: hd.Asks}),
		Logger: log, IdleHandback: idle, VerbTimeout: c.Duration("verb-timeout"),
		LogFile: logs.file.Path(), LogKeep: logs.keep, Stderr: logs.stderr,
	})
	ncancel()
	if err != nil { // daemon.ErrRunning among others
		return daemoncall.Internal(err)
	}
	if err := d.Listen(); err != nil {
		d.Close()
		return daemoncall.Internal(err)
	}
	log.Info("serving", "socket", sock, "state", stateDir)
	if pane == chromium.PaneWindow && c.Bool("browser-ahead") {
		// The window road's browser and display take longest to start:
		// started now, beside serving, so that no verb pays for them (a
		// verb that comes first waits for them within its bound).
		chrome.Ahead(ctx)
	}
	if pl != nil {
		go pl.IdleLoop(ctx)
	}
	err = d.Serve(ctx)
	cerr := d.Close()
	log.Info("stopped", "err", err, "close", cerr)
	if err != nil && !errors.Is(err, context.Canceled) {
		return daemoncall.Internal(err)
	}
	return nil
}

// File names of the daemon's own log and of its standard error when the
// command lines start it (cmd/internal/daemoncall).
const (
	logName    = "daemon.log"
	stderrName = daemoncall.DaemonStderr
)

// logMaxEnv bounds daemon.log, in bytes (daemon.DefaultLogMaxBytes when
// unset); tests set it small.
const logMaxEnv = "VIBESPACE_LOG_MAX_BYTES"

// daemonLog is where the daemon's log goes.
type daemonLog struct {
	file   *lease.RotatingFile // daemon.log, rotated
	keep   int
	w      io.Writer // the file, and stderr too when it is not daemon.stderr
	stderr string    // where stderr goes, for status
}

// openLog opens the daemon's log: daemon.log under the state directory,
// rotated at its bound with daemon.DefaultLogKeep old files, teed to
// stderr unless stderr is the state directory's daemon.stderr (a daemon
// the command lines started: nobody reads its stderr but a person after a
// crash).
func openLog(stateDir string, stderr io.Writer, getenv daemoncall.Env) (*daemonLog, error) {
	bound := int64(daemon.DefaultLogMaxBytes)
	if v := getenv(logMaxEnv); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, daemoncall.Usage("%s=%q is not a positive number of bytes", logMaxEnv, v)
		}
		bound = n
	}
	l := &daemonLog{keep: daemon.DefaultLogKeep}
	f, err := lease.OpenRotating(filepath.Join(stateDir, logName), lease.Rotation{MaxBytes: bound, Keep: l.keep})
	if err != nil {
		// A log that cannot be opened (a read-only state directory) does
		// not stop the daemon: it logs to its standard error alone, and
		// says so there.
		fmt.Fprintf(stderr, "vibespace-daemon: %s cannot be written (%v); logging to standard error only\n", logName, err)
		l.file, l.w, l.stderr = f, stderr, "this daemon's standard error ("+logName+" cannot be written)"
		return l, nil
	}
	l.file, l.w = f, f
	l.stderr = "this daemon's standard error (it was not started by a command line)"
	if sf, ok := stderr.(*os.File); ok {
		own := filepath.Join(stateDir, stderrName)
		if a, err := sf.Stat(); err == nil {
			if b, err := os.Stat(own); err == nil && os.SameFile(a, b) {
				l.stderr = own
				return l, nil
			}
		}
		if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(sf.Fd()))); err == nil {
			l.stderr = p
		}
	}
	l.w = tee{f, stderr}
	return l, nil
}

// tee writes to the log file, then to stderr; only the file's failure is
// the write's (a closed terminal must not stop the log).
type tee struct {
	file   io.Writer
	stderr io.Writer
}

func (t tee) Write(b []byte) (int, error) {
	n, err := t.file.Write(b)
	_, _ = t.stderr.Write(b)
	return n, err
}

// ownerOf is the mark of the displays this daemon starts: a digest of its
// state directory, so a daemon that lost its state finds its own displays
// (and no other daemon's) to stop.
func ownerOf(stateDir string) string {
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		abs = stateDir
	}
	h := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(h[:8])
}
