// Package bridge is vibespace-daemon's hidden bridge subcommand, the
// remote end of the road to another host: ssh runs it there, it starts the
// daemon when none answers (as the command lines do), writes its greeting
// line, then pipes the bytes of its standard input and output to and from
// the daemon's Unix socket. Nothing of it listens on a network.
package bridge

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
)

// Name is the subcommand.
const Name = "bridge"

// startBound bounds finding or starting the daemon.
const startBound = 40 * time.Second

// drainBound bounds how long the daemon may take to finish its answer
// after our input ended.
const drainBound = 30 * time.Second

// Run bridges in and out to the daemon of this user and state directory
// (getenv's), starting it from exe's directory when none answers, and
// returns the exit code; why it failed goes to errw.
func Run(ctx context.Context, in io.Reader, out io.Writer, errw io.Writer, getenv daemoncall.Env, exe string) int {
	sctx, cancel := context.WithTimeout(ctx, startBound)
	defer cancel()
	sock, err := daemoncall.EnsureDaemon(sctx, daemoncall.Options{Name: "vibespace-daemon bridge", Getenv: getenv, Executable: exe, Stderr: errw})
	if err != nil {
		fmt.Fprintf(errw, "vibespace-daemon bridge: %v\n", err)
		return 1
	}
	var d net.Dialer
	c, err := d.DialContext(sctx, "unix", sock)
	if err != nil {
		fmt.Fprintf(errw, "vibespace-daemon bridge: dial %s: %v\n", sock, err)
		return 1
	}
	defer c.Close()
	if _, err := fmt.Fprintf(out, "%s v=%d\n", wire.BridgeGreeting, wire.ProtocolVersion); err != nil {
		return 1
	}
	fromDaemon := make(chan struct{})
	go func() {
		io.Copy(out, c)
		close(fromDaemon)
	}()
	toDaemon := make(chan struct{})
	go func() {
		io.Copy(c, in)
		c.(*net.UnixConn).CloseWrite() // the caller is done: the daemon sees its end
		close(toDaemon)
	}()
	select {
	case <-fromDaemon: // the daemon hung up
	case <-toDaemon:
		select {
		case <-fromDaemon:
		case <-time.After(drainBound):
		}
	}
	return 0
}
