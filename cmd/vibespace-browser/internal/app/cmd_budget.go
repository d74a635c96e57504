package app

// The budget command: a session's step and wall-clock budget.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

func budgetCommand(o Options) *cli.Command {
	return daemoncall.BudgetCommand("vibespace-browser", func(c *cli.Context, req wire.Request) error {
		return ask(c, o, req, nil)
	})
}
