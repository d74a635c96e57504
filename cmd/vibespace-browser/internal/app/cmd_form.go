package app

// select: a choice control set to options, read back.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
)

func selectCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "select", Description: `Sets a choice control (a <select>, single or multiple; an ARIA list box) to the
options named, by their label as shown or a <select> option's value, as a person's
pick does (input and change events), then reads it back. A single choice takes
exactly one; a multiple one ends holding exactly those named. An option the
control lacks is refused no_option, naming the ones it has; a control that holds
something else afterwards (the page changed it) value_not_set. An option's own
ref, alone, chooses that option.

   vibespace-browser select @e12 "Green"
   vibespace-browser select @e20 "Cheese" "Olives"
   vibespace-browser select @e14`,
		Usage:     "choose options of a <select> or list box (@ref) by label; read back",
		ArgsUsage: "@ref [option…]", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usage(`select needs a ref and the options: select @e12 "Green" (or an option's ref alone)`)
			}
			return ask(c, o, args.Request("select", "", args.Select{Ref: c.Args().First(), Options: c.Args().Tail()}), nil)
		},
	}
}
