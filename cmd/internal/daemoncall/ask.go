package daemoncall

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Per-call bounds on the client side (the daemon bounds each verb itself).
const (
	CallTimeout = 45 * time.Second
	OpenTimeout = 90 * time.Second
)

// JSONFlag is every command's --json.
var JSONFlag = &cli.BoolFlag{Name: "json", Usage: "print the answer as one JSON object"}

// Body prints the verb-specific part of a successful answer.
type Body func(wire.Response, io.Writer) error

// writesFile are the verbs whose body writes a file: it runs under --json
// too, with its words discarded.
var writesFile = map[string]bool{"screenshot": true, "browser.screenshot": true}

// Ask sends req to the daemon and prints the answer.
func Ask(c *cli.Context, o Options, req wire.Request, timeout time.Duration, body Body) error {
	resp, err := Call(c.Context, o, req, timeout)
	if err != nil {
		return err
	}
	return Print(c, o, req, resp, body)
}

// Print prints an answer to req as Ask does.
func Print(c *cli.Context, o Options, req wire.Request, resp wire.Response, body Body) error {
	p := Printer{Out: o.Stdout, Err: o.Stderr, JSON: WantJSON(c), Session: req.Session}
	if p.Session == "" {
		p.Session = Session(o.Getenv)
	}
	var bodyErr error
	perr := p.Answer(resp, func(w io.Writer) {
		if body != nil {
			bodyErr = body(resp, w)
		}
	})
	if perr != nil {
		return perr
	}
	if p.JSON && resp.OK && body != nil && writesFile[req.Verb] {
		bodyErr = body(resp, io.Discard)
	}
	return bodyErr
}

// WantJSON reports whether --json was given, before or after the command.
func WantJSON(c *cli.Context) bool {
	for _, cc := range c.Lineage() {
		if cc.Bool("json") {
			return true
		}
	}
	return false
}

// ParsePoint reads "x,y".
func ParsePoint(s string) (*wire.Point, error) {
	xs, ys, ok := strings.Cut(s, ",")
	x, errx := strconv.Atoi(strings.TrimSpace(xs))
	y, erry := strconv.Atoi(strings.TrimSpace(ys))
	if !ok || errx != nil || erry != nil {
		return nil, Usage("--at %s: expected x,y in pixels of the target's screenshot, e.g. --at 120,40", target.Echo(s))
	}
	return &wire.Point{X: x, Y: y}, nil
}

// PrintURL prints the answer's address (watch, open, get url).
func PrintURL(r wire.Response, w io.Writer) error {
	if r.URL != "" {
		_, err := io.WriteString(w, r.URL+"\n")
		return err
	}
	return nil
}
