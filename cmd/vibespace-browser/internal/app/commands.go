package app

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

var (
	usage     = daemoncall.Usage
	jsonFlag  = daemoncall.JSONFlag
	printURL  = daemoncall.PrintURL
	printText = daemoncall.PrintText
	tabID     = daemoncall.TabHandle
)

// commands lists every command, in the order help shows them.
func commands(o Options) []*cli.Command {
	return []*cli.Command{
		openCommand(o),
		reachCommand(o),
		snapshotCommand(o),
		findCommand(o),
		clickCommand(o),
		fillCommand(o),
		selectCommand(o),
		typeCommand(o),
		keyCommand(o),
		scrollCommand(o),
		screenshotCommand(o),
		getCommand(o),
		evalCommand(o),
		bare(o, "back", "go back in the tab's history"),
		bare(o, "forward", "go forward in the tab's history"),
		bare(o, "reload", "reload the page"),
		waitCommand(o),
		tabCommand(o),
		profilesCommand(o),
		newCommand(o),
		closeCommand(o),
		useCommand(o),
		attachmentsCommand(o),
		detachCommand(o),
		pinCommand(o),
		newChildCommand(o),
		statusCommand(o),
		watchCommand(o),
		takeoverCommand(o),
		handbackCommand(o),
		traceCommand(o),
		budgetCommand(o),
		poolCommand(o, daemoncall.BorrowCommand),
		poolCommand(o, daemoncall.ReturnCommand),
		daemoncall.HandoffCommand("vibespace-browser", false, func(c *cli.Context, req wire.Request, timeout time.Duration) error {
			return daemoncall.Ask(c, o, browserRequest(c, o, req), timeout, daemoncall.PrintText)
		}),
		daemoncall.BatchCommand(o, daemoncall.BatchSpec{NewApp: New,
			Ask: func(c *cli.Context, req wire.Request, _ time.Duration) error { return ask(c, o, req, nil) }}),
		daemoncall.ServeCommand(o),
	}
}

// bare is a verb without arguments.
func bare(o Options, word, usageLine string) *cli.Command {
	return &cli.Command{
		Name: word, Usage: usageLine, Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("%s takes no arguments", word)
			}
			return ask(c, o, wire.Request{Verb: word}, nil)
		},
	}
}

// poolCommand is the desktop pool's command of,
// daemoncall.BorrowCommand or daemoncall.ReturnCommand.
func poolCommand(o Options, of func(string, func(*cli.Context, wire.Request) error) *cli.Command) *cli.Command {
	return of("vibespace-browser", func(c *cli.Context, req wire.Request) error {
		return ask(c, o, req, nil)
	})
}
