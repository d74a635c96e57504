package cdp

import "fmt"

// The page's watcher and the effect check's reads, for a driver of another
// browser (daemon/firefox, over WebDriver BiDi) to run the same scripts in
// its pages: one source, the same words on both browsers.

// WatchArmJS is the expression that arms a page's watcher of one act for
// at most life ms (Tab.Arm's: a MutationObserver, the address and unload
// signs, the act's requests and timers as pending) and answers 1. It must
// run in the page's own realm: it wraps the page's timers and requests.
func WatchArmJS(lifeMS int64) string { return fmt.Sprintf(watchJS, max(lifeMS, 1), watchQuietMS) }

// WatchToldJS is the expression that asks the armed watcher what changed
// after mark, waiting up to ms for a change or for quiet (a promise; stop:
// disarm it after). It answers the JSON of Told less one on the mark (the
// caller adds it, as WatchTold does), or {gone: true} where no watcher is
// armed (the document was left).
func WatchToldJS(mark uint64, ms int64, stop bool) string {
	return fmt.Sprintf(watchToldJS, mark, ms, stop)
}

// WaitChangeJS is the expression that resolves true at the first sign of
// change in the page (Tab.WaitChange's), false when ms pass without one.
func WaitChangeJS(ms int64) string { return fmt.Sprintf(waitChangeJS, max(ms, 1)) }

// ContentDigestJS is the function (called with this = a document) that
// digests what a person reads of it (Tab.ContentDigest's).
func ContentDigestJS() string { return contentDigestJS }

// NodeFactsJS is the function (called with this = an element) that reads
// its facts for the effect check (Tab.NodeFacts's, less the accessibility
// tree's role and name): a NodeFacts, or {gone: true}.
func NodeFactsJS() string { return nodeFactsJS }
