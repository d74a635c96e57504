package daemoncall

import (
	"context"
	"os"
)

// Main runs a command line with the process's arguments, streams and
// environment, then exits with its code. The daemon is another program,
// vibespace-daemon (see DaemonPath): a command line links only the wire
// protocol. Its own path is read only when it must start the daemon.
//
// Every call is a fresh process, so what a command does before main
// counts: the command mains set //go:debug updatemaxprocs=0, which spares
// the runtime's GOMAXPROCS-watching goroutine (a command line lives for
// milliseconds, never long enough for a CPU limit to change).
func Main(run func(context.Context, []string, Options) int) {
	os.Exit(run(context.Background(), os.Args, Options{
		Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv,
		FindExecutable: os.Executable,
	}))
}
