package app

// trace: the session's recent steps, one a line.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
)

func traceCommand(o Options) *cli.Command {
	return &cli.Command{
		Name:  "trace",
		Usage: "your session's recent steps: verb, tab, node, road, effect, duration (never the text typed or filled)",
		Description: `One line a step, oldest first:
   12:03:04.120 click tab:1 @e9 push button "Save" by:point → confirmed 42ms
A type or fill step says how many characters it sent, never which; a refused
step says its code ("→ refused stale_ref"); "→ -" is a step that reports no
effect. --json gives the whole steps, with digests of what each observed.
   --target tab:N     only the steps on one tab
   --last N           the last N steps (default 20)
   --for <session>    (operator) another session's trace; audited
   --pictures on|off  (operator) keep the tab's picture after each acting step,
                      deleted with the step; off by default; audited; none
                      after type, fill or key (it would show the text)`,
		Flags: []cli.Flag{jsonFlag,
			&cli.StringFlag{Name: "target", Usage: "only the steps on this tab (tab:N)"},
			&cli.IntFlag{Name: "last", Usage: "the last N steps (default 20)"},
			&cli.StringFlag{Name: "for", Usage: "(operator) another session's trace"},
			&cli.StringFlag{Name: "pictures", Usage: "(operator) on | off: keep a picture after acting steps"},
		},
		Action: func(c *cli.Context) error {
			req, err := daemoncall.TraceRequest(c, "trace", tabID(c.String("target")))
			if err != nil {
				return err
			}
			return ask(c, o, req, daemoncall.PrintTrace)
		},
	}
}
