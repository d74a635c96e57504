package mcpserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
)

// Help is vibespace-mcp --help.
const Help = `vibespace-mcp — the vibespace daemon's windows and browser tabs as the tools of an
MCP server on stdio, for agents whose host speaks the Model Context Protocol.

USAGE
   vibespace-mcp [--session S] [--tools window|browser|all] [--profile P]
                 [--host ssh://user@host[:port]]

   --session S   the session every call is made as (default $VIBESPACE_SESSION,
                 else "default"): its leases, its tabs, its trace. One per server.
   --tools G     the tool groups listed: window, browser or all (the default);
                 window,browser is all. status, doctor and watch are in both.
   --profile P   the browser profile the browser tools act in when a call names
                 none (its profile argument): its id, label or alias (default
                 $VIBESPACE_BROWSER, else your one attachment, else your
                 session's own ephemeral context; with several attached, a
                 call without one is refused profile_required).
   --host H      every call goes to the daemon of another host, through
                 OpenSSH: ssh://user@host[:port] (default $VIBESPACE_HOST;
                 none: this host's). Every answer names the host; a host ssh
                 cannot reach is the tool error host_unreachable, one without
                 the daemon's program no_remote_daemon. As the command lines'
                 --host: VIBESPACE_SSH_CONFIG is ssh's -F, the program there
                 is vibespace-daemon on its PATH or VIBESPACE_REMOTE_DAEMON.

ADD IT TO AN MCP HOST (its JSON config)
   {"mcpServers": {"vibespace": {"command": "vibespace-mcp",
                                 "args": ["--session", "agent-1"]}}}

THE TOOLS (the command lines' verbs, the same words)
   window_list, window_open, window_snapshot, window_find, window_get_text,
   window_click, window_type, window_fill, window_key, window_scroll,
   window_select, window_screenshot, window_detach, window_close
                                              vibespace-window's, on win:N
   browser_open, browser_snapshot, browser_find, browser_get, browser_click,
   browser_fill, browser_type, browser_key, browser_scroll, browser_select,
   browser_screenshot, browser_tab_list, browser_tab_select, browser_tab_new,
   browser_tab_close, browser_profiles, browser_new, browser_use
                                              vibespace-browser's, on your current tab
   status, doctor, watch                      both

ANSWERS
   A tool's text is what the command line prints for the same answer: the
   handback note, the header line (target, title, "your desktop", lease, mode),
   what was done and by which road, with what it saw (confirmed,
   changed_elsewhere, no_visible_change, unverifiable), and the body. A
   screenshot is an image (PNG). A refusal is a tool error (isError) whose text
   starts with its stable code and sentence, as "held: …", with its facts as
   structured content ({code, message, facts, target}). A daemon that cannot
   be reached nor started is the error no_daemon, saying why; a call the daemon
   went away from, or one that ran out of time, is outcome_unknown when it acts
   (read the target before you retry) and daemon_gone or timeout when it only
   reads (safe to retry); a call the host cancelled is interrupted.

TIME
   The daemon bounds each verb (30 s by default); this server waits at most
   45 s for a window tool's answer and 90 s for window_open, doctor and the
   browser tools (any may start a browser first). Most answer in milliseconds;
   give the host's tool timeout at least 90 s for the first call of a session.

THE DAEMON
   One per user and state directory ($VIBESPACE_HOME), shared with the command
   lines: the first call starts it (vibespace-daemon, beside this program or on
   PATH), as vibespace-window and vibespace-browser do. stdout carries the
   protocol alone; this program writes nothing else there.
`

// Run runs the server on stdin and stdout until the client goes away (or
// ctx ends), and returns the exit code: 0, or 2 for bad usage or a broken
// transport (said on stderr). A line on stdin that is no JSON-RPC message
// breaks nothing: it is answered (-32700, -32600) and the server serves on.
func Run(ctx context.Context, args []string, o daemoncall.Options, stdin io.ReadCloser, stdout io.WriteCloser) int {
	cfg, code := parse(args, o)
	if code >= 0 {
		return code
	}
	// stdout is the protocol's alone from here: nothing of ours may print
	// there (a daemon this server starts writes to its log).
	cfg.Call.Stdout = cfg.Call.Stderr
	// Stdio, not the SDK's IOTransport: a line that is no message is
	// answered and the server serves on, where the SDK's would end.
	err := New(cfg).Run(ctx, &Stdio{In: stdin, Out: stdout})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(o.Stderr, "%s: %v\n", Name, err)
		return daemoncall.ExitUsage
	}
	return daemoncall.ExitOK
}

// parse reads the command line into a Config; code is the exit code when
// the server is not to run (help, bad usage), else -1.
func parse(args []string, o daemoncall.Options) (cfg Config, code int) {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	session := fs.String("session", "", "")
	groups := fs.String("tools", "all", "")
	profile := fs.String("profile", "", "")
	host := fs.String("host", "", "")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(o.Stdout, Help)
			return cfg, daemoncall.ExitOK
		}
		fmt.Fprintf(o.Stderr, "%s: %v (see: %s --help)\n", Name, err, Name)
		return cfg, daemoncall.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(o.Stderr, "%s: unexpected argument %q: the session is --session S (see: %s --help)\n", Name, fs.Arg(0), Name)
		return cfg, daemoncall.ExitUsage
	}
	g, err := ParseGroups(*groups)
	if err != nil {
		fmt.Fprintf(o.Stderr, "%s: %v\n", Name, err)
		return cfg, daemoncall.ExitUsage
	}
	if *host != "" {
		// A spec that is no host is bad usage now, not a tool error later.
		if _, err := daemoncall.RemoteHost(daemoncall.WithHost(context.Background(), *host), o); err != nil {
			fmt.Fprintf(o.Stderr, "%s: --host: %v\n", Name, err)
			return cfg, daemoncall.ExitUsage
		}
	}
	cfg = Config{Session: *session, Profile: *profile, Host: *host, Groups: g, Call: o, Version: version()}
	if cfg.Session == "" {
		cfg.Session = daemoncall.Session(o.Getenv)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["profile"] {
		cfg.Profile = o.Getenv("VIBESPACE_BROWSER") // --profile "" says: none, whatever the environment says
	}
	return cfg, -1
}

// version is the module's version this program was built from ("devel"
// for a build from a work tree).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
