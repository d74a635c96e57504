// Package app is the vibespace-window command line: it parses, asks the
// daemon (starting it when none answers), and prints. It never calls
// os.Exit: Run returns the exit code for main.
package app

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
)

// Exit codes.
const (
	ExitOK      = daemoncall.ExitOK
	ExitRefused = daemoncall.ExitRefused // the daemon refused the verb (a typed refusal)
	ExitUsage   = daemoncall.ExitUsage   // bad usage or an internal error
)

// Env is what the command reads from its environment; main passes
// os.Getenv, tests a map.
type Env = daemoncall.Env

// Options wire the command (see daemoncall.Options).
type Options = daemoncall.Options

var (
	usage      = daemoncall.Usage
	reorder    = daemoncall.Reorder
	parsePoint = daemoncall.ParsePoint
	wantJSON   = daemoncall.WantJSON
	session    = daemoncall.Session
	jsonFlag   = daemoncall.JSONFlag
)

// Run runs the command line args (args[0] is the program) and returns the
// exit code.
func Run(ctx context.Context, args []string, o Options) int {
	o.Name = "vibespace-window"
	return daemoncall.Run(ctx, New(o), args, o)
}

// New builds the cli.App.
func New(o Options) *cli.App {
	return daemoncall.NewApp(o, daemoncall.AppSpec{
		Name:        "vibespace-window",
		Usage:       "drive native Linux windows for an agent: open, snapshot, click @ref, type, key, screenshot",
		Description: description,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the daemon's answer as one JSON object"},
		},
		Commands: commands(o),
	})
}

const description = `vibespace-window gives an agent the windows of GTK/Qt/X11 applications that it
starts itself, on a private display the daemon owns (an Xvfb with its own D-Bus and
AT-SPI bus: nothing of the user's desktop is listed or reachable).

THE LOOP
   vibespace-window open gtk3-widget-factory      # → win:1, and you hold its lease
   vibespace-window snapshot win:1 --interactive  # the accessibility tree, with @refs
   vibespace-window find win:1 "Dark"; snapshot win:1 @e12 --depth 2 | --diff; get win:1 text @e7   # observe less
   vibespace-window click win:1 @e12              # act on a NODE through its Action
   vibespace-window type win:1 @e7 "hello"        # text into a node (EditableText)
   vibespace-window fill win:1 @e7 "hello"        # a field's whole text replaced, read back
   vibespace-window select win:1 @e9 "Green"      # choose options of a combo box / list
   vibespace-window key win:1 ctrl+s              # a chord, into the focused window
   vibespace-window screenshot win:1 --out w.png  # pixels, when the tree is not enough
   vibespace-window click win:1 --at 120,40       # a pixel of that screenshot
   vibespace-window mode win:1 pixels             # how you reach it: auto | tree | pixels
   vibespace-window type win:1 @e7 --secret login # a secret the user stored (key set secret:login), never shown
   vibespace-window batch win:1 < steps           # several steps in one call, one a line (help batch)

TARGETS AND REFS
   A target is win:N (from open or list). A tab's handle (tab:…) is refused
   wrong_kind here: tabs are vibespace-browser's (takeover, handback and watch,
   a person's words, take either). snapshot mints refs @e1, @e2, … for one
   target; a ref keeps naming the same node while it exists. A ref whose node is
   gone is refused stale_ref: take a new snapshot. Where a ref is expected the
   "@" may be left out (e7 is @e7), in both command lines. --at x,y is a pixel of that
   window's own screenshot (0,0 = its top-left corner).

THE ROADS (never a silent degrade)
   click @ref        only through the node's Action; a node without one is refused
                     no_action — use --at yourself if you really mean a point.
   type @ref "…"     EditableText, or focus + keys where the node takes focus.
   type "…"          keys into the window's focused node.
   fill @ref "…"     only EditableText: the whole text replaced and read back
                     (value_not_set with what it holds); none is no_editable_text.
   key, click --at,  need an injection backend (XTEST here); without one they are
   scroll            refused no_injection_backend with the probe's reason.
   doctor prints what this machine offers and why not.

MODES (auto | tree | pixels; vibespace-window help mode)
   open --mode pixels <app> chooses one (auto by default); mode win:1 tree changes
   it (the lease holder). auto lets every verb with a road run and resolves to
   tree when the window's frame is on the accessibility bus with a child, else to
   pixels (then snapshot, click @ref, type @ref, fill are refused no_tree). tree
   refuses click --at and scroll --at (mode_tree); pixels refuses snapshot, click
   @ref, type @ref and fill (mode_pixels). key, type without a ref and screenshot work in every
   mode. The answers' target line says it: "mode: auto → tree". Accessibility is
   switched on for the toolkits that wait to be asked (Qt, Chromium, Electron; a
   Chromium or Electron app also gets --force-renderer-accessibility at open).
   A window's frame is its own, matched by where it is, its title and whether it
   is a dialog, never a neighbour's: a window with none (an untitled dialog whose
   frame is not registered yet, a window its toolkit does not expose) answers
   snapshot no_tree, saying why, in every mode.

SESSIONS AND LEASES
   Your session is $VIBESPACE_SESSION ("default" when unset). A window is listed for,
   and addressable by, the session that opened it and the sessions it was shared
   with (share win:1 --with other). One session holds a window's lease at a time:
   verbs take a free lease implicitly; another session is refused held (who, since)
   until the holder runs detach. Sessions of one uid are COOPERATIVE, NOT A SECURITY
   BOUNDARY: any process of this user can reach the display; the lease only keeps
   well-behaved agents out of each other's windows.
   A window the application shows later (a dialog, a second window, a window of a
   process it started) is a new win:N of the same session: list shows it, shared
   as its first window is and held by whoever holds that one. close on it closes
   that window alone (refused no_close where the window cannot be asked); close on
   the application's first window stops the application.

TAKEOVER
   A person can take a window over (takeover win:1, what the live view's button
   calls; watch win:1 prints that view's address). Until the handback every
   agent verb on it is refused window_paused (who, since), its input in flight
   is cut and every key and button held on the display is released (X has one
   keyboard; another window's typing in flight at that moment is left alone, and
   nothing is held for this window then). Your first answer after the handback
   says, once, that control came back: the window may have changed, so snapshot
   again. An idle takeover hands back by itself.
   Who may do what. A session takes over and hands back only a window it sees
   (it opened it, or it was shared with it; others are refused not_exposed); the
   live view's page, the person holding its token, takes over any window it
   shows. One person drives at a time: while another user drives, takeover is
   refused taken_over (who, since); takeover --force replaces them, its answer
   names whom, and they are told once on their next takeover or handback of it.
   Only the user who took over hands back (handback win:1 --as <them>); --force
   lets another user. The session holding the window's lease (the paused agent)
   never hands back nor replaces a takeover made from another session, not even
   with --force; a takeover made from its own session is its own. audit.jsonl
   records, for each takeover, handback and share, the session, the user (--as),
   force, whom a forced takeover replaced, and whom share shared with.

XPRA (a display a person sees on their own desktop)
   open --display xpra <app> opens it on your session's own seamless Xpra
   display (started on first use; only your session's windows are on it). Its
   windows are windows like any (tree, keys, points, screenshot, live view,
   lease, takeover). xpra hides a window nobody views: it is shown as it appears,
   and again before a verb grabs it or sends it input. watch --xpra win:N prints
   the xpra attach command for a person (here, or through ssh with --ssh
   user@host); while their client is attached, answers about those windows say
   "a person may be driving", and takeover win:N pauses agents. A window on our
   Xvfb has nothing to attach: no_attach. At most 4 such displays run at once
   (display_limit); one with no window for 5 minutes stops.

YOUR DESKTOP (the user's own session; off until the operator opts in)
   desktop on, run by the operator from a terminal of their desktop, opens it to
   agents (audited; it lasts across restarts until desktop off). Then every window
   of that desktop is listed for every session, marked "your desktop" in every
   row, answer and live-view pane. Act on its nodes (click @ref, type @ref); a
   point (click --at, scroll --at) is refused no_pixels_grant until the operator
   runs desktop pixels win:N. Nothing is started there (open --display desktop is
   refused your_desktop, or desktop_off while it is closed) and no window of theirs
   is closed. When the person types or moves their own mouse (X11: their devices,
   through XInput 2), every agent holding one of their windows is paused at once:
   user_active until handback win:N --as you. On Wayland their input cannot be
   observed; input goes through the RemoteDesktop portal only after the person
   allows its dialog (no_injection_backend until then), and keys only into the
   window their compositor focused (not_focused otherwise). Their own Chromium or
   Firefox is driven through its tree alone: no CDP, no automation flag. After
   desktop off, its old handles are refused desktop_off.

THE TRACE
   vibespace-window trace [--target win:N] [--last N] [--json]
   Your session's steps, one a line, oldest first (kept per session under the
   state directory: the last 500, for 7 days, across restarts):
   12:03:04.120 click win:2 @e9 check box "Dark mode" by:tree → confirmed 42ms
   A type step says how many characters, never which. --for <session> reads
   another session's (the operator's word, audited); trace --pictures on|off (the
   operator's, audited) keeps the target's picture after each acting step, never
   of your desktop's windows without their pixels grant. The live view lists a
   target's recent steps beside its pane.

EVERY ACTION SAYS WHAT IT DID
   click, type, key, scroll and select end their line with what they saw:
   confirmed (any node of the window changed: its text, name or value, a node
   added or removed, the focus; told by the application's AT-SPI events and
   named: "@e3 label: "1" → "11""), changed_elsewhere (a new window, the title,
   the pixels), no_visible_change (nothing within 500 ms: a window tells no
   pending work, so a later effect is not seen) or unverifiable (--no-verify).
   The same action that saw no_visible_change three times in a row on a window
   that stayed as it was is refused no_progress until you do something else
   there (another action) or it changes: a snapshot in between does not start
   it over. budget --steps N
   --minutes M bounds your acting verbs (refused budget_spent when spent): a
   guard rail your operator sets, not a security boundary.

ANSWERS AND EXIT CODES
   An answer names the target, its title, the lease state and the mode on one line,
   left out while it is your previous answer's line (said again when any of it
   changed; a refusal always says it). --json keeps every field and prints the
   daemon's answer as one JSON object (before the command: vibespace-window --json
   list). Exit 0: done. Exit 1: refused — stderr says "refused: <sentence> [<code>]"
   and the code is stable (not_exposed, held, window_paused, no_action,
   no_editable_text, not_sensitive, value_not_set, no_injection_backend, stale_ref, bad_ref, bad_chord,
   outside_window, window_gone, app_not_found, text_too_long, wrong_kind,
   no_display, display_not_answering, mode_pixels, mode_tree, bad_mode, no_tree,
   display_limit, no_attach, desktop_off, no_pixels_grant, your_desktop,
   user_active, not_focused, no_secret, expect_unmet, timeout, …).
   Exit 2: bad usage, or the daemon could not be reached, or it went away
   before it answered: "unanswered: … [outcome_unknown]" for a verb that acts
   (it may have run in part or in whole — a retried type could type twice: read
   the window before you retry), or "… [daemon_gone]" for one that only reads
   (safe to retry). A busy daemon (at its connection limit) is retried for a
   moment before busy is the answer. The first answer on a window after a
   restart cut a verb on it says so in a note.

THE DAEMON
   One per user and state directory ($VIBESPACE_HOME, default
   $XDG_STATE_HOME/vibespace). The first command starts it: the program
   vibespace-daemon, beside this one or on PATH (vibespace-window serve runs it in
   the foreground); its log is daemon.log there, and audit.jsonl records
   who did which verb on which target, by tree / point / keys — never the text typed.
   Both are rotated at 8 MiB, two old files kept (daemon.log.1, audit.jsonl.2, …);
   a crash's trace is in daemon.stderr. status names the files kept. state.json
   keeps a tab's address without its query or fragment.
   Text after -- is never read as a flag: type win:1 -- "-not-a-flag".
   vibespace-mcp serves the same verbs, words and refusals as the tools of an MCP
   server on stdio (vibespace-mcp --help), for hosts that speak MCP.`
