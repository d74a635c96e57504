package daemon

import (
	"bufio"
	"context"
	"io"

	"github.com/vibespace/vibespace/daemon/wire"
)

// The wire protocol lives in package daemon/wire, which clients link
// instead of this package; these are its names here.

// ProtocolVersion is sent in every answer; a CLI that sees another version
// talks to a daemon of another build.
const ProtocolVersion = wire.ProtocolVersion

type (
	Request     = wire.Request
	Response    = wire.Response
	Point       = wire.Point
	TargetInfo  = wire.TargetInfo
	ProfileInfo = wire.ProfileInfo
	Status      = wire.Status
	Check       = wire.Check
	KeyInfo     = wire.KeyInfo
	Client      = wire.Client
)

// ErrNoDaemon is returned by Dial when nothing answers on the socket.
var ErrNoDaemon = wire.ErrNoDaemon

// Dial connects to the daemon's socket under ctx.
func Dial(ctx context.Context, socket string) (*Client, error) { return wire.Dial(ctx, socket) }

// ReadRequest reads and decodes one request line of at most max bytes
// (wire.ReadRequest).
func ReadRequest(r *bufio.Reader, max int) (Request, error) { return wire.ReadRequest(r, max) }

// DecodeRequest decodes one request line (wire.DecodeRequest).
func DecodeRequest(line []byte) (Request, error) { return wire.DecodeRequest(line) }

// WriteResponse writes one answer line (wire.WriteResponse).
func WriteResponse(w io.Writer, resp Response) error { return wire.WriteResponse(w, resp) }

// Paths derives the state directory and the socket path from environment
// values (wire.Paths).
func Paths(getenv func(string) string) (stateDir, socket string, err error) {
	return wire.Paths(getenv)
}
