package daemoncall

import (
	"github.com/urfave/cli/v2"
	"github.com/vibespace/vibespace/daemon/args"

	"github.com/vibespace/vibespace/daemon/wire"
)

// BudgetCommand is the budget command of program prog (its examples name
// it); ask sends the request as that command line does.
func BudgetCommand(prog string, ask func(c *cli.Context, req wire.Request) error) *cli.Command {
	return &cli.Command{
		Name: "budget", Description: `Shows, sets or starts over a session's budget: a guard rail the agent's own
operator sets, not a security boundary (every session runs as one user, and any
may reset its own). A step is an acting verb that ran (click, type, fill, select,
key, scroll, and a tab's back, forward and reload); reading and these words are
not. Steps count from when the budget was first set or last reset: --steps N
changes the bound, not the count. Once the steps or the minutes are spent, acting
verbs are refused budget_spent until the bound is raised or the budget started
over. 0 lifts a bound. --for sets another session's (the operator's word).

   ` + prog + ` budget --steps 200 --minutes 30
   ` + prog + ` budget
   ` + prog + ` budget --reset
   ` + prog + ` budget --for agent-2 --steps 50`,
		Usage: "show, set (--steps N, --minutes N) or start over (--reset) a session's budget",
		Flags: []cli.Flag{JSONFlag,
			&cli.IntFlag{Name: "steps", Usage: "acting verbs allowed in all, counted since the budget was set or last reset (0: no bound)"},
			&cli.IntFlag{Name: "minutes", Usage: "wall clock allowed from now (0: no bound)"},
			&cli.BoolFlag{Name: "reset", Usage: "start the count of steps and the clock over"},
			&cli.StringFlag{Name: "for", Usage: "the session whose budget this is, instead of your own (the operator's word)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usage("budget takes no arguments: budget --steps 200 --minutes 30")
			}
			a := args.Budget{Steps: budgetBound(c, "steps"), Minutes: budgetBound(c, "minutes"), Reset: c.Bool("reset")}
			if a.Steps < -1 || a.Minutes < -1 {
				return Usage("--steps and --minutes take a number of at least 0")
			}
			req := args.Request("budget", "", a)
			req.For = c.String("for")
			return ask(c, req)
		},
	}
}

// budgetBound is a bound as the request carries it: 0 unchanged, -1 lifted.
func budgetBound(c *cli.Context, name string) int {
	if !c.IsSet(name) {
		return 0
	}
	if n := c.Int(name); n != 0 {
		return n
	}
	return -1
}
