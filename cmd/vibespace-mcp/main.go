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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mcpserver.Run(ctx, os.Args, daemoncall.Options{
		Name: mcpserver.Name, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, FindExecutable: os.Executable,
	}, os.Stdin, os.Stdout)
	stop()
	os.Exit(code)
}
