// Package conformance holds the conformance suite of the daemon's kinds of
// target: one table of verbs, refusals and observed effects, run through a
// real daemon against every registered kind — a window on our Xvfb (the
// GTK fixture) and a tab of the shared Chromium (a page the suite serves) —
// with each effect checked in the application's own log or the page's own
// reports, never in the daemon's answer alone. A kind added later adds one
// subject. It holds only tests.
package conformance
