package daemoncall

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// BorrowCommand is the desktop pool's borrow command of program prog (its
// examples name it); ask sends the request as that command line does.
func BorrowCommand(prog string, ask func(c *cli.Context, req wire.Request) error) *cli.Command {
	return &cli.Command{
		Name: "borrow", Description: `Borrows a desktop of the daemon's pool (vibespace-daemon --pool-desks N): a
display of its own, with its own HOME, downloads and browser profile directory,
lent to your session alone until you return it. open --on <desk> starts an
application there (vibespace-window). When every desktop is lent, the borrow
queues (first come, first served; a person's request from the live view goes
first) for --wait at most, bounded by the daemon's verb timeout; past it, it is
refused pool_busy with your place in the queue.

On return — yours, your budget spent, or no verb from you for the pool's idle
time — every process started on the desktop is ended and its HOME, downloads,
profile and everything its applications wrote there are wiped: your own files
never live there; copy out what you need before you return it.

A desktop of another host (vibespace-daemon --pool-remote ssh://…) is borrowed
on that host as your session ("desk3 — on ssh://you@host, desk1 there"); open
--on desk3 is refused elsewhere here and sent on to that host by this command
itself, and the handle it answers carries the host (win:2@ssh://you@host), so
later verbs on it go there too. Its return wipes it there.

   ` + prog + ` borrow --wait 30s
   vibespace-window open --on desk1 gtk3-widget-factory
   ` + prog + ` return`,
		Usage: "borrow a desktop of the pool (--kind xvfb|xpra, --wait 30s); answers its name (desk1…)",
		Flags: []cli.Flag{JSONFlag,
			&cli.StringFlag{Name: "kind", Usage: "the display kind wanted: xvfb or xpra (default: any)"},
			&cli.DurationFlag{Name: "wait", Usage: "how long to queue when every desktop is lent (default: not at all)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usage("borrow takes no arguments: borrow --wait 30s")
			}
			a := args.Borrow{Kind: c.String("kind")}
			if c.IsSet("wait") {
				a.Wait = c.Duration("wait").String()
			}
			return ask(c, args.Request("borrow", "", a))
		},
	}
}

// ReturnCommand is the desktop pool's return command of program prog.
func ReturnCommand(prog string, ask func(c *cli.Context, req wire.Request) error) *cli.Command {
	return &cli.Command{
		Name: "return", Description: `Gives back the desktop your session borrowed: every process started on it is
ended and its HOME, downloads and profile are wiped (verified), then the next in
the queue gets it.

   ` + prog + ` return`,
		Usage: "give back your borrowed desktop, wiped",
		Flags: []cli.Flag{JSONFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usage("return takes no arguments")
			}
			return ask(c, args.Request("return", "", args.Empty{}))
		},
	}
}
