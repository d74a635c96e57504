package app

// Commands of reading a window: its tree and its pixels.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"

	"github.com/vibespace/vibespace/daemon/wire"
)

func snapshotCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "snapshot", Description: `Prints the window's accessibility tree, one node a line: role, "name", @ref,
geometry (WxH+X+Y, screen pixels), states and the actions it offers in [brackets].
Refs stay valid while their node exists. A subtree whose application did not answer
in time is marked unreadable; the rest is printed. --interactive keeps only what you
can act on. --json gives the whole tree as JSON.

Less of it: @ref prints that node's subtree only (the same refs); --depth N keeps N
levels below the root (or the @ref) and says how many nodes it cut ("+12 below" on
the node they are under: snapshot @ref shows them); --diff prints only what changed
since your last snapshot of this window that showed as much (a scoped or -i one does
not move the whole one's), one line a node (+ added, - removed, ~ changed:
states, name, text), or "unchanged"; -i --diff also shows the words that appeared
outside the interactive view (a message, an alert, a status line).

   vibespace-window snapshot win:1 -i
   vibespace-window snapshot win:1 @e12 --depth 2
   vibespace-window snapshot win:1 --diff`,
		Usage:     "the window's accessibility tree, with @refs for click and type",
		ArgsUsage: "<handle> [@ref]",
		Flags:     append([]cli.Flag{jsonFlag, &cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}, Usage: "only nodes you can act on, and the labels around them"}}, observeFlags...),
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() > 2 {
				return usage("snapshot takes a handle and at most one @ref: snapshot win:1 @e12")
			}
			req := args.Request("snapshot", h, args.Snapshot{Observe: args.Observe{Ref: c.Args().Get(1), Interactive: c.Bool("interactive"),
				Depth: c.Int("depth"), Diff: c.Bool("diff")}})
			req.JSON = wantJSON(c)
			return ask(c, o, req, callTimeout, daemoncall.PrintText)
		},
	}
}

// observeFlags are snapshot's flags for seeing less of a tree.
var observeFlags = []cli.Flag{
	&cli.IntFlag{Name: "depth", Usage: "keep N levels below the root (or the @ref); says how many nodes it cut"},
	&cli.BoolFlag{Name: "diff", Usage: "only what changed since your last snapshot of it (the whole tree the first time)"},
}

func findCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "find", Usage: "the @refs whose name or text contains a text, each with where it is",
		Description: `Prints the nodes whose name or text value contains <text> (case-insensitive), one
a line with its role, name, @ref and its nearest named ancestors, and the text that matched
(its line around the match, at most 120 characters: a long name is shown where it matched, and
text inside a node follows "says"); "no match" says how many nodes were searched. At most 25 are printed, and how many more there are.

   vibespace-window find win:1 "Dark"`,
		ArgsUsage: "<handle> <text>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() != 2 {
				return usage(`find needs a handle and one text (quote it): find win:1 "Save as"`)
			}
			req := args.Request("find", h, args.Find{Text: c.Args().Get(1)})
			req.JSON = wantJSON(c)
			return ask(c, o, req, callTimeout, daemoncall.PrintText)
		},
	}
}

func getCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "get", Usage: "a node's text: get <handle> text @ref",
		Description: `Prints the text of one node: its value (an entry's, a text view's), else the text
it shows (its name, or its descendants' names). A ref never minted for the window is
refused bad_ref, one whose node is gone stale_ref.

   vibespace-window get win:1 text @e7`,
		ArgsUsage: "<handle> text @ref", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() != 3 || c.Args().Get(1) != "text" {
				return usage("get needs a handle, text and a ref: get win:1 text @e7")
			}
			return ask(c, o, args.Request("get", h, args.GetNode{What: "text", Ref: c.Args().Get(2)}), callTimeout, daemoncall.PrintText)
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
