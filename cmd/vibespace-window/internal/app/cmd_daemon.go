package app

// Commands of the daemon: status and doctor.

import (
	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

func statusCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "status", Usage: "the daemon, its display, and how many windows are yours", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, wire.Request{Verb: "status"}, callTimeout, daemoncall.StatusBody(session(o.Getenv)))
		},
	}
}

func doctorCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "doctor", Usage: "what this machine offers (display, XTEST, MIT-SHM, AT-SPI, portal, xpra, chromium) and why not",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return ask(c, o, args.Request("doctor", "", args.Doctor{Env: desktopEnv(o.Getenv)}), openTimeout, daemoncall.DoctorBody)
		},
	}
}
