// Package cdp drives Chromium over the Chrome DevTools Protocol: it launches
// the browser (Launch), speaks CDP to it with a client of its own (Conn,
// Session), isolates agents from each other with one
// browser context each (Context), and gives a tab the same verbs a native
// window has (Tab: Snapshot, Click, Fill, Type, Key, Scroll, Screenshot…).
//
// # Wire
//
// A browser Launch starts speaks CDP over a pipe it inherited
// (--remote-debugging-pipe: commands on its fd 3, replies and events on its
// fd 4, each message ended by a NUL byte); it listens on no port, so no
// other process — another user's least of all — can reach its tabs, and it
// shuts down cleanly by itself when our end of the pipe closes (Close, or
// our death). Dial reaches a DevTools WebSocket instead, for a browser
// started elsewhere. Either way Conn is the connection. It implements the
// Session interface of github.com/chromedp/cdproto/cdp, so every generated
// command runs on it:
//
//	res, err := proto.Call(ctx, tab.Session(), page.Navigate, page.NavigateParams{URL: u})
//
// (cdproto v0.157.3 and later replaced the old Executor/Do API with this
// typed Session API; this package targets v0.159.x.)
//
// Tabs are reached in flat mode (Target.attachToTarget with flatten: true):
// a *Session is the same connection with a sessionId on each message. Every
// call is bounded by its context, and by Conn's default deadline when the
// context has none. An error the browser returns is an *Error carrying the
// CDP code and message; a closed connection is ErrClosed.
//
// # Isolation
//
// Browser.NewContext creates a browser context (Target.createBrowserContext):
// its own cookies, storage and tabs. A Context lists, reaches and closes only
// the targets of its own browser context; a tab id of another context is
// refused not_your_tab, a tab that closed is tab_gone. A tab's own CDP
// session (Tab.Session) is fenced too: from a page session Chromium would
// still list, attach to and close every target of the browser, so the
// Target, Browser, SystemInfo and Tracing domains are refused there
// (outside_context). Browser.Conn is the unfenced browser session: it is
// for the daemon, never for an agent.
//
// # Refusals
//
// Every refusal a verb gives is a *target.Refusal with a stable code:
// stale_ref, bad_ref, not_visible, not_sensitive (disabled), covered,
// not_editable, tab_gone, not_your_tab, unknown_target, outside_context,
// navigation_failed, script_error, timeout, bad_chord, bad_request.
//
// # Concurrency
//
// Conn, Session, Browser, Context and Tab are safe for concurrent use. Input
// verbs (Click, Type, Key, Scroll) check their context between the events
// they inject and release any key or button they hold when it ends, so a
// takeover can cancel them.
package cdp
