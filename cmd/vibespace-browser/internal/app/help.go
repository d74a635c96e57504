package app

const description = `vibespace-browser gives an agent Chromium tabs. A session that asks for nothing
gets its own browser context in one shared Chromium (on a private display of
its own where Xvfb is installed, else headless: the daemon's --tab-pane): its
own cookies, storage and tabs, which no other session sees or reaches. Named profiles keep
their cookies across runs.

THE LOOP
   vibespace-browser open http://127.0.0.1:8080/    # → tab:N, your current tab
   vibespace-browser snapshot -i                    # the page's accessibility tree, with @refs
   vibespace-browser fill @e3 "ada@example.org"     # replace a field's value
   vibespace-browser select @e12 "Green"            # choose options by label; read back
   vibespace-browser click @e7                      # act on a NODE (checked visible, enabled, not covered)
   vibespace-browser type @e3 " more"               # keys into a node (or, without a ref, the focused one)
   vibespace-browser key Enter                      # a chord: ctrl+a, shift+Tab, Enter
   vibespace-browser get text | url | title         # read the page back
   vibespace-browser find "Edit"; snapshot @e12 --depth 2; snapshot --diff   # observe less
   vibespace-browser snapshot --after @e13333       # the next page of a snapshot cut at its budget
   vibespace-browser wait --text "Saved"            # until a selector, text or URL appears
   vibespace-browser screenshot --out page.png      # pixels, when the tree is not enough
   vibespace-browser click --at 120,40              # a pixel of that screenshot
   vibespace-browser fill @e4 --secret login        # a secret the user stored (key set secret:login), never shown
   vibespace-browser batch < steps                  # several steps in one call, one a line (help batch)
   vibespace-browser reach <url> [--goal "click Upload"]   # the lowest rung that serves: fetch, tree,
                                                    # pixels, a borrowed desktop, a person (help reach)

TABS AND REFS
   Verbs act on your current tab (open, tab new and tab <id> set it). tab list
   shows only your tabs; another session's tab is refused not_your_tab, a tab
   closed under you tab_gone, a window's handle (win:N) wrong_kind: windows are
   vibespace-window's. snapshot mints refs @e1, @e2, … — the same shape as
   vibespace-window's; a ref keeps naming the same node while it exists, and one
   whose node is gone is refused stale_ref: take a new snapshot. Where a ref is
   expected the "@" may be left out (e7 is @e7), in both command lines.

PROFILES AND HANDLES
   vibespace-browser profiles                      # what exists
   vibespace-browser new work                      # register a profile (bp-<8 hex>); use attaches it
   vibespace-browser use work --alias w            # attach an existing one to THIS session
   vibespace-browser attachments                   # your set: every handle, and the default
   vibespace-browser pin w | --none                # which handle is the default
   vibespace-browser detach --profile w            # drop one attachment
   vibespace-browser new-child                     # a handle for a sub-agent, reaped with you
   --profile <id|label|alias> on any command, or VIBESPACE_BROWSER=<handle> for a
   shell (the flag wins), chooses the profile. With two or more attachments a
   command without one is refused profile_required, listing every handle and the
   default. A handle is never a filesystem path: a path is refused path_not_handle
   with the command that registers it. After your set changed (another session, or
   the operator), the next command is refused profile_changed once, naming what
   was and what is; then commands run. An answer names on one line the tab,
   its lease and the profile it acted on: tab:3 "Sign up" · lease: yours ·
   profile: work (bp-3f9a1c02), default, 2 attachments (or "profile: own
   ephemeral") — left out while it is your previous answer's line, said again
   when any of it changed (a new title after a click that navigated). A tab's handle is tab:N, never reused; --json also gives its CDP
   target id (cdp_id), which is not a handle.

A DESKTOP APP: A REAL CHROMIUM AS A WINDOW
   vibespace-browser new shop --backend desktop-app --url https://shop.example/ --size 1280x800
   # → win:N: a headed Chromium with its own profile on your session's own Xpra
   #   display, accessibility on, no DevTools; you hold the window's lease
   vibespace-window snapshot win:N -i              # its page as a tree, with @refs
   vibespace-window click win:N @e7                # and every other vibespace-window verb
   vibespace-browser close shop                    # stops it (as vibespace-window close win:N)
   --url opens the page as an app window (no tab strip, no toolbar; default
   about:blank); --size WxH asks Chromium for that window size in pixels (the
   answer gives the size it has, and says so when Chromium chose another):
   screenshot and click --at x,y are in those pixels; --mode auto | tree |
   pixels is the window's mode. Each session has its own Xpra display, started
   with its first window and stopped 5 minutes after its last one closes; it
   counts toward the daemon's ceiling of per-session displays running at once
   (one more is refused display_limit: close windows you no longer need). The profile is attached to your session and listed with its
   backend ("· desktop-app · running as win:N"); this command's page verbs on it
   (open, snapshot, click, fill, eval, tab, …) are refused no_cdp_on_this_backend,
   naming the window and the verbs to use. new again takes the running one, or
   starts it again as it was asked.

PROVIDER KEYS
   vibespace-browser key set cloud:browserless < keyfile   # or type it at the prompt (not shown)
   vibespace-browser key list                              # which providers have a key, since when
   vibespace-browser key clear cloud:browserless
   A cloud provider's key is kept by the daemon (<state dir>/keys, 0600) and read
   from stdin only — never from a word of the command line or the environment,
   where ps, shell history and an agent would see it. No answer, log or audit line
   carries it, not even a part of it.

SESSIONS, LEASES, TAKEOVER
   Your session is $VIBESPACE_SESSION ("default" when unset). A person watching
   (watch prints the live view's address) can take your tab over: until the
   handback every verb on it is refused browser_paused, input in flight is cut,
   and your first answer after it says, once, that control came back — snapshot
   again. Sessions of one uid are COOPERATIVE, NOT A SECURITY BOUNDARY.
   Who may do what: takeover and handback from the command line reach only a tab
   the session sees (its own; others are refused not_exposed); the live view's
   page takes over any. While another user drives, takeover is refused
   taken_over; --force replaces them and they are told once. Only the user who
   took over hands back (--as); --force lets another user; the session holding
   the tab never hands back nor replaces a takeover made from another session
   (the live view's), not even with --force.

THE TRACE
   vibespace-browser trace [--target tab:N] [--last N] [--json]
   Your session's steps, one a line, oldest first (kept per session under the
   state directory: the last 500, for 7 days, across restarts):
   12:03:04.120 click tab:1 @e9 push button "Save" by:point → confirmed 42ms
   A type or fill step says how many characters, never which. --for <session>
   reads another session's (the operator's word, audited); trace --pictures
   on|off (the operator's, audited) keeps the tab's picture after each acting
   step. The live view lists a tab's recent steps beside its pane.

EVERY ACTION SAYS WHAT IT DID
   click, fill, type, key and scroll watch the tab and end their line with what
   they saw: confirmed (the node's value or state changed, the tab navigated, or
   any element of the page changed, named: "p#out: text "a" → "b""),
   changed_elsewhere (the title, a new tab), no_visible_change, or unverifiable
   (--no-verify). A change ends the wait at once; no_visible_change comes once
   the page is quiet (no request, timer or animation frame the act's handlers
   started still pending, and no change for 100 ms), else after half a second;
   while something the act started is pending the wait goes on up to 1.5 s, so
   a late effect is still seen. The same action that
   saw no_visible_change three times in a row on a tab is refused no_progress
   until you do something else there (another action) or it changes: a snapshot
   in between does not start it over. budget --steps N --minutes M bounds your
   acting verbs (refused budget_spent when spent): a guard rail your operator
   sets, not a security boundary. budget shows what is left, --reset starts over.

ANSWERS AND EXIT CODES
   --json prints the daemon's answer as one JSON object. Exit 0: done. Exit 1:
   refused — stderr says "refused: <sentence> [<code>]" with a stable code
   (profile_required, profile_changed, path_not_handle, unknown_profile,
   not_your_tab, tab_gone, no_tab, stale_ref, bad_ref, not_visible, covered,
   not_sensitive, browser_paused, navigation_failed, script_error, wrong_kind,
   outside_page, unknown_target, no_cdp_on_this_backend, display_limit,
   timeout, …).
   Exit 2: bad usage, or the daemon could not be reached, or it went away
   before it answered: "unanswered: … [outcome_unknown]" for a verb that acts
   (it may have run in part or in whole: read the tab before you retry), or
   "… [daemon_gone]" for one that only reads (safe to retry). A busy daemon (at
   its connection limit) is retried for a moment before busy is the answer. The
   first answer on a target after a restart cut a verb on it says so in a note.

THE DAEMON
   The same daemon as vibespace-window, one per user and state directory
   ($VIBESPACE_HOME): the program vibespace-daemon, beside this one or on PATH.
   The first command starts it; serve runs it in the foreground. audit.jsonl records who did which verb — never the text of fill
   or type. It and daemon.log are rotated at 8 MiB (two old files kept); a crash's
   trace is in daemon.stderr; status names them. state.json keeps a tab's address
   without its query or fragment. Text after -- is never read as a flag: type -- "-5 degrees".
   vibespace-mcp serves the same verbs, words and refusals as the tools of an MCP
   server on stdio (vibespace-mcp --help), for hosts that speak MCP.`
