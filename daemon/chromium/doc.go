// Package chromium is the daemon's browser backend: one shared Chromium
// (headless, or headed on a private display: Options.PaneXvfb) in which
// every session without a profile gets its own browser context
// (Target.createBrowserContext: its own cookies, storage and tabs),
// and one Chromium per persistent profile (its user-data-dir), each started
// lazily, stopped when idle, under a ceiling of browsers running at once.
// A browser that crashed is started again on its next use.
//
// It is the daemon's tab kind: its tabs are kind.Target values (tab.go),
// and it plugs into the daemon as daemon.Config{Browser: chromium.New(…)}.
// A watched tab's pictures (pane.go) come from its own window when its
// browser is headed (a profile opened headed, the shared browser on a
// private Xvfb of its own with Options.PaneXvfb (panexvfb.go), or every
// browser on a display with Options.PaneDisplay: each tab in a window of
// its own), read as any window is, less the browser's bar; from the CDP
// screencast otherwise.
// It also runs a profile as a desktop app (desktopapp.go, kind.AppRunner):
// the same program headed, as a window of a display (Options.AppDisplay),
// with internal/chromeflags' flags and no DevTools; the daemon opens it.
package chromium
