package app

// Commands of reading a window: its tree and its pixels.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/wire"
)

func snapshotCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "snapshot", Description: `Prints the window's accessibility tree, one node a line: role, "name", @ref,
geometry (WxH+X+Y, screen pixels), states and the actions it offers in [brackets].
Refs stay valid while their node exists. A subtree whose application did not answer
in time is marked unreadable; the rest is printed. --interactive keeps only what you
can act on. --json gives the whole tree as JSON.

   vibespace-window snapshot win:1 -i`,
		Usage:     "the window's accessibility tree, with @refs for click and type",
		ArgsUsage: "<handle>",
		Flags:     []cli.Flag{jsonFlag, &cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}, Usage: "only nodes you can act on, and the labels around them"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			return ask(c, o, wire.Request{Verb: "snapshot", Target: h, Interactive: c.Bool("interactive"), JSON: wantJSON(c)}, callTimeout,
				func(r wire.Response, w io.Writer) error {
					fmt.Fprint(w, r.Text)
					if r.Text != "" && !strings.HasSuffix(r.Text, "\n") {
						fmt.Fprintln(w)
					}
					return nil
				})
		},
	}
}

func screenshotCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "screenshot", Usage: "the window's pixels as PNG (the fallback when the tree is not enough)",
		Description: `Writes the window's own pixels as PNG; --at x,y of click and scroll take pixels
of this image. A window that another one covers is raised first (the display has
no compositing: a grab shows what is on screen); one that stays covered is refused
window_not_visible.`,
		ArgsUsage: "<handle>",
		Flags:     []cli.Flag{jsonFlag, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the PNG file to write (default: <handle>.png here)"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				out = strings.ReplaceAll(h, ":", "-") + ".png"
			}
			return ask(c, o, wire.Request{Verb: "screenshot", Target: h}, callTimeout, func(r wire.Response, w io.Writer) error {
				if err := os.WriteFile(out, r.PNG, 0o600); err != nil {
					return usage("write %s: %v", out, err)
				}
				abs, _ := filepath.Abs(out)
				fmt.Fprintf(w, "wrote %s (%d bytes)\n", abs, len(r.PNG))
				return nil
			})
		},
	}
}
