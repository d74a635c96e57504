package app

import (
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

// Per-call bounds on the client side (the daemon bounds each verb itself).
const (
	callTimeout = daemoncall.CallTimeout
	openTimeout = daemoncall.OpenTimeout
)

// ask sends req to the daemon and prints the answer.
func ask(c *cli.Context, o Options, req wire.Request, timeout time.Duration, body func(wire.Response, io.Writer) error) error {
	return daemoncall.Ask(c, o, req, timeout, body)
}

// handle is the first argument, a target handle.
func handle(c *cli.Context) (string, error) {
	if c.NArg() < 1 {
		return "", usage("%s needs a target handle, e.g. %s win:1 (list shows yours)", c.Command.Name, c.Command.Name)
	}
	return c.Args().First(), nil
}

// simpleCommand is a verb that takes one handle and nothing else.
func simpleCommand(o Options, name, usageLine, verb string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usageLine, ArgsUsage: "<handle>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() > 1 {
				return usage("%s takes one handle", name)
			}
			return ask(c, o, wire.Request{Verb: verb, Target: h}, callTimeout, nil)
		},
	}
}

// commands lists every command, in the order help shows them.
func commands(o Options) []*cli.Command {
	return []*cli.Command{
		listCommand(o),
		openCommand(o),
		attachCommand(o),
		detachCommand(o),
		closeCommand(o),
		snapshotCommand(o),
		findCommand(o),
		getCommand(o),
		screenshotCommand(o),
		clickCommand(o),
		typeCommand(o),
		fillCommand(o),
		selectCommand(o),
		keyCommand(o),
		scrollCommand(o),
		modeCommand(o),
		shareCommand(o),
		takeoverCommand(o),
		handbackCommand(o),
		budgetCommand(o),
		poolCommand(o, daemoncall.BorrowCommand),
		poolCommand(o, daemoncall.ReturnCommand),
		daemoncall.HandoffCommand("vibespace-window", true, func(c *cli.Context, req wire.Request, timeout time.Duration) error {
			return ask(c, o, req, timeout, daemoncall.PrintText)
		}),
		watchCommand(o),
		desktopCommand(o),
		statusCommand(o),
		doctorCommand(o),
		traceCommand(o),
		daemoncall.BatchCommand(o, daemoncall.BatchSpec{NewApp: New, Windows: true,
			Ask: func(c *cli.Context, req wire.Request, timeout time.Duration) error {
				return ask(c, o, req, timeout, daemoncall.PrintText)
			}}),
		daemoncall.ServeCommand(o),
	}
}

// poolCommand is the desktop pool's command of,
// daemoncall.BorrowCommand or daemoncall.ReturnCommand.
func poolCommand(o Options, of func(string, func(*cli.Context, wire.Request) error) *cli.Command) *cli.Command {
	return of("vibespace-window", func(c *cli.Context, req wire.Request) error {
		return ask(c, o, req, callTimeout, nil)
	})
}
