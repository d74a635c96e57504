package app

// The operator's words on the user's own desktop: desktop on, off, status,
// and the per-window pixels grant.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"

	"github.com/vibespace/vibespace/daemon/args"
)

// desktopEnv names the caller's desktop session from its environment.
var desktopEnv = daemoncall.DesktopEnv

func desktopCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "desktop", Description: `For the operator (a person at their own desktop): agents may use the windows of
your own desktop session only after you open it to them, from a terminal of that
desktop (its DISPLAY, XAUTHORITY and session bus name it):

   vibespace-window desktop on              open your desktop to agents (audited)
   vibespace-window desktop on --screencast the same, asking for pixels even on KWin
   vibespace-window desktop                 is it open, since when, on which road
   vibespace-window desktop pixels win:7    allow click --at / scroll --at on win:7
   vibespace-window desktop no-pixels win:7 take that back
   vibespace-window desktop off             close it: every lease on it ends at once

While it is open, every window of your desktop is listed for every session, and
every row, answer and live-view pane about one says "your desktop". Agents act on
its nodes (click @ref, type @ref); a point (click --at, scroll --at) needs your
pixels grant for that window, and is audited by:point. We never start an
application there (open --display desktop is refused your_desktop) nor close a
window of yours. The moment you type or move your mouse (X11: your own devices,
seen through XInput 2; an XTEST client such as xdotool looks like us), every agent
holding a window of your desktop is paused: its input in flight is cut, its verbs
are refused user_active, and only handback win:N --as you resumes it. The setting
lasts across daemon restarts until desktop off. On Wayland under KWin, keys ask the
portal for keyboard and pointer alone, and pixels (screenshot, live view, --at) are
refused no_capture / no_injection_backend naming KWin: its ScreenCast chooser
crashes headless KWin 5.27; --screencast asks for them all the same. Screenshots are taken only when an
agent asks; nothing typed is ever logged. These words are cooperative, like
sessions: any process of your user (an agent with a shell too) can run them; every
change is audited with its session.`,
		Usage:     "(operator) open your own desktop to agents, close it, or grant click --at on one of its windows",
		ArgsUsage: "[status | on | off | pixels <handle> | no-pixels <handle>]",
		Flags:     []cli.Flag{jsonFlag, &cli.BoolFlag{Name: "screencast", Usage: "with on: ask the portal for a window's pixels even on a compositor whose ScreenCast is known to fail (KWin: its chooser crashes headless KWin 5.27), where they are refused otherwise"}},
		Action: func(c *cli.Context) error {
			action := c.Args().First()
			a, h := args.Desktop{Action: action}, ""
			if c.Bool("screencast") && action != "on" {
				return usage("--screencast goes with desktop on")
			}
			switch action {
			case "", "status", "off":
				if c.NArg() > 1 {
					return usage("desktop %s takes no handle", action)
				}
			case "on":
				if c.NArg() > 1 {
					return usage("desktop on takes no handle")
				}
				a.Env = desktopEnv(o.Getenv)
				a.Env.ScreenCast = c.Bool("screencast")
			case "pixels", "no-pixels":
				if c.NArg() != 2 {
					return usage("desktop %s takes one window handle: desktop %s win:N", action, action)
				}
				h = c.Args().Get(1)
			default:
				return usage("desktop takes status, on, off, pixels <handle> or no-pixels <handle>, not %q", action)
			}
			return ask(c, o, args.Request("desktop", h, a), openTimeout, nil)
		},
	}
}
