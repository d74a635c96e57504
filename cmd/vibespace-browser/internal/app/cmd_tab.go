package app

// The tab command: list, new, close, select.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

func tabCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "tab", Description: `Your tabs in this profile: list them (the default), open a new one (it becomes
current), close one (the current one when no id is given), or make one current.
Another session's tab is refused not_your_tab.

   vibespace-browser tab
   vibespace-browser tab new http://127.0.0.1:8080/
   vibespace-browser tab close tab:3
   vibespace-browser tab tab:3                 (or: tab 3)`,
		Usage:     "list your tabs, open a new one, close one, or switch to one",
		ArgsUsage: "[list | new [url] | close [id] | <id>]", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			req := wire.Request{Verb: "tab", Action: "list"}
			switch {
			case len(args) == 0 || (args[0] == "list" && len(args) == 1):
			case args[0] == "new" && len(args) <= 2:
				req.Action, req.URL = "new", c.Args().Get(1)
			case args[0] == "close" && len(args) <= 2:
				req.Action, req.Target = "close", tabID(c.Args().Get(1))
			case len(args) == 1 && args[0] != "list" && args[0] != "new" && args[0] != "close":
				req.Action, req.Target = "select", tabID(args[0])
			default:
				return usage("tab takes: tab [list], tab new [url], tab close [id], or tab <id>")
			}
			return ask(c, o, req, daemoncall.TabBody(req.Action))
		},
	}
}
