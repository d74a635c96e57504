package daemoncall

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// HandoffCommand is the hand-off's command of program prog: a window's
// (handle names it: vibespace-window) or the current tab's (none). ask
// sends the request with the client-side bound given.
func HandoffCommand(prog string, handle bool, ask func(c *cli.Context, req wire.Request, timeout time.Duration) error) *cli.Command {
	what, argsUsage, example := "your current tab", "", prog+` handoff --reason "log in as ada, then hand back" --wait 5m`
	if handle {
		what, argsUsage, example = "the window", "<handle>", prog+` handoff win:1 --reason "solve the check, then hand back" --wait 5m`
	}
	return &cli.Command{
		Name: "handoff", ArgsUsage: argsUsage, Description: `Asks a person for help with ` + what + `: a login, a human check, a part you
cannot do. It shows "needs you" with --reason in the live view (its row in the
strip, its pane, and a notification the page raises; watch prints the page's
address) and waits. The person takes it over there, does the part, and hands it
back: the answer says it came back through a person, after how long, and what
changed on it since the hand-off (as snapshot --diff shows it, against the
snapshot the hand-off took as it began; that snapshot becomes your session's
last one).

The person may decline from the page: refused handoff_declined. No person
within --wait (default 5m, at most 30m: the hand-off's own bound, longer
than other verbs'): refused handoff_timeout, and the "needs you" mark is withdrawn (the
refusal says when a person took it over and still drives it). Stopping the
command (Ctrl-C) cancels the hand-off and withdraws the mark too. Your lease is
kept throughout; the audit records the ask and its end, never what the person
typed.

   ` + example,
		Usage: "ask a person in the live view to do a part of it (--reason, --wait); answers what they changed",
		Flags: []cli.Flag{JSONFlag,
			&cli.StringFlag{Name: "reason", Usage: "what the person should do there: a line the live view shows"},
			&cli.DurationFlag{Name: "wait", Usage: "how long to wait for a person (default 5m, at most 30m)"}},
		Action: func(c *cli.Context) error {
			target := ""
			switch {
			case handle && c.NArg() != 1:
				return Usage("handoff needs one window handle: handoff win:1 --reason \"log in\"")
			case handle:
				target = c.Args().First()
			case c.NArg() > 0:
				return Usage("handoff hands off your current tab and takes no arguments: handoff --reason \"log in\"")
			}
			a := args.Handoff{Reason: c.String("reason")}
			timeout := args.DefaultHandoffWait + time.Minute
			if c.IsSet("wait") {
				a.Wait = c.Duration("wait").String()
				timeout = c.Duration("wait") + time.Minute
			}
			return ask(c, args.Request("handoff", target, a), timeout)
		},
	}
}
