// Command vibespace-daemon is the vibespace daemon in the foreground: the
// private display, the browsers, the leases and the socket that
// vibespace-window and vibespace-browser talk to. Those start it, from
// beside themselves or from PATH, when none answers; "vibespace-daemon
// --help" lists its flags.
package main

import (
	"context"
	"os"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/internal/serve"
)

func main() { os.Exit(serve.Run(context.Background(), os.Args, os.Stderr, os.Getenv)) }
