package app

// Commands of the operator words: takeover and handback, and watch, which
// gives a person the live view.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
)

func takeoverCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "takeover", Description: `For the person watching (what the live view's "Take over" button calls): the
window's input goes to the user. Verbs of agents on it are refused window_paused
(who, since), and its injection in flight is cut. Every key and button held on the
display is released — X has one keyboard, so releasing is display-wide — except
while another window's input is in flight: input goes one sequence at a time, so
nothing is held for this window then, and the other window's typing is left alone
(the answer says which happened). handback returns it (only the user who took over,
or --force); an idle takeover hands back by itself.

You take over only a window your session sees (you opened it, or it was shared with
you); the live view's page takes over any. While another user drives it, takeover is
refused taken_over; --force replaces them, the answer names whom, and they are told
once on their next takeover or handback. The session holding the window's lease never
replaces a takeover made from another session.`,
		Usage:     "(operator) a person drives the window: agent verbs are refused window_paused until handback",
		ArgsUsage: "<handle>",
		Flags: []cli.Flag{jsonFlag, &cli.StringFlag{Name: "as", Value: "user", Usage: "who takes over, as agents will read it"},
			&cli.BoolFlag{Name: "force", Usage: "replace another user's takeover (they are told)"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			return ask(c, o, args.Request("takeover", h, args.Operator{User: c.String("as"), Force: c.Bool("force")}), callTimeout, nil)
		},
	}
}

func handbackCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "handback", Description: `For the person who took the window over (what the live view's "Hand back"
button calls): input goes back to the agents, and the session holding the lease
is told once, on its next answer, that control came back. Only the user who took
over hands back (--as names them, as takeover's --as did), from a session that sees
the window; --force lets another user hand back. Never the session holding the
window's lease — the paused agent cannot hand back a takeover made from another
session, not even with --force.`,
		Usage:     "(operator) give the window back to the agents; its holder is told once",
		ArgsUsage: "<handle>",
		Flags: []cli.Flag{jsonFlag,
			&cli.StringFlag{Name: "as", Value: "user", Usage: "who hands back: the user who took over"},
			&cli.BoolFlag{Name: "force", Usage: "hand back whoever took over (not from the paused holder's session)"},
		},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() > 1 {
				return usage("handback takes one handle")
			}
			return ask(c, o, args.Request("handback", h, args.Operator{User: c.String("as"), Force: c.Bool("force")}), callTimeout, nil)
		},
	}
}

func watchCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "watch", Description: `Prints the live view's address for a person to open: the overview of every
target when none is named, or that window's pane. The address carries a viewer
token (never an agent's).

With --xpra, for a window on an xpra display (open --display xpra): the exact
commands a person runs to attach xpra's own client instead, from this machine
or through ssh (--ssh user@host: how they reach this machine). Its windows then
appear on the person's desktop as windows of their own, and the person can type
into them without us: while a client is attached, answers about those windows
say a person may be driving, and takeover makes it a takeover.

   vibespace-window watch
   vibespace-window watch win:1
   vibespace-window watch --xpra win:3 --ssh ada@build-box`,
		Usage:     "print the live view's address (the overview, or one window's pane), or with --xpra how a person attaches xpra",
		ArgsUsage: "[handle]", Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "xpra", Usage: "print the xpra attach commands for the window's xpra display"},
			&cli.StringFlag{Name: "ssh", Usage: "with --xpra: how a remote person reaches this machine (user@host); default this user at this host name"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usage("watch takes at most one handle")
			}
			if c.String("ssh") != "" && !c.Bool("xpra") {
				return usage("--ssh goes with --xpra")
			}
			req := args.Request("watch", c.Args().First(), args.Watch{Xpra: c.Bool("xpra"), Host: c.String("ssh")})
			return ask(c, o, req, callTimeout, daemoncall.PrintWatch)
		},
	}
}
