package app

// Commands of targets: list, open, close, attach, detach, share.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

func listCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "the windows your session may address", Description: `Each window your session may address, with its lease and its mode (auto → tree,
auto → pixels (why), tree, pixels; see vibespace-window help mode). A window whose display
does not answer (its X server stopped or starved) is listed as last read, marked
"its display has not answered since …"; verbs on it are refused
display_not_answering until it answers again.`, Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, wire.Request{Verb: "list"}, callTimeout, daemoncall.PrintWindows)
		},
	}
}

func openCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "open", Description: `Starts <app> (a program on PATH, or a path) on the daemon's private display and
waits until its first window is mapped and on the accessibility bus. Arguments
after -- go to the application. The answer is the window's handle (win:N); your
session holds its lease and is the only one that sees it until you share it.

--display names the display to open it on (doctor lists them): xvfb, our own
Xvfb shared by every session, is the default; xpra is a seamless Xpra display of
your session's own (started on first use, stopped 5 minutes after its last
window), where a person can attach xpra's own client and see its windows as
windows of their desktop (watch --xpra win:N prints how). Each window there is
shown as it appears; one found hidden again (a person minimised it) is shown
before a verb grabs it or sends it input.

--on <desk> opens it on a desktop of the daemon's pool you borrowed (borrow
answers its name, desk1…): a display of its own, whose HOME, downloads and
browser profile directory are wiped when you return it. A desktop another
session borrowed is refused held. (--on deskN is --display deskN.)

--mode is how you will reach the window: auto (the default), tree or pixels (see
vibespace-window help mode). auto is resolved once the window's frame was waited
for: tree when its frame is on the accessibility bus with at least one child,
else pixels. The answer's target line says it: "mode: auto → tree".

A Chromium or an Electron app (argv[0] named chromium, chromium-browser, chrome,
google-chrome*, electron, or a program with resources/app.asar beside it) gets
--force-renderer-accessibility added to its command line unless it is there, and
open waits (bounded) until its page's document is in the tree; the answer says so.

   vibespace-window open gtk3-widget-factory
   vibespace-window open --mode pixels xterm
   vibespace-window open --display xpra gtk3-widget-factory
   vibespace-window open --on desk1 gtk3-widget-factory
   vibespace-window open gedit -- --new-window notes.txt
   vibespace-window open chromium --no-sandbox --user-data-dir=/tmp/p file:///tmp/page.html`,
		Usage:     "start an application on our display; answers its handle, and you hold its lease",
		ArgsUsage: "<app> [-- args…]",
		Flags: []cli.Flag{jsonFlag, &cli.StringFlag{Name: "display", Usage: "the display to open it on: xvfb (the default, our own Xvfb) or xpra (your session's seamless Xpra display)"},
			&cli.StringFlag{Name: "on", Usage: "a desktop of the pool you borrowed (desk1…): open it there"},
			&cli.StringFlag{Name: "mode", Usage: "auto, tree or pixels: how you will reach the window (default auto)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usage("open needs an application, e.g. open gtk3-widget-factory")
			}
			display := c.String("display")
			if on := c.String("on"); on != "" {
				if display != "" && display != on {
					return usage("open takes --on or --display, not both")
				}
				display = on
			}
			argv, err := daemoncall.AppArgv(c.Args().Slice())
			if err != nil {
				return err
			}
			return ask(c, o, args.Request("open", "", args.Open{App: argv[0], Args: argv[1:], Display: display, Mode: c.String("mode")}), openTimeout, nil)
		},
	}
}

func attachCommand(o Options) *cli.Command {
	return simpleCommand(o, "attach", "take the lease of a window (refused held while another session holds it)", "attach")
}

func detachCommand(o Options) *cli.Command {
	return simpleCommand(o, "detach", "release the lease; the application keeps running", "detach")
}

func closeCommand(o Options) *cli.Command {
	return simpleCommand(o, "close", "stop the application of a window you hold (a dialog or later window: close that window alone)", "close")
}

func shareCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "share", Description: `Lets another session list and address the window. The lease still decides who
drives it: the other session is refused held until the holder detaches.

   vibespace-window share win:1 --with reviewer`,
		Usage:     "let another session address a window you opened or hold",
		ArgsUsage: "<handle> --with <session>",
		Flags:     []cli.Flag{jsonFlag, &cli.StringFlag{Name: "with", Required: true, Usage: "the session to share with"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			return ask(c, o, args.Request("share", h, args.Share{With: c.String("with")}), callTimeout, nil)
		},
	}
}
