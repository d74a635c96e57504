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
//
// Tried and left out (perf stat and rusage over 40–60 interleaved calls of
// get title, load 18–20): containermaxprocs=0, which does not spare the
// runtime's reading of the cgroup at start (it still reads it, to count
// the setting's effect); runtime.GOMAXPROCS(1) first thing in Main, which
// cost more than it saved in 3 of 4 runs (a stop of the world, and the
// Ps' caches made again: +1.9 to +3.2 ms of CPU, −1.8 in the fourth; 45–60
// more page faults in each). GOMAXPROCS=1 in the caller's
// environment does help (−0.6 to −2.8 ms of CPU, a third of the context
// switches), but only the environment sets it before the runtime starts.
func Main(run func(context.Context, []string, Options) int) {
	os.Exit(run(context.Background(), os.Args, Options{
		Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv,
		FindExecutable: os.Executable,
	}))
}
