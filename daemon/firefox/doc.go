// Package firefox is the tab kind's Firefox backend: a tab of a Firefox
// driven over WebDriver BiDi (package bidi) as a kind.Target, with the
// verbs of the Chromium tab (daemon/chromium) where BiDi has a road for
// them and a typed refusal naming what it lacks where it has none.
//
// A tab's snapshot is the page road's: the same walk (cdp.WalkJS) run in
// a sandbox of ours (BiDi's isolated realm: the page's scripts cannot see
// it) through script.callFunction, and the same builder (cdp.BuildWalk),
// so that a page reads the same in either browser (snapshot_same_test.go
// holds the two equal and lists where they differ). A node's key is the
// walk's handle ("<gen>:h<handle>.1"), and a document's generation is
// found by a token the sandbox keeps per document: a key of another
// document is stale_ref. Acting on a ref finds the element by its handle,
// scrolls it into view, checks that it has a box, is enabled, lies in the
// viewport and that nothing covers its centre (the page's own
// elementFromPoint), and then clicks there with BiDi input actions: real
// (trusted) pointer events, as a person's.
//
// The live view's frames are the viewport's pictures taken again and
// again (capture.Shots over browsingContext.captureScreenshot), and a
// person's input from it goes in as BiDi input actions, as an agent's.
package firefox
