// Command vibespace-daemon is the vibespace daemon in the foreground: the
// private display, the browsers, the leases and the socket that
// vibespace-window and vibespace-browser talk to. Those start it, from
// beside themselves or from PATH, when none answers; "vibespace-daemon
// --help" lists its flags. "vibespace-daemon bridge" (not listed) is the
// remote end of the road from another host (VIBESPACE_HOST): ssh runs it.
package main

import (
	"context"
	"os"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/internal/bridge"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/internal/serve"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == bridge.Name {
		exe, _ := os.Executable()
		os.Exit(bridge.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, os.Getenv, exe))
	}
	os.Exit(serve.Run(context.Background(), os.Args, os.Stderr, os.Getenv))
}
