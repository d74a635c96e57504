// Command vibespace-window drives native Linux windows for an agent: open an
// application on a private display, read its accessibility tree, click,
// type, press keys, take screenshots — under a lease, with typed refusals.
// Run "vibespace-window help" for the whole manual.
package main

import (
	"context"
	"os"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/app"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/native"
)

func main() {
	exe, _ := os.Executable()
	code := app.Run(context.Background(), os.Args, app.Options{
		Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		Executable: exe,
		Backend: func(so app.ServeOptions) daemon.Backend {
			return native.New(native.Options{WalkTimeout: time.Duration(so.WalkTimeout * float64(time.Second)), Logf: so.Logf})
		},
	})
	os.Exit(code)
}
