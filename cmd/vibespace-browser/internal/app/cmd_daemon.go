package app

// Commands about the tab rather than the page: status, watch, and the
// operator's takeover and handback.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

func statusCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "status", Usage: "your attachments, your tabs, and the daemon (its pid, state dir, audit log)", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			req := browserRequest(c, o, wire.Request{Verb: "status"})
			r, err := daemoncall.Call(c.Context, o, req, callTimeout)
			if err != nil {
				return err
			}
			if r.OK && r.Status == nil {
				// The daemon's own part: the same daemon answers "status".
				if st, err := daemoncall.Call(c.Context, o, wire.Request{Verb: "status"}, callTimeout); err == nil && st.OK {
					r.Status = st.Status
				}
			}
			return daemoncall.Print(c, o, req, r, daemoncall.BrowserStatusBody(daemoncall.Session(o.Getenv)))
		},
	}
}

// currentTab is the tab a command without one acts on: the session's
// current tab in the chosen profile ("" when there is none), as
// browser.tab list marks it. A refusal is printed and returned.
func currentTab(c *cli.Context, o Options) (string, error) {
	req := browserRequest(c, o, args.Request("tab", "", args.Tab{Action: "list"}))
	r, err := daemoncall.Call(c.Context, o, req, callTimeout)
	if err != nil {
		return "", err
	}
	if !r.OK {
		return "", daemoncall.Print(c, o, req, r, nil)
	}
	return daemoncall.CurrentTab(r), nil
}

// tabArg is the tab named as the first argument, else the current one.
func tabArg(c *cli.Context, o Options) (string, error) {
	if c.NArg() > 1 {
		return "", usage("%s takes at most one tab", c.Command.Name)
	}
	if c.NArg() == 1 {
		return tabID(c.Args().First()), nil
	}
	return currentTab(c, o)
}

func watchCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "watch", Usage: "print the live view's address for a person: your current tab, or the overview when you have none",
		ArgsUsage: "[tab]", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			id, err := tabArg(c, o)
			if err != nil {
				return err
			}
			return daemoncall.Ask(c, o, wire.Request{Verb: "watch", Target: id}, callTimeout, printURL)
		},
	}
}

func takeoverCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "takeover", Description: `For the person watching (the live view's "Take over" button): the tab's input goes
to the user. Agent verbs on it are refused browser_paused (who, since) and input
in flight is cut. handback returns it. You take over only a tab your session sees
(its own); the live view's page takes over any. While another user drives it,
takeover is refused taken_over; --force replaces them, and they are told.`,
		Usage:     "(operator) a person drives the tab (your current one by default): agents are refused browser_paused",
		ArgsUsage: "[tab]",
		Flags: []cli.Flag{jsonFlag, &cli.StringFlag{Name: "as", Value: "user", Usage: "who takes over, as agents will read it"},
			&cli.BoolFlag{Name: "force", Usage: "replace another user's takeover (they are told)"}},
		Action: func(c *cli.Context) error {
			return operator(c, o, args.Request("takeover", "", args.Operator{User: c.String("as"), Force: c.Bool("force")}))
		},
	}
}

func handbackCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "handback", Description: `For the person who took the tab over (the live view's "Hand back" button): input
goes back to the agents, and the session holding the tab is told once, on its next
answer. Only the user who took over hands back (--as); --force lets another user.
The session holding the tab never hands back a takeover made from another session
(the live view's, say), not even with --force.`,
		Usage:     "(operator) give the tab back to the agents; its holder is told once",
		ArgsUsage: "[tab]",
		Flags: []cli.Flag{jsonFlag,
			&cli.StringFlag{Name: "as", Value: "user", Usage: "who hands back: the user who took over"},
			&cli.BoolFlag{Name: "force", Usage: "hand back whoever took over (not from the paused holder's session)"}},
		Action: func(c *cli.Context) error {
			return operator(c, o, args.Request("handback", "", args.Operator{User: c.String("as"), Force: c.Bool("force")}))
		},
	}
}

// operator sends a kind-agnostic lease verb for the tab.
func operator(c *cli.Context, o Options, req wire.Request) error {
	id, err := tabArg(c, o)
	if err != nil {
		return err
	}
	if id == "" {
		return usage("%s: no current tab; name one (vibespace-browser tab lists yours)", req.Verb)
	}
	req.Target = id
	return daemoncall.Ask(c, o, req, callTimeout, nil)
}
