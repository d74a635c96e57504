package daemoncall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon"
)

// newTimeout bounds starting the daemon: reading its state and re-attaching
// to the display an earlier one left running.
const newTimeout = time.Minute

// ServeCommand runs the daemon in the foreground until SIGTERM or SIGINT.
// On that signal it stops the display and the applications it started; a
// daemon killed with -9 leaves them running, and the next one re-attaches.
func ServeCommand(o Options) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the daemon in the foreground (other commands start it when none answers)",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "idle-handback", Value: daemon.DefaultIdleHandback, Usage: "hand a takeover back after this long without user input (0: never)"},
			&cli.DurationFlag{Name: "verb-timeout", Value: daemon.DefaultVerbTimeout, Usage: "bound on one verb"},
			&cli.DurationFlag{Name: "walk-timeout", Value: 8 * time.Second, Usage: "bound on one snapshot's walk; what is not read by then is marked unreadable"},
			&cli.StringFlag{Name: "chromium", Value: "chromium", Usage: "the Chromium program the browser verbs start (a name in PATH, or a path)"},
			&cli.IntFlag{Name: "max-browsers", Usage: "the ceiling on browsers running at once (0: the default)"},
		},
		Action: func(c *cli.Context) error {
			stateDir, sock, err := daemon.Paths(o.Getenv)
			if err != nil {
				return Usage("%v", err)
			}
			if o.Backend == nil {
				return Usage("this build has no display backend")
			}
			if o.Getenv("GOGC") == "" {
				// A long-lived daemon with a small live heap: trade a little
				// GC work for a smaller resident set (the goal is agent-browser's
				// daemon, 18 MB, or less).
				debug.SetGCPercent(50)
			}
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			log := slog.New(slog.NewTextHandler(o.Stderr, nil))
			idle := c.Duration("idle-handback")
			if idle == 0 {
				idle = -1
			}
			so := ServeOptions{WalkTimeout: c.Duration("walk-timeout").Seconds(), Logf: func(f string, a ...any) { log.Info(fmt.Sprintf(f, a...)) },
				Logger: log, Chromium: c.String("chromium"), MaxBrowsers: c.Int("max-browsers")}
			b := o.Backend(so)
			var br daemon.BrowserBackend
			if o.Browser != nil {
				br = o.Browser(so)
			}
			// Re-attaching to an earlier daemon's display talks to its X
			// server and buses: bounded, so a wedged one cannot hang serve.
			nctx, ncancel := context.WithTimeout(ctx, newTimeout)
			d, err := daemon.New(nctx, daemon.Config{
				StateDir: stateDir, SocketPath: sock, Backend: b, Browser: br, Logger: log,
				IdleHandback: idle, VerbTimeout: c.Duration("verb-timeout"),
			})
			ncancel()
			if err != nil { // daemon.ErrRunning among others
				return Internal(err)
			}
			if err := d.Listen(); err != nil {
				d.Close()
				return Internal(err)
			}
			log.Info("serving", "socket", sock, "state", stateDir)
			err = d.Serve(ctx)
			cerr := d.Close()
			log.Info("stopped", "err", err, "close", cerr)
			if err != nil && !errors.Is(err, context.Canceled) {
				return Internal(err)
			}
			return nil
		},
	}
}
