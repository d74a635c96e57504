// Package watching is the watch verb, out of the daemon's core: where a
// person watches a target, answered as a registered stage (stage.Answerer,
// cmd/vibespace-daemon/stages). watch answers the live view's address —
// the overview, or one target's pane — which starts the live view on first
// use; watch --xpra answers how a person attaches xpra's own client to the
// display of a window on an xpra display.
//
// watch is an operator's word, a person's, not an agent's: it takes any
// kind of target, from either command line. The core reaches the target
// it names and keeps the live view; the stage asks them through Host,
// which the core implements by a small adapter. The package never imports
// the core (layout_test.go).
package watching

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"net/url"
	"os"
	"os/user"
	"strings"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "watching"

// Host is what the stage needs of the core; the core spells the same
// interface (an interface type is one type wherever it is spelt).
type Host = interface {
	// Reach finds the target c names (c.Req.Target) as every verb on a
	// handle does — its kind, the caller's exposure, a fresh read — makes
	// it the call's target (the answer names it) and answers its display
	// (nil for a target on no display: a tab); it takes no lease. A
	// target lost with its display is refused as lost (for watch --xpra,
	// no_attach).
	Reach(ctx context.Context, c *stage.Call) (*displays.Display, error)
	// Live reports whether the daemon serves a live view (it was started
	// with one).
	Live() bool
	// LiveAddress starts the live view on first use and answers the
	// viewer page's address with its token and the port of its video's
	// ICE-TCP road (0: none), or live_view_unavailable.
	LiveAddress() (url string, iceTCPPort int, err error)
}

// Stage is the watch verb's stage.
type Stage struct {
	h Host // nil until the core binds it
}

// New makes the stage; the core binds its Host as it starts (Bind).
func New(stage.Env) (stage.Stage, error) { return &Stage{}, nil }

func (s *Stage) Name() string { return Name }

// Bind is how the core lends the stage its hands.
func (s *Stage) Bind(h Host) { s.h = h }

// Verbs is watch.
func (s *Stage) Verbs() []string { return []string{"watch"} }

// Answer answers the viewer page's address: the overview, or one target's
// pane (Request.Target). It starts the live view on first use.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	if s.h == nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s was not given the core's hands", Name)
	}
	req := c.Req
	var disp *displays.Display
	if req.Target != "" {
		var err error
		if disp, err = s.h.Reach(ctx, c); err != nil {
			return wire.Response{}, err
		}
	}
	if c.Args.(args.Watch).Xpra {
		return s.watchXpra(c, disp)
	}
	if !s.h.Live() {
		return wire.Response{}, target.Refuse(target.CodeLiveViewUnavailable, "this daemon has no live view (it was started without one)")
	}
	u, iceTCPPort, err := s.h.LiveAddress()
	if err != nil {
		return wire.Response{}, err
	}
	did := "the live view of every target of this host"
	if req.Target != "" {
		u += "&target=" + url.QueryEscape(req.Target)
		did = "the live view of " + req.Target
	}
	resp := wire.Response{URL: u, Did: did + " is at this address (it carries the viewer's own token; open it in a browser)"}
	if iceTCPPort != 0 {
		// A client that tunnels the page's port to another host tunnels
		// this one too: the video's road over TCP.
		resp.Facts = map[string]any{"ice_tcp_port": iceTCPPort}
	}
	return resp, nil
}

// watchXpra answers how a person attaches xpra's own client to the
// display of the window c names (disp, as Reach found it): the window and
// the others of its display appear on their desktop as windows of their
// own, and they can type into them without us (answers about those
// windows then say so).
func (s *Stage) watchXpra(c *stage.Call, disp *displays.Display) (wire.Response, error) {
	if c.Req.Target == "" {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "watch --xpra needs the handle of a window on an xpra display (vibespace-window watch --xpra win:N)")
	}
	var att kind.Attacher
	if disp != nil {
		att, _ = disp.Kind().(kind.Attacher)
	}
	if att == nil {
		return wire.Response{}, target.Refuse(target.CodeNoAttach, "%s is not on an xpra display, so no client of its own can attach: open the application with --display xpra, or watch it in the live view (vibespace-window watch %s)", c.Req.Target, c.Req.Target).With("target", c.Req.Target)
	}
	if disp.PerSession() && disp.Session() != c.Req.Session {
		// A person attached sees every window of the display, not just
		// the one shared with this session.
		return wire.Response{}, target.Refuse(target.CodeNoAttach, "%s is on session %s's own xpra display, shared with you: an xpra client attached there would show every window of %s's, so only %s prints how to attach (watch it in the live view: vibespace-window watch %s)",
			c.Req.Target, disp.Session(), disp.Session(), disp.Session(), c.Req.Target).With("target", c.Req.Target).With("session", disp.Session())
	}
	host := c.Args.(args.Watch).Host
	if host == "" {
		host = sshHost()
	}
	local, ssh, err := att.AttachCommands(host)
	if err != nil {
		return wire.Response{}, err
	}
	text := "on this machine, as the same user:\n  " + local + "\nfrom another machine, through ssh:\n  " + strings.Join(ssh, "\n  ") +
		"\nAn attached person sees every window of this session's xpra display and can type into it; answers about those windows then say so, and `vibespace-window takeover " + c.Req.Target + "` makes it a takeover."
	return wire.Response{Did: "a person attaches xpra's own client to the display of " + c.Req.Target + " with these commands", Text: text}, nil
}

// sshHost is how a person would reach this machine over ssh by default:
// "user@hostname".
func sshHost() string {
	h, _ := os.Hostname()
	if h == "" {
		h = "this-host"
	}
	name := "user"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return name + "@" + h
}
