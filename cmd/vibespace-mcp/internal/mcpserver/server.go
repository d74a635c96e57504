// Package mcpserver is vibespace-mcp: the daemon's targets, verbs and
// refusals as the tools of a Model Context Protocol server on stdio (the
// official Go SDK, github.com/modelcontextprotocol/go-sdk). It is a client
// of the daemon as the command lines are — each tool call is one request
// through daemon/wire, and daemoncall starts the daemon when none answers —
// and a tool's result carries the words the command line prints for the
// same answer: the handback note, the header line (target, title, "your
// desktop", lease, mode), what was done and by which road, and the body. A
// refusal is a tool error whose text starts with its stable code and
// sentence, with the facts as structured content.
package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"image/png"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name is the server's name, in its MCP implementation info and its help.
const Name = "vibespace-mcp"

// Config is one server: the session it speaks for, the tools it lists, and
// how it reaches the daemon.
type Config struct {
	// Session is the session every call is made as: one per server process.
	Session string
	// Profile is the browser profile handle the browser tools act in when a
	// call names none (its id, label or alias; "" the session's one
	// attachment, or its own ephemeral context).
	Profile string
	// Host is the other host every call goes to (--host:
	// ssh://user@host[:port]), over $VIBESPACE_HOST; "" leaves the choice
	// to the environment (none: this host).
	Host string
	// Groups are the tool groups listed.
	Groups Groups
	// Call reaches the daemon (its environment names the state directory;
	// the daemon's program is looked for beside Executable).
	Call daemoncall.Options
	// Version is the server's version in its implementation info.
	Version string
}

// New builds the server with cfg's tools.
func New(cfg Config) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "vibespace", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions(cfg.Groups)})
	s.AddReceivingMiddleware(badArguments)
	x := &server{cfg: cfg}
	for _, t := range tools {
		if cfg.Groups.has(t.group) {
			t.add(s, x)
		}
	}
	return s
}

// badArguments makes the SDK's own tool errors — arguments that do not fit
// a tool's schema, answered before its handler runs — refusals as ours
// are: the code bad_request first, and in the structured content. Every
// tool error of ours carries structured content; theirs none.
func badArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError && r.StructuredContent == nil {
			return toolError(target.CodeBadRequest, textOf(r)), nil
		}
		return res, err
	}
}

// textOf is a result's text content.
func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// instructions is what the server tells an agent once, at initialize.
func instructions(g Groups) string {
	var b strings.Builder
	b.WriteString("vibespace drives real targets for you, under a lease your session holds")
	switch {
	case g.has(groupWindow) && g.has(groupBrowser):
		b.WriteString(": windows (win:N, the window_ tools) and browser tabs (the browser_ tools act on your current tab)")
	case g.has(groupWindow):
		b.WriteString(": windows (win:N, the window_ tools)")
	case g.has(groupBrowser):
		b.WriteString(": browser tabs (the browser_ tools act on your current tab)")
	}
	b.WriteString(". Read with snapshot (interactive: true) to get @refs, act by ref; every action's answer ends with what it saw " +
		"(confirmed, changed_elsewhere, no_visible_change). A refusal is a tool error starting with its stable code " +
		"(held, stale_ref, no_action, …) and says why. A person may take a target over (window_paused, browser_paused): " +
		"after the handback note, snapshot again.")
	if g.has(groupBrowser) {
		b.WriteString(" With several browser profiles attached, name one as a browser tool's profile (else profile_required).")
	}
	return b.String()
}

// server answers the tools of one Config.
type server struct{ cfg Config }

// plan is one tool call as a daemon request: the request, how its answer's
// body is printed, and how long the call may take.
type plan struct {
	req     wire.Request
	body    daemoncall.Body
	timeout time.Duration
}

// ask sends p's request as the server's session and makes its result.
func (x *server) ask(ctx context.Context, p plan) *mcp.CallToolResult {
	resp, err := x.call(ctx, p)
	if err != nil {
		return failed(err, p.req)
	}
	return x.result(resp, p)
}

// call sends p's request as the server's session, the browser's verbs in
// the server's profile.
func (x *server) call(ctx context.Context, p plan) (wire.Response, error) {
	req := p.req
	req.Session = x.cfg.Session
	browser := strings.HasPrefix(req.Verb, "browser.")
	if browser && req.Profile == "" && req.Verb != "browser.use" && req.Verb != "browser.profiles" && req.Verb != "browser.new" {
		req.Profile = x.cfg.Profile
	}
	switch {
	case p.timeout != 0:
	case browser:
		p.timeout = daemoncall.OpenTimeout // any browser verb may start a browser first, as vibespace-browser bounds it
	default:
		p.timeout = daemoncall.CallTimeout
	}
	return daemoncall.Call(daemoncall.WithHost(ctx, x.cfg.Host), x.cfg.Call, req, p.timeout)
}

// result is the tool result of an answer: its text as the command line
// prints it (and a screenshot's picture), a refusal as a tool error.
func (x *server) result(resp wire.Response, p plan) *mcp.CallToolResult {
	if !resp.OK {
		return refused(resp, x.cfg.Session)
	}
	var out bytes.Buffer
	pr := daemoncall.Printer{Out: &out, Err: &out, Session: x.cfg.Session}
	if err := pr.AnswerWith(resp, p.body); err != nil { // an answer that is OK prints no error: this is the body's
		return toolError(target.CodeInternal, err.Error())
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.String()}}}
	if len(resp.PNG) > 0 { // a screenshot
		res.Content = append(res.Content, &mcp.ImageContent{Data: resp.PNG, MIMEType: "image/png"})
	}
	return res
}

// refused is a refusal as a tool error: its code and sentence first, then
// what the command line prints after them (facts, handles, the header
// line, the handback note); the structured content holds the facts.
func refused(resp wire.Response, session string) *mcp.CallToolResult {
	st := map[string]any{"code": resp.Code, "message": resp.Message}
	if len(resp.Facts) > 0 {
		st["facts"] = resp.Facts
	}
	if resp.Target != nil {
		st["target"] = resp.Target
	}
	if resp.Note != "" {
		st["note"] = resp.Note
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: daemoncall.RefusalText(resp, session)}},
		StructuredContent: st,
	}
}

// failed is req's call that got no answer as a tool error: no daemon could
// be reached or started (no_daemon, saying how to start it); it ran out of
// time or was cancelled — outcome_unknown for a verb that acts (it was sent:
// it may have run in part or in whole), timeout or interrupted for one that
// only reads; or something of ours broke (internal).
func failed(err error, req wire.Request) *mcp.CallToolResult {
	code, msg := target.CodeInternal, err.Error()
	stopped := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
	switch {
	case daemoncall.Unreachable(err):
		code = target.CodeNoDaemon
		msg += "; " + Name + " starts the daemon when none answers — to run it yourself, in the foreground: vibespace-daemon (or vibespace-window serve)"
	case stopped && daemoncall.Acts(req):
		code = target.CodeOutcomeUnknown
		look := "read the target (snapshot, screenshot, get)"
		switch {
		case req.Verb == "open":
			look = "list your windows (window_list)"
		case req.Verb == "browser.tab" && tabNew(req):
			look = "list your tabs (browser_tab_list)"
		}
		msg += "; " + strings.TrimPrefix(req.Verb, "browser.") + " may have run in part or in whole: " + look + " before you retry it"
	case errors.Is(err, context.Canceled):
		code = target.CodeInterrupted
	case stopped:
		code = target.CodeTimeout
	}
	return toolError(code, msg)
}

// tabNew reports whether req is browser.tab new.
func tabNew(req wire.Request) bool {
	a, _, _ := args.Decode(req.Verb, req.Args)
	t, ok := a.(args.Tab)
	return ok && t.Action == "new"
}

// toolError is a tool error of ours, not the daemon's: code and sentence.
func toolError(code target.Code, msg string) *mcp.CallToolResult {
	return refused(wire.Response{Code: code, Message: msg}, "")
}

// pictureBody says what a screenshot's picture is: its size in pixels and
// in bytes (the picture itself is the result's image content).
func pictureBody(r wire.Response, w io.Writer) error {
	cfg, err := png.DecodeConfig(bytes.NewReader(r.PNG))
	if err != nil {
		return fmt.Errorf("the daemon's screenshot is not a PNG: %w", err)
	}
	fmt.Fprintf(w, "screenshot: %d×%d PNG, %d bytes (the image below)\n", cfg.Width, cfg.Height, len(r.PNG))
	return nil
}
