package app

// Commands of profiles and the session's attachment set.

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// forFlag is the operator's --for: the command acts on another session's
// attachment set, and that session's next command is refused once with
// profile_changed.
var forFlag = &cli.StringFlag{Name: "for", Usage: "act on this session's attachment set instead of your own (the operator's word; it is told once, by profile_changed)"}

// setAfter prints the attachment set a change left (detach, pin), as
// attachments prints it: the text answer shows what --json carries.
func setAfter(c *cli.Context) func(wire.Response, io.Writer) error {
	none := "no attachments now: commands act in your own ephemeral context"
	if who := c.String("for"); who != "" {
		none = "session " + who + " has no attachments now: its commands act in its own ephemeral context"
	}
	return func(r wire.Response, w io.Writer) error {
		daemoncall.PrintProfiles(r.Attachments, none, w)
		return nil
	}
}

func profilesCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "profiles", Usage: "the profiles that exist (id, label, whether running)", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, wire.Request{Verb: "profiles"}, daemoncall.ProfilesBody)
		},
	}
}

func attachmentsCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "attachments", Usage: "your session's attachment set: every handle, and which is the default", Flags: []cli.Flag{jsonFlag, forFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, wire.Request{Verb: "attachments", For: c.String("for")}, func(r wire.Response, w io.Writer) error {
				daemoncall.PrintProfiles(r.Attachments, "no attachments: commands act in your own ephemeral context", w)
				return nil
			})
		},
	}
}

func newCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "new", Usage: "register a persistent profile under a label (free text, never a path); attach it with use — or, with --backend desktop-app, start it as a desktop app",
		ArgsUsage: "<label> [--backend desktop-app [--url U] [--size WxH] [--mode auto|tree|pixels]] [--provider cdp|cloud:browserless [--endpoint E]]",
		Description: `A profile's provider is where its browser comes from (doctor lists each, with
what it can and cannot do here). --provider cdp --endpoint ws://host:port/…
(or http://host:port) is somebody else's browser: the daemon connects to it,
never starts, relaunches (--headed) or stops it, and makes no directory; tabs
are leased as any. --provider cloud:browserless [--endpoint wss://<region
host>] connects to Browserless with the key the daemon keeps (set it first:
vibespace-browser key set cloud:browserless, from stdin); no key is no_key, a
refused one key_rejected, an endpoint that does not answer
provider_unreachable; a verb a provider cannot do is not_on_this_provider.
--provider desktop-app is --backend desktop-app.

A desktop app (--backend desktop-app) is a real, headed Chromium with its own
profile, started as a window of your session's own Xpra display (one per
session, started with its first window and stopped 5 minutes after its last;
it counts toward the daemon's ceiling of per-session displays: one more is
refused display_limit) with its accessibility on and no DevTools. new opens the
window as your target (win:N, you hold its lease) and attaches the profile; a
refused new registers and attaches nothing. Drive it with vibespace-window:
snapshot win:N -i, click win:N @eN, type, key, screenshot, click --at x,y. --url
is the page it opens as an app window (no tab strip, no toolbar; default
about:blank), --size the window size asked of Chromium in pixels (the answer
says if Chromium chose another; click --at's pixels are of the window it has),
--mode its mode.
This command's page verbs on that profile are refused no_cdp_on_this_backend,
naming the window. new again takes the running one (or starts it again); close
<label> stops it, as vibespace-window close win:N does.`,
		Flags: []cli.Flag{jsonFlag,
			&cli.StringFlag{Name: "backend", Usage: "how its browser runs: cdp (the default: tabs over DevTools) or desktop-app (a window, no DevTools)"},
			&cli.StringFlag{Name: "browser", Usage: "the browser of its tabs: chromium (the default) or firefox (headless, over WebDriver BiDi: --provider firefox)"},
			&cli.StringFlag{Name: "provider", Usage: "where its browser comes from: chromium (the default: ours), firefox, cdp (an existing DevTools endpoint), cloud:browserless, desktop-app (doctor lists them)"},
			&cli.StringFlag{Name: "endpoint", Usage: "a remote provider's endpoint: cdp's ws://host:port/devtools/browser/<id> or http://host:port; a cloud provider's region host (wss://…, never its key)"},
			&cli.StringFlag{Name: "url", Usage: "a desktop app's page (http, https, file or about; default about:blank)"},
			&cli.StringFlag{Name: "size", Usage: "the window size a desktop app asks Chromium for, in pixels, WxH (e.g. 1280x800)"},
			&cli.StringFlag{Name: "mode", Usage: "a desktop app's window mode: auto (default), tree or pixels"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage(`new needs one label: new work (quote a label with spaces: new "my work")`)
			}
			prov := c.String("provider")
			switch b := c.String("browser"); b {
			case "", "chromium":
			case "firefox":
				if prov != "" && prov != b {
					return usage("--browser firefox and --provider " + prov + " disagree: give one")
				}
				prov = b
			default:
				return usage("--browser is chromium or firefox, not " + b)
			}
			return ask(c, o, args.Request("new", "", args.New{Label: c.Args().First(), Backend: c.String("backend"),
				Provider: prov, Endpoint: c.String("endpoint"),
				URL: c.String("url"), Size: c.String("size"), Mode: c.String("mode")}), nil)
		},
	}
}

func closeCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "close", Usage: "stop a desktop app's Chromium (its window goes, its profile stays)",
		ArgsUsage: "<label|id>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage("close needs one desktop app's profile: close shop (a tab closes with tab close)")
			}
			return ask(c, o, args.Request("close", "", args.Close{Label: c.Args().First()}), nil)
		},
	}
}

func useCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "use", Usage: "attach this session to a profile by label or id, optionally under an alias",
		ArgsUsage: "<label|id> [--alias a]",
		Flags:     []cli.Flag{jsonFlag, forFlag, &cli.StringFlag{Name: "alias", Usage: "the handle this session names it by"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage("use needs one profile: use work, or use bp-3f9a1c02 --alias w")
			}
			return ask(c, o, forOf(c, args.Request("use", "", args.Use{Label: c.Args().First(), Alias: c.String("alias")})), nil)
		},
	}
}

func detachCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "detach", Usage: "drop an attachment (the one --profile names, else the default) and close your tabs in it",
		Flags: []cli.Flag{jsonFlag, forFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("detach takes no arguments: detach --profile <handle>")
			}
			return ask(c, o, wire.Request{Verb: "detach", For: c.String("for")}, setAfter(c))
		},
	}
}

func pinCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "pin", Usage: "make one of your handles the default, or unpin (--none)",
		ArgsUsage: "<handle> | --none",
		Flags:     []cli.Flag{jsonFlag, forFlag, &cli.BoolFlag{Name: "none", Usage: "unpin: no default handle"}},
		Action: func(c *cli.Context) error {
			none := c.Bool("none")
			if (c.NArg() == 1) == none || c.NArg() > 1 {
				return usage("pin needs one handle, or --none: pin work")
			}
			return ask(c, o, forOf(c, args.Request("pin", "", args.Pin{Profile: c.Args().First(), None: none})), setAfter(c))
		},
	}
}

func newChildCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "new-child", Usage: "mint a child handle of your profile for a sub-agent; it is reaped with your session",
		Description: `Prints the line the sub-agent exports. The child acts in the parent's profile
under its own key; when the parent session's attachment goes, so does the child.

   export $(vibespace-browser new-child --task "check the prices" | tail -1)

--task names the helper's tabs in the live view (else "Helper 1", "Helper 2", …).`,
		Flags: []cli.Flag{jsonFlag, &cli.StringFlag{Name: "task", Usage: "what the helper is for, as the live view names its tabs (at most 100 characters)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("new-child takes no arguments (--profile chooses the parent)")
			}
			return ask(c, o, args.Request("new-child", "", args.Child{Task: c.String("task")}), func(r wire.Response, w io.Writer) error {
				if r.Profile == nil || r.Profile.Handle == "" {
					return daemoncall.Internal(fmt.Errorf("the daemon answered new-child without a handle"))
				}
				fmt.Fprintf(w, "VIBESPACE_BROWSER=%s\n", r.Profile.Handle)
				return nil
			})
		},
	}
}

// forOf is req for the session --for names ("" the caller's own).
func forOf(c *cli.Context, req wire.Request) wire.Request {
	req.For = c.String("for")
	return req
}
