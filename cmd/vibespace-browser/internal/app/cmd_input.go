package app

// Commands of acting on the page: click, fill, type, key, scroll. Input
// goes through CDP Input events, after a check that the node is visible,
// enabled and not covered.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
)

var atFlag = &cli.StringFlag{Name: "at", Usage: "x,y in pixels of the tab's screenshot"}

// at reads --at, refusing one that is no x,y ("" when not given).
func at(c *cli.Context) (string, error) {
	s := c.String("at")
	if s == "" {
		return "", nil
	}
	_, err := daemoncall.ParsePoint(s)
	return s, err
}

func clickCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "click", Description: `With @ref: clicks the centre of that node, after checking it is visible, enabled
and not covered by another element (refused not_visible, not_sensitive, covered).
With --at x,y: a click at that pixel of the tab's screenshot (its viewport, in CSS
pixels); a point outside the viewport is refused outside_page.

   vibespace-browser click @e7
   vibespace-browser click --at 120,40`,
		Usage:     "click a node (@ref) or a pixel of the tab's screenshot (--at x,y)",
		ArgsUsage: "@ref | --at x,y", Flags: []cli.Flag{jsonFlag, noVerifyFlag, atFlag},
		Action: func(c *cli.Context) error {
			a := args.Click{NoVerify: c.Bool("no-verify"), Ref: c.Args().First()}
			var err error
			if a.At, err = at(c); err != nil {
				return err
			}
			if (a.Ref == "") == (a.At == "") || c.NArg() > 1 {
				return usage("click needs exactly one of @ref or --at x,y: click @e3, or click --at 120,40")
			}
			return ask(c, o, args.Request("click", "", a), nil)
		},
	}
}

func fillCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "fill", Usage: "replace the value of a field (@ref) with text, or a secret the daemon keeps (--secret NAME); the text is never audited",
		ArgsUsage: "@ref \"text\" | @ref --secret NAME", Flags: []cli.Flag{jsonFlag, noVerifyFlag, daemoncall.SecretFlag},
		Action: func(c *cli.Context) error {
			a := args.Fill{NoVerify: c.Bool("no-verify"), Ref: c.Args().Get(0), Text: c.Args().Get(1), SecretName: c.String("secret")}
			if want := 2 - min(len(a.SecretName), 1); c.NArg() != want {
				return usage(`fill needs a ref and the text: fill @e3 "hello" (quote it as one argument), or fill @e3 --secret NAME`)
			}
			return ask(c, o, args.Request("fill", "", a), nil)
		},
	}
}

func typeCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "type", Usage: "type text (or a secret the daemon keeps: --secret NAME) as keys into a node (@ref, focused first) or the focused node; never audited",
		ArgsUsage: "[@ref] \"text\" | [@ref] --secret NAME", Flags: []cli.Flag{jsonFlag, noVerifyFlag, daemoncall.SecretFlag},
		Action: func(c *cli.Context) error {
			a := args.Type{NoVerify: c.Bool("no-verify"), SecretName: c.String("secret")}
			switch n := c.NArg(); {
			case a.SecretName != "" && n <= 1:
				a.Ref = c.Args().Get(0)
			case a.SecretName == "" && n == 1:
				a.Text = c.Args().Get(0)
			case a.SecretName == "" && n == 2:
				a.Ref, a.Text = c.Args().Get(0), c.Args().Get(1)
			default:
				return usage(`type needs the text: type "hello", or type @e7 "hello" (quote it as one argument), or type @e7 --secret NAME`)
			}
			return ask(c, o, args.Request("type", "", a), nil)
		},
	}
}

func keyCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "key", Usage: "press a chord in the page: Enter, Tab, ctrl+a, shift+Tab, Escape; key set|clear|list: a provider's key",
		ArgsUsage: "<chord>", Flags: []cli.Flag{jsonFlag, noVerifyFlag},
		Subcommands: keyStoreCommands(o),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage("key needs one chord: key ctrl+a")
			}
			return ask(c, o, args.Request("key", "", args.Key{NoVerify: c.Bool("no-verify"), Chord: c.Args().First()}), nil)
		},
	}
}

func scrollCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "scroll", Usage: "scroll the page with the wheel at a pixel (the viewport's centre by default)",
		ArgsUsage: "up|down|left|right",
		Flags: []cli.Flag{jsonFlag, noVerifyFlag, atFlag,
			&cli.IntFlag{Name: "by", Value: daemoncall.ScrollBy, Usage: "wheel steps (1–100)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage("scroll needs a direction: scroll down [--by 5] [--at x,y]")
			}
			a := args.Scroll{NoVerify: c.Bool("no-verify"), Direction: c.Args().First(), By: c.Int("by")}
			var err error
			if a.At, err = at(c); err != nil {
				return err
			}
			return ask(c, o, args.Request("scroll", "", a), nil)
		},
	}
}

// noVerifyFlag turns off an acting verb's watch for its effect: the answer's
// effect is then unverifiable ("verification off"), and the verb answers
// without waiting.
var noVerifyFlag = &cli.BoolFlag{Name: "no-verify", Usage: "do not watch for the action's effect (it is then unverifiable)"}
