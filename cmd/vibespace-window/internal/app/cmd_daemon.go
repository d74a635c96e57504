package app

// Commands of the daemon: status and doctor.

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/wire"
)

func statusCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "status", Usage: "the daemon, its display, and how many windows are yours", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, wire.Request{Verb: "status"}, callTimeout, func(r wire.Response, w io.Writer) error {
				s := r.Status
				disp := s.Display
				if disp == "" {
					disp = "not started (it starts on the first open)"
				}
				fmt.Fprintf(w, "daemon pid %d since %s\nsession: %s\ndisplay: %s\nwindows: %d yours of %d\nstate: %s\nsocket: %s\naudit: %s\n",
					s.PID, s.Started, session(o.Getenv), disp, s.Yours, s.Targets, s.StateDir, s.Socket, s.AuditPath)
				fmt.Fprintf(w, "logs kept (in the state directory): %s; stderr (a crash's trace): %s\n", strings.Join(s.Kept, ", "), s.Stderr)
				return nil
			})
		},
	}
}

func doctorCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "doctor", Usage: "what this machine offers (display, XTEST, MIT-SHM, AT-SPI, portal, xpra, chromium) and why not",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, wire.Request{Verb: "doctor", Desktop: desktopEnv(o.Getenv)}, openTimeout, func(r wire.Response, w io.Writer) error {
				for _, ch := range r.Checks {
					mark := "yes"
					if !ch.OK {
						mark = "no "
					}
					fmt.Fprintf(w, "%-4s %-22s %s\n", mark, ch.Name, ch.Detail)
				}
				return nil
			})
		},
	}
}
