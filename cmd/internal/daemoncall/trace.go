package daemoncall

import (
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/wire"
)

// TraceRequest is the request of both command lines' trace: verb, the
// target to keep (as the daemon names it), and the command's --last,
// --for and --pictures.
func TraceRequest(c *cli.Context, verb, target string) (wire.Request, error) {
	if c.NArg() > 0 {
		return wire.Request{}, Usage("trace takes no arguments: --target <handle> keeps one target's steps")
	}
	a := args.Trace{Last: c.Int("last")}
	switch p := c.String("pictures"); p {
	case "":
	case "on", "off":
		a.Action = "pictures-" + p
	default:
		return wire.Request{}, Usage("--pictures takes on or off, not %q", p)
	}
	if a.Last < 0 {
		return wire.Request{}, Usage("--last takes a count of steps")
	}
	req := args.Request(verb, target, a)
	req.For = c.String("for")
	return req, nil
}

// PrintTrace prints a trace answer's steps, one a line.
func PrintTrace(r wire.Response, w io.Writer) error {
	for _, s := range r.Trace {
		fmt.Fprintln(w, s.Line())
	}
	return nil
}
