package daemoncall

import (
	"context"
	"os"
)

// Main runs a command line with the process's arguments, streams and
// environment, then exits with its code. The daemon is another program,
// vibespace-daemon (see DaemonPath): a command line links only the wire
// protocol.
func Main(run func(context.Context, []string, Options) int) {
	exe, _ := os.Executable()
	os.Exit(run(context.Background(), os.Args, Options{
		Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		Executable: exe,
	}))
}
