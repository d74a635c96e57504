// Command vibespace-mcp serves the vibespace daemon's windows and browser
// tabs as the tools of an MCP server on stdio (see its --help).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/cmd/vibespace-mcp/internal/mcpserver"
)

func main() {
	// A host ends its server by closing stdin (exit 0); a signal ends it
	// too, with 128 + the signal's number, so that a host (or a test) can
	// tell a server that had to be signalled from one that ended by itself.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	caught := make(chan syscall.Signal, 1)
	go func() {
		s := <-sigs
		caught <- s.(syscall.Signal)
		cancel()
	}()
	code := mcpserver.Run(ctx, os.Args, daemoncall.Options{
		Name: mcpserver.Name, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, FindExecutable: os.Executable,
	}, os.Stdin, os.Stdout)
	select {
	case s := <-caught:
		code = 128 + int(s)
	default:
	}
	os.Exit(code)
}
