package daemoncall

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/target"
)

// DaemonName is the daemon's program: one daemon serves windows and tabs,
// whichever command line started it.
const DaemonName = "vibespace-daemon"

// The daemon's defaults that serve's help shows (package daemon's
// DefaultIdleHandback and DefaultVerbTimeout; a test holds them equal).
const (
	DefaultIdleHandback = 10 * time.Minute
	DefaultVerbTimeout  = 30 * time.Second
	DefaultWalkTimeout  = 8 * time.Second
	DefaultPoolIdle     = 10 * time.Minute
)

// ServeFlags are the daemon's flags: vibespace-daemon's own, and those of
// the command lines' serve, which hands them on.
func ServeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "idle-handback", Value: DefaultIdleHandback, Usage: "hand a takeover back after this long without user input (0: never)"},
		&cli.DurationFlag{Name: "verb-timeout", Value: DefaultVerbTimeout, Usage: "bound on one verb"},
		&cli.DurationFlag{Name: "walk-timeout", Value: DefaultWalkTimeout, Usage: "bound on one snapshot's walk; what is not read by then is marked unreadable"},
		&cli.StringFlag{Name: "chromium", Value: "chromium", Usage: "the Chromium program the browser verbs start (a name in PATH, or a path)"},
		&cli.IntFlag{Name: "max-browsers", Usage: "the ceiling on browsers running at once (0: the default)"},
		&cli.IntFlag{Name: "pool-desks", Usage: "desktops in the pool agents borrow (borrow, return; 0: no pool)"},
		&cli.StringFlag{Name: "pool-kind", Value: "xvfb", Usage: "the pool's desktops' display kind: xvfb or xpra"},
		&cli.DurationFlag{Name: "pool-idle", Value: DefaultPoolIdle, Usage: "a borrowed desktop whose borrower sent no verb this long goes back, wiped (0: never)"},
		&cli.Float64Flag{Name: "pool-margin", Value: 0.5, Usage: "the share of the memory free at start the pool's desktops may take (its cap: free × margin / per desktop)"},
		&cli.StringSliceFlag{Name: "pool-remote", Usage: "a desktop of another host's pool as one more member, reached over ssh: ssh://user@host[:port] (repeatable; that host's daemon runs with --pool-desks)"},
		&cli.IntFlag{Name: "pool-per-desk", Usage: "MiB one desktop in use takes, for the cap (0: the figure measured here, README)"},
		&cli.IntFlag{Name: "browser-per-context", Usage: "MiB one session's context in the shared browser takes, for the cap on contexts (free × pool-margin / it; 0: the figure measured here, README)"},
		&cli.StringFlag{Name: "tab-pane", Usage: "the road of a watched tab's pictures: window (the shared browser runs headed on a private Xvfb, each tab read through its own window: the faster) or screencast (a headless browser, the CDP screencast); auto, the default: window where Xvfb is installed, else screencast"},
		&cli.BoolFlag{Name: "browser-ahead", Value: true, EnvVars: []string{BrowserAheadEnv}, Usage: "on the window road, start the shared browser (headed, on its private Xvfb) at the daemon's start, so that no verb waits for it; false: the first verb that needs it starts it"},
	}
}

// BrowserAheadEnv sets serve's --browser-ahead where no flag is given: in
// the environment of a command line that starts the daemon itself.
const BrowserAheadEnv = "VIBESPACE_BROWSER_AHEAD"

// DaemonPath finds vibespace-daemon: beside this program first (bin/ holds
// the three commands side by side), then on PATH.
func DaemonPath(o Options) (string, error) {
	if o.Executable == "" && o.FindExecutable != nil {
		o.Executable, _ = o.FindExecutable()
	}
	if o.Executable != "" {
		p := filepath.Join(filepath.Dir(o.Executable), DaemonName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(DaemonName); err == nil {
		return p, nil
	}
	where := "on PATH"
	if o.Executable != "" {
		where = "in " + filepath.Dir(o.Executable) + " nor on PATH"
	}
	return "", Usage("the daemon program %s is not %s: build it with `make build` (it puts %s beside the command lines in bin/)", DaemonName, where, DaemonName)
}

// ServeCommand runs the daemon in the foreground: it becomes
// vibespace-daemon (same process, same PID) with the flags given. On
// SIGTERM or SIGINT the daemon stops the display and the applications it
// started; one killed with -9 leaves them running, and the next one
// re-attaches.
func ServeCommand(o Options) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the daemon (" + DaemonName + ") in the foreground (other commands start it when none answers)",
		Flags: ServeFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usage("serve takes no arguments, got %s", target.Echo(c.Args().First()))
			}
			path, err := DaemonPath(o)
			if err != nil {
				return err
			}
			argv := []string{path}
			for _, f := range ServeFlags() {
				name := f.Names()[0]
				if c.IsSet(name) {
					argv = append(argv, fmt.Sprintf("--%s=%v", name, c.Value(name)))
				}
			}
			err = syscall.Exec(path, argv, os.Environ())
			return Internal(fmt.Errorf("run %s: %w", path, err))
		},
	}
}
