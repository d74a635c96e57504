package app

// The tab command: list, new, close, select.

import (
	"github.com/urfave/cli/v2"
	"github.com/vibespace/vibespace/daemon/args"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
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
			words := c.Args().Slice()
			a, handle := args.Tab{Action: "list"}, ""
			switch {
			case len(words) == 0 || (words[0] == "list" && len(words) == 1):
			case words[0] == "new" && len(words) <= 2:
				a.Action, a.URL = "new", c.Args().Get(1)
			case words[0] == "close" && len(words) <= 2:
				a.Action, handle = "close", tabID(c.Args().Get(1))
			case len(words) == 1 && words[0] != "list" && words[0] != "new" && words[0] != "close":
				a.Action, handle = "select", tabID(words[0])
			default:
				return usage("tab takes: tab [list], tab new [url], tab close [id], or tab <id>")
			}
			return ask(c, o, args.Request("tab", handle, a), daemoncall.TabBody(a.Action))
		},
	}
}
