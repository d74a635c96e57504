// Package conformance holds the conformance suite of the daemon's kinds of
// target: one table of verbs, refusals and observed effects, run through a
// real daemon against every registered kind — a window on our Xvfb and
// one on a session's Xpra (the GTK fixture), a tab of the shared Chromium
// (a page the suite serves), a Firefox tab of a profile of provider
// firefox (the same page, over WebDriver BiDi), and a window of the user's own desktop (the
// GTK fixture on an Xvfb of the test's own standing in for it, opened by
// the operator's desktop on) — with each effect checked in the
// application's own log or the page's own reports, never in the daemon's
// answer alone. A kind added later adds one subject; where a kind answers
// a row differently by design, its subject says so (an expectation, with
// the reason) rather than skipping it. It holds only tests.
package conformance
