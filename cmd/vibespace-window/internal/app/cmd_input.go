package app

// Commands of acting on a window: click, type, fill, key, scroll.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

func clickCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "click", Description: `With @ref: does the node's click-like Action (refused no_action if it has none —
there is no silent fallback to a coordinate click). With --at x,y: a left click at
that pixel of the window's own screenshot, injected through XTEST (audited by:point).
The window is raised and focused first (windows of our display overlap; the one on
top gets the pointer); one that stays covered there is refused window_not_visible.

   vibespace-window click win:1 @e12
   vibespace-window click win:1 --at 120,40`,
		Usage:     "click a node through its Action (@ref), or a pixel of the window's screenshot (--at x,y)",
		ArgsUsage: "<handle> @ref | <handle> --at x,y",
		Flags:     []cli.Flag{jsonFlag, noVerifyFlag, &cli.StringFlag{Name: "at", Usage: "x,y in pixels of the window's own screenshot"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			a := args.Click{NoVerify: c.Bool("no-verify"), Ref: c.Args().Get(1), At: c.String("at")}
			if a.At != "" {
				if _, err = parsePoint(a.At); err != nil {
					return err
				}
			}
			if (a.Ref == "") == (a.At == "") || c.NArg() > 2 {
				return usage("click needs exactly one of @ref or --at x,y: click win:1 @e3, or click win:1 --at 120,40")
			}
			return ask(c, o, args.Request("click", h, a), callTimeout, nil)
		},
	}
}

func typeCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "type", Description: `With @ref: inserts the text at the end of that node's text (EditableText), or
focuses the node and types keys when it takes focus but has no EditableText.
Without a ref: types keys into the window's focused node (click the field first).
At most 1500 characters as keys, 65536 through EditableText. Text starting with
"-" goes after --. The text is never written to the audit log. --secret NAME types
the secret the daemon keeps under that name (stored by the user with
vibespace-browser key set secret:NAME, read from stdin) instead: its value never
stands in the command line, any answer, the audit log or the trace; the answer
says how many characters it had (an unknown name: no_secret).

   vibespace-window type win:1 @e9 "hello"
   vibespace-window type win:1 -- "-5 degrees"
   vibespace-window type win:1 @e4 --secret login-password`,
		Usage:     "type text into a node (@ref) or into the window's focused node",
		ArgsUsage: "<handle> [@ref] \"text\" | <handle> [@ref] --secret NAME", Flags: []cli.Flag{jsonFlag, noVerifyFlag, daemoncall.SecretFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			a := args.Type{NoVerify: c.Bool("no-verify"), SecretName: c.String("secret")}
			switch n := c.NArg(); {
			case a.SecretName != "" && n <= 2:
				a.Ref = c.Args().Get(1)
			case a.SecretName == "" && n == 2:
				a.Text = c.Args().Get(1)
			case a.SecretName == "" && n == 3:
				a.Ref, a.Text = c.Args().Get(1), c.Args().Get(2)
			default:
				return usage(`type needs the text: type win:1 "hello", or type win:1 @e7 "hello" (quote it as one argument), or type win:1 @e7 --secret NAME`)
			}
			return ask(c, o, args.Request("type", h, a), callTimeout, nil)
		},
	}
}

func fillCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "fill", Description: `Replaces the whole text of a field (@ref) with the text, through the node's
EditableText (the same word as vibespace-browser's fill), and reads it back from
the node's Text: a field that holds anything else after is refused value_not_set,
with what it holds. A node with no EditableText is refused no_editable_text (type
@ref types keys into a node that only takes focus). At most 65536 characters. Text
starting with "-" goes after --. The text is never written to the audit log.

   vibespace-window fill win:1 @e9 "report.odt"
   vibespace-window fill win:1 @e9 -- "-5 degrees"`,
		Usage:     "replace the whole text of a field (@ref) with text, read back",
		ArgsUsage: "<handle> @ref \"text\"", Flags: []cli.Flag{jsonFlag, noVerifyFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() != 3 {
				return usage(`fill needs a ref and the text: fill win:1 @e7 "hello" (quote it as one argument)`)
			}
			a := args.Fill{NoVerify: c.Bool("no-verify"), Ref: c.Args().Get(1), Text: c.Args().Get(2)}
			return ask(c, o, args.Request("fill", h, a), callTimeout, nil)
		},
	}
}

func keyCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "key", Description: `Presses one chord in the window (focused first): modifiers ctrl, shift, alt, super
joined by +, then one key by its X keysym name or a single character.

   vibespace-window key win:1 ctrl+s
   vibespace-window key win:1 Return`,
		Usage:     "press a chord in the window: ctrl+s, Return, alt+F4, shift+Tab, ctrl+shift+z; key set|clear|list: a secret typed by name (secret:NAME) or a provider's key",
		ArgsUsage: "<handle> <chord>", Flags: []cli.Flag{jsonFlag, noVerifyFlag},
		Subcommands: daemoncall.KeyStoreCommands(o, func(c *cli.Context, req wire.Request, body daemoncall.Body) error {
			return ask(c, o, req, callTimeout, body)
		}),
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() != 2 {
				return usage("key needs one chord: key win:1 ctrl+s")
			}
			return ask(c, o, args.Request("key", h, args.Key{NoVerify: c.Bool("no-verify"), Chord: c.Args().Get(1)}), callTimeout, nil)
		},
	}
}

func scrollCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "scroll", Description: `Scrolls with the wheel at a pixel of the window's screenshot (its centre when
--at is not given), --by steps (default 3). Like click --at, it raises the window
first and refuses window_not_visible if another window stays on top at that pixel.

   vibespace-window scroll win:1 down --by 5 --at 200,300`,
		Usage:     "scroll the window at a pixel (its centre by default)",
		ArgsUsage: "<handle> up|down|left|right",
		Flags: []cli.Flag{jsonFlag, noVerifyFlag,
			&cli.IntFlag{Name: "by", Value: daemoncall.ScrollBy, Usage: "wheel steps (1–100)"},
			&cli.StringFlag{Name: "at", Usage: "x,y in pixels of the window's own screenshot"}},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() != 2 {
				return usage("scroll needs a direction: scroll win:1 down [--by 5] [--at x,y]")
			}
			a := args.Scroll{NoVerify: c.Bool("no-verify"), Direction: c.Args().Get(1), By: c.Int("by"), At: c.String("at")}
			if a.At != "" {
				if _, err = parsePoint(a.At); err != nil {
					return err
				}
			}
			return ask(c, o, args.Request("scroll", h, a), callTimeout, nil)
		},
	}
}

// noVerifyFlag turns off an acting verb's watch for its effect: the answer's
// effect is then unverifiable ("verification off"), and the verb answers
// without waiting.
var noVerifyFlag = &cli.BoolFlag{Name: "no-verify", Usage: "do not watch for the action's effect (it is then unverifiable)"}
