package daemoncall

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Per-call bounds on the client side (the daemon bounds each verb itself).
const (
	CallTimeout = 45 * time.Second
	OpenTimeout = 90 * time.Second
)

// SecretFlag is type's and fill's --secret NAME: the text is the secret
// the daemon keeps under that name (key set secret:NAME), never given here.
var SecretFlag = &cli.StringFlag{Name: "secret", Usage: "instead of the text: the secret the daemon keeps under `NAME` (key set secret:NAME); its value is typed, never shown"}

// JSONFlag is every command's --json.
var JSONFlag = &cli.BoolFlag{Name: "json", Usage: "print the answer as one JSON object"}

// Body prints the verb-specific part of a successful answer.
type Body func(wire.Response, io.Writer) error

// Ask sends req to the daemon and prints the answer. A request whose
// arguments its verb's type refuses (args.Check) is answered that refusal
// here, as the daemon would answer it, with no daemon dialled or started.
// (The MCP server leaves that to the daemon: a tool carries its arguments
// as given.)
func Ask(c *cli.Context, o Options, req wire.Request, timeout time.Duration, body Body) error {
	if err := args.Check(req); err != nil {
		if o.Capture != nil {
			return err
		}
		return Print(c, o, req, Refused(err), body)
	}
	// The daemon knows a --json answer (its headers stage never marks one
	// said: it keeps every field for a program to read).
	req.JSON = req.JSON || WantJSON(c)
	if o.Capture != nil {
		o.Capture(req)
		return nil
	}
	resp, err := Call(c.Context, o, req, timeout)
	if err != nil {
		return err
	}
	return Print(c, o, req, resp, body)
}

// Refused is the answer a daemon gives to a request it refuses with err,
// made here: a refusal's code, words and facts.
func Refused(err error) wire.Response {
	r, ok := target.AsRefusal(err)
	if !ok {
		r = target.Refuse(target.CodeInternal, "%v", err)
	}
	return wire.Response{V: wire.ProtocolVersion, Code: r.Code, Message: r.Message, Facts: r.Facts}
}

// Print prints an answer to req as Ask does.
func Print(c *cli.Context, o Options, req wire.Request, resp wire.Response, body Body) error {
	p := Printer{Out: o.Stdout, Err: o.Stderr, JSON: WantJSON(c), Session: req.Session}
	if p.Session == "" {
		p.Session = Session(o.Getenv)
	}
	if err := p.AnswerWith(resp, body); err != nil {
		return err
	}
	// A verb whose answer is a picture (the verb table) writes its file
	// under --json too, its words discarded.
	if f, _ := verb.Of(req.Verb); p.JSON && resp.OK && body != nil && f.Picture {
		return body(resp, io.Discard)
	}
	return nil
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

// ParsePoint reads --at "x,y".
func ParsePoint(s string) (*wire.Point, error) { return ParsePointArg("--at", s) }

// ParsePointArg reads "x,y" given as the argument named name.
func ParsePointArg(name, s string) (*wire.Point, error) {
	xs, ys, ok := strings.Cut(s, ",")
	x, errx := strconv.Atoi(strings.TrimSpace(xs))
	y, erry := strconv.Atoi(strings.TrimSpace(ys))
	if !ok || errx != nil || erry != nil {
		return nil, Usage("%s %s: expected x,y in pixels of the target's screenshot, e.g. %s 120,40", name, target.Echo(s), name)
	}
	return &wire.Point{X: x, Y: y}, nil
}

// ScrollBy is scroll's wheel steps when none are given.
const ScrollBy = 3

// AppArgv is open's argv as the daemon must get it: a program named by a
// relative path made absolute (the daemon runs elsewhere, in /; the path is
// the caller's).
func AppArgv(argv []string) ([]string, error) {
	if len(argv) == 0 || !strings.Contains(argv[0], "/") {
		return argv, nil
	}
	abs, err := filepath.Abs(argv[0])
	if err != nil {
		return nil, Usage("open %s: %v", target.Echo(argv[0]), err)
	}
	return append([]string{abs}, argv[1:]...), nil
}

// CurrentTab is the session's current tab in an answer of browser.tab
// list: the tab it names, else the one "* " marks, else the only one; ""
// when there is none.
func CurrentTab(r wire.Response) string {
	if r.Target != nil {
		return string(r.Target.ID)
	}
	for _, line := range strings.Split(r.Text, "\n") {
		if rest, ok := strings.CutPrefix(line, "* "); ok {
			if id, _, _ := strings.Cut(rest, " "); strings.HasPrefix(id, "tab:") {
				return id
			}
		}
	}
	if len(r.Targets) == 1 {
		return string(r.Targets[0].ID)
	}
	return ""
}

// PrintURL prints the answer's address (watch, open, get url).
func PrintURL(r wire.Response, w io.Writer) error {
	if r.URL != "" {
		_, err := io.WriteString(w, r.URL+"\n")
		return err
	}
	return nil
}
