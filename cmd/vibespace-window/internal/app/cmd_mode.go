package app

// The mode command: how a window is reached.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
)

func modeCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "mode", Description: `Every window has a mode, chosen at open (open --mode; auto by default) and
changed with this command by the holder of its lease (audited as the other verbs):

   auto     every verb that has a road runs, as the capability law decides. It
            resolves to tree when the window's frame is on the accessibility bus
            with at least one child, else to pixels — at open, and again when a
            tree verb asks under auto → pixels (an application may register late)
            or when you set auto again. Under auto → pixels, snapshot, click @ref,
            type @ref and fill are refused no_tree, the mode in the facts.
   tree     the tree alone: click --at and scroll --at are refused mode_tree
            (act on a node instead); key, type, scroll without --at and
            screenshot still work.
   pixels   the pixels alone: snapshot, click @ref, type @ref and fill are
            refused mode_pixels, naming how to switch (mode <handle> tree);
            screenshot, click --at, scroll, key and type without a ref work.

A word other than auto, tree or pixels is refused bad_mode. list and every answer
on a window say its mode ("mode: auto → tree", "mode: auto → pixels (no
accessible tree: …)", "mode: pixels"; in --json: target.mode, mode_resolved,
mode_why). The mode is kept with the window across a daemon restart. Tabs
(vibespace-browser) have no mode.

   vibespace-window mode win:1 pixels
   vibespace-window mode win:1 auto`,
		Usage:     "set how a window is reached: auto, tree or pixels",
		ArgsUsage: "<handle> auto|tree|pixels",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() != 2 {
				return usage("mode takes a handle and one of auto, tree or pixels, e.g. mode %s pixels", h)
			}
			return ask(c, o, args.Request("mode", h, args.Mode{Mode: c.Args().Get(1)}), callTimeout, nil)
		},
	}
}
