package daemoncall

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/target"
)

// AppSpec describes one command line.
type AppSpec struct {
	Name, Usage, Description string
	Flags                    []cli.Flag // global flags
	Commands                 []*cli.Command
}

// NewApp builds the cli.App of a command line: its words go to o's
// streams, a usage error exits 2 naming the help to read, and nothing in
// it calls os.Exit.
func NewApp(o Options, s AppSpec) *cli.App {
	return &cli.App{
		Name:                 s.Name,
		Usage:                s.Usage,
		Description:          s.Description,
		Writer:               o.Stdout,
		ErrWriter:            o.Stderr,
		HideVersion:          true,
		Suggest:              true,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*cli.Context, error) {}, // never os.Exit inside Run
		// No help shows it; set, it spares urfave/cli's stat of the
		// program on every run.
		Compiled: time.Unix(0, 0),
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return Usage("%v (see: %s help %s)", err, s.Name, c.Command.Name)
		},
		Flags:    append(append([]cli.Flag{}, s.Flags...), HostFlag()),
		Commands: s.Commands,
		Before: func(c *cli.Context) error {
			c.Context = WithHost(c.Context, c.String("host"))
			return nil
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usage("unknown command %s (see: %s help)", target.Echo(c.Args().First()), s.Name)
			}
			return cli.ShowAppHelp(c)
		},
	}
}

// Run runs the command line args (args[0] is the program) of a and
// returns the exit code.
func Run(ctx context.Context, a *cli.App, args []string, o Options) int {
	args = Reorder(a, args)
	KeepOnlyCommand(a, args)
	return ExitCode(a.RunContext(ctx, args), o.Name, o.Stderr)
}
