package app

import (
	"context"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon"
)

// Per-call bounds on the client side (the daemon bounds each verb itself).
const (
	callTimeout = 45 * time.Second
	openTimeout = 90 * time.Second
)

var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print the answer as one JSON object"}

// ask sends req to the daemon and prints the answer.
func ask(c *cli.Context, o Options, req daemon.Request, timeout time.Duration, body func(daemon.Response, io.Writer) error) error {
	req.Session = session(o.Getenv)
	ctx, cancel := context.WithTimeout(c.Context, timeout)
	defer cancel()
	cl, err := connect(ctx, o)
	if err != nil {
		return err
	}
	defer cl.Close()
	resp, err := cl.Call(ctx, req)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	p := printer{out: o.Stdout, err: o.Stderr, json: wantJSON(c)}
	var bodyErr error
	perr := p.answer(resp, func(w io.Writer) {
		if body != nil {
			bodyErr = body(resp, w)
		}
	})
	if perr != nil {
		return perr
	}
	if p.json && resp.OK && body != nil && req.Verb == "screenshot" {
		bodyErr = body(resp, io.Discard)
	}
	return bodyErr
}

// wantJSON reports whether --json was given, before or after the command.
func wantJSON(c *cli.Context) bool {
	for _, cc := range c.Lineage() {
		if cc.Bool("json") {
			return true
		}
	}
	return false
}

// handle is the first argument, a target handle.
func handle(c *cli.Context) (string, error) {
	if c.NArg() < 1 {
		return "", usage("%s needs a target handle, e.g. %s win:1 (list shows yours)", c.Command.Name, c.Command.Name)
	}
	return c.Args().First(), nil
}

// parsePoint reads "x,y".
func parsePoint(s string) (*daemon.Point, error) {
	xs, ys, ok := strings.Cut(s, ",")
	x, errx := strconv.Atoi(strings.TrimSpace(xs))
	y, erry := strconv.Atoi(strings.TrimSpace(ys))
	if !ok || errx != nil || erry != nil {
		return nil, usage("--at %q: expected x,y in pixels of the window's screenshot, e.g. --at 120,40", s)
	}
	return &daemon.Point{X: x, Y: y}, nil
}

// simpleCommand is a verb that takes one handle and nothing else.
func simpleCommand(o Options, name, usageLine, verb string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usageLine, ArgsUsage: "<handle>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			h, err := handle(c)
			if err != nil {
				return err
			}
			if c.NArg() > 1 {
				return usage("%s takes one handle", name)
			}
			return ask(c, o, daemon.Request{Verb: verb, Target: h}, callTimeout, nil)
		},
	}
}

// commands lists every command, in the order help shows them.
func commands(o Options) []*cli.Command {
	return []*cli.Command{
		listCommand(o),
		openCommand(o),
		attachCommand(o),
		detachCommand(o),
		closeCommand(o),
		snapshotCommand(o),
		screenshotCommand(o),
		clickCommand(o),
		typeCommand(o),
		keyCommand(o),
		scrollCommand(o),
		shareCommand(o),
		takeoverCommand(o),
		handbackCommand(o),
		statusCommand(o),
		doctorCommand(o),
		serveCommand(o),
	}
}
