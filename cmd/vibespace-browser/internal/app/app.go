// Package app is the vibespace-browser command line: it parses, asks the
// daemon (starting it when none answers) with the verb "browser.<word>",
// and prints. It never calls os.Exit: Run returns the exit code for main.
package app

import (
	"context"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// Options wire the command (see daemoncall.Options).
type Options = daemoncall.Options

const name = "vibespace-browser"

// Run runs the command line args (args[0] is the program) and returns the
// exit code.
func Run(ctx context.Context, args []string, o Options) int {
	o.Name = name
	return daemoncall.Run(ctx, New(o), args, o)
}

// New builds the cli.App.
func New(o Options) *cli.App {
	return daemoncall.NewApp(o, daemoncall.AppSpec{
		Name:        name,
		Usage:       "drive Chromium tabs for an agent: open, snapshot -i, click @ref, fill, type, key, screenshot",
		Description: description,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the daemon's answer as one JSON object"},
			&cli.StringFlag{Name: "profile", Usage: "which attached profile this command acts on: its id (bp-…), label or alias — never a path (default: $VIBESPACE_BROWSER)"},
		},
		Commands: commands(o),
	})
}

// profile is the handle this command names: --profile, else
// $VIBESPACE_BROWSER, else "" (the daemon decides: the default attachment,
// or the session's own ephemeral context). It is sent as given — a path
// too, which the daemon refuses path_not_handle with the command that
// registers it.
func profile(c *cli.Context, o Options) string {
	if p, ok := explicitProfile(c); ok {
		return p
	}
	return o.Getenv("VIBESPACE_BROWSER")
}

// explicitProfile is --profile as given on the command line.
func explicitProfile(c *cli.Context) (string, bool) {
	for _, cc := range c.Lineage() {
		if cc.IsSet("profile") {
			return cc.String("profile"), true
		}
	}
	return "", false
}

// ask sends the verb "browser.<word>" with the caller's profile and prints
// the answer.
func ask(c *cli.Context, o Options, req wire.Request, body daemoncall.Body) error {
	return daemoncall.Ask(c, o, browserRequest(c, o, req), callTimeout, body)
}

// browserRequest prefixes the verb and fills the profile (unless the verb
// names one itself, as pin and detach do).
func browserRequest(c *cli.Context, o Options, req wire.Request) wire.Request {
	if !strings.Contains(req.Verb, ".") {
		req.Verb = "browser." + req.Verb
	}
	switch {
	case req.Profile != "":
	case req.For != "":
		// The handle names one of the other session's attachments: the
		// caller's own $VIBESPACE_BROWSER means nothing there.
		req.Profile, _ = explicitProfile(c)
	default:
		req.Profile = profile(c, o)
	}
	return req
}

// callTimeout bounds one call on the client side: any browser verb may
// start a browser first (the daemon bounds each verb itself).
const callTimeout = daemoncall.OpenTimeout

// reachTimeout bounds a reach on the client side: its rungs and, at the
// fifth, the person it waits for (args.Reach's bound on the daemon's side).
const reachTimeout = args.DefaultHandoffWait + 2*time.Minute
