package app

// Commands of the operator words: takeover and handback.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon"
)

func takeoverCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "takeover", Description: `For the person watching (what the live view's "Take over" button calls): the
window's input goes to the user. Verbs of agents on it are refused window_paused
(who, since), any injection in flight is cut, and every key and button we hold is
released. handback returns it; an idle takeover hands back by itself.`,
		Usage:     "(operator) a person drives the window: agent verbs are refused window_paused until handback",
		ArgsUsage: "<handle>",
		Flags:     []cli.Flag{jsonFlag, &cli.StringFlag{Name: "as", Value: "user", Usage: "who takes over, as agents will read it"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			return ask(c, o, daemon.Request{Verb: "takeover", Target: h, User: c.String("as")}, callTimeout, nil)
		},
	}
}

func handbackCommand(o Options) *cli.Command {
	return simpleCommand(o, "handback", "(operator) give the window back to the agents; its holder is told once", "handback")
}
