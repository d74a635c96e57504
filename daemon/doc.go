// Package daemon is the core of the long-lived per-user process behind
// vibespace-window and vibespace-browser: it owns the registry of displays
// (each started lazily on its first open; package daemon/displays keeps
// it, under the core's lock) and the browser, the table of
// targets, their leases, in-flight verbs and the audit log, and answers
// each request (Handle) that package daemon/socket reads on its Unix
// socket (mode 0600) in the runtime directory, one JSON request per line.
//
// Every kind of target is reached through the seam of package daemon/kind
// and nothing else: a window and a tab are both a kind.Target, and one verb
// set drives both (verbs.go). vibespace-window's words reach a window by
// its handle; vibespace-browser's ("browser.<word>") reach the session's
// current tab of the profile it chose; a handle of the other kind is
// refused wrong_kind, naming the command line that addresses it. The
// capability law (target.Decide) is applied here, once, on each target's
// own probe. The browser's own words on a session's tabs (open, tab, get,
// eval, navigation, wait) and its desktop apps (new, close), and the reach
// of the session's current tab, which every verb on a tab shares, are the
// registered stage daemon/tabs's, which the core asks (Tabs: a shared
// verb on a tab has it reach the tab) and lends the primitives of its
// target table (browserHands, browser.go); the profile words, and the choice
// of the browser context a session's command acts in, are the registered
// stage daemon/browsing's, which the core asks (Browsing).
// A desktop app's profile has no browser context: its real Chromium is a
// window, opened as open opens one on the display the browser kind names,
// with the command line it builds (kind.AppRunner), and its page verbs are
// refused no_cdp_on_this_backend. The user's own desktop is one of the displays;
// what it admits (the operator's setting, the pixels grant, the person's
// own input) is its gate's, asked at the few places the core needs
// (yours.go; package daemon/yourdesktop). An acting verb's effect is
// watched by the registered watcher (a stage.Watcher: daemon/verifying),
// which the verb asks before it acts and after (watch.go); the core lends
// it what it may see of the target (stage.Sight).
//
// Concurrency: Daemon.mu guards the maps and every entry's mutable fields,
// and the display registry's (package daemon/displays, which it is handed),
// and is never held across a backend call. Each target has its own lock
// (entry.gate), taken with the verb's context, so a frozen application
// blocks only verbs on its own window; the input of one display (one
// keyboard and one pointer) goes one sequence at a time
// (displays.Display.Injecting), and raising a window and acting on what is
// on screen is one step per display (displays.Display.Stacking). A takeover never waits for any of them: it
// cancels the verbs in flight on the target and releases every key and
// button.
package daemon
