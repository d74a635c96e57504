package app

// trace: the session's recent steps, one a line.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
)

func traceCommand(o Options) *cli.Command {
	return &cli.Command{
		Name:  "trace",
		Usage: "your session's recent steps: verb, target, node, road, effect, duration (never the text typed)",
		Description: `One line a step, oldest first:
   12:03:04.120 click win:2 @e9 check box "Dark mode" by:tree → confirmed 42ms
A type or fill step says how many characters it sent, never which; a refused
step says its code ("→ refused stale_ref"); "→ -" is a step that reports no
effect. --json gives the whole steps, with digests of what each observed.
   --target win:N     only the steps on one target
   --last N           the last N steps (default 20)
   --for <session>    (operator) another session's trace; audited
   --pictures on|off  (operator) keep the target's picture after each acting
                      step (never of your desktop's windows without their pixels
                      grant), deleted with the step; off by default; audited;
                      none after type or key (it would show the text)`,
		Flags: []cli.Flag{jsonFlag,
			&cli.StringFlag{Name: "target", Usage: "only the steps on this target (win:N)"},
			&cli.IntFlag{Name: "last", Usage: "the last N steps (default 20)"},
			&cli.StringFlag{Name: "for", Usage: "(operator) another session's trace"},
			&cli.StringFlag{Name: "pictures", Usage: "(operator) on | off: keep a picture after acting steps"},
		},
		Action: func(c *cli.Context) error {
			req, err := daemoncall.TraceRequest(c, "trace", c.String("target"))
			if err != nil {
				return err
			}
			return ask(c, o, req, callTimeout, daemoncall.PrintTrace)
		},
	}
}
