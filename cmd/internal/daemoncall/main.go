package daemoncall

import (
	"context"
	"os"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/native"
)

// Main runs a command line with the process's arguments, streams and
// environment, and the native and Chromium backends for serve (one daemon
// serves windows and tabs, whichever command started it), then exits with its code.
func Main(run func(context.Context, []string, Options) int) {
	exe, _ := os.Executable()
	os.Exit(run(context.Background(), os.Args, Options{
		Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		Executable: exe,
		Backend: func(so ServeOptions) daemon.Backend {
			return native.New(native.Options{WalkTimeout: time.Duration(so.WalkTimeout * float64(time.Second)), Logf: so.Logf})
		},
		Browser: func(so ServeOptions) daemon.BrowserBackend {
			return chromium.New(chromium.Options{Binary: so.Chromium, MaxBrowsers: so.MaxBrowsers, Logger: so.Logger})
		},
	}))
}
