package app

// select: a choice control set to options, read back.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
)

func selectCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "select", Description: `Sets a choice control (a combo box, a list box, a notebook's page tabs) to the
options named by label, through the control's own selection (never a pointer at a
guessed place in an open list), then reads it back. A single choice takes exactly
one; a multiple one ends holding exactly those named. An option the control lacks
is refused no_option, naming the ones it has; a node that offers no selection
no_action.

   vibespace-window select win:1 @e12 "Green"`,
		Usage:     "choose options of a combo box or list (@ref) by label; read back",
		ArgsUsage: "<handle> @ref option…", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() < 2 {
				return usage(`select needs a handle, a ref and the options: select win:1 @e12 "Green"`)
			}
			return ask(c, o, args.Request("select", h, args.Select{Ref: c.Args().Get(1), Options: c.Args().Slice()[2:]}), callTimeout, nil)
		},
	}
}
