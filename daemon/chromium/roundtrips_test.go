package chromium

import (
	"testing"

	"github.com/vibespace/vibespace/daemon/daemontest"
)

// The CDP commands one browser verb sends, through the whole daemon (its
// road decided, its node read, the verifier's looks, the act), on
// daemontest.RoundTripPage. A change that asks the browser once more changes a
// number here: it is seen, and said in its commit.
//
// Counted in this order on one tab; a ref's first use resolves it to its
// DOM node (Runtime.callFunctionOn, DOM.describeNode,
// Runtime.releaseObject: 3), later uses do not. A node's JS object is
// resolved (DOM.resolveNode) at its first use and held for the next
// (cdp's heldNodes). A node read (kind.NodeReader) is
// Accessibility.getPartialAXTree and Runtime.callFunctionOn (2). A look
// of the effect check (cdp.Tab.Look) is one call on the node's object
// that reads its facts, digests the content and, before the act, arms
// the page's watcher (Runtime.callFunctionOn), its AX node beside it
// (Accessibility.getPartialAXTree, pipelined: sent before the call,
// both before either reply is read), and Target.getTargetInfo (title,
// URL: the browser's, not the page's; sent at the same time from a
// goroutine of its own): 3 commands, all in flight together, one round
// trip deep. A look with no node to read (the verb's own read given) is
// one Runtime.evaluate (the digest, the watcher armed) and the
// title's: 2. A look after the act asks the armed watcher what changed,
// at once, in the same call (its answer taken only where the look saw a
// change elsewhere and none at the node: where it was asked on its own
// before). Before cdp.Tab.Look: a look was 4 and the watcher's arming one
// more (5 before the act), sent at once from goroutines but run one after
// another by the page, each a turn of its main thread and a reply; the
// watcher was asked after the look, one more round trip.
const (
	// open of an address in the session's tab: Page.navigate,
	// Target.getTargetInfo.
	openCalls = 2
	// snapshot of a freshly loaded page: Page.createIsolatedWorld (the
	// walk's world, once per document), Runtime.evaluate (the walk),
	// DOMDebugger.getEventListeners, DOM.resolveNode,
	// Runtime.callFunctionOn, Runtime.releaseObjectGroup (the clickable
	// nodes' listeners).
	snapshotCalls = 6
	// snapshot -i: the same in the world made already.
	snapshotICalls = 5
	// click @ref (first use of the ref), --no-verify: the ref resolved
	// (3), DOM.resolveNode, Runtime.callFunctionOn (scrolled into view,
	// its point hit-tested; the node's object is held for the next use:
	// no Runtime.releaseObject), Input.dispatchMouseEvent ×3 (move, press,
	// release). Before: 13, the node read (4) only to name it in the
	// answer (it is named from the session's snapshot now), then 9, the
	// object released after each use.
	clickCallsNoVerify = 8
	// click @ref (ref known) with the check, on a button that changes the
	// page: the look before, the watcher armed in it (3: one round trip),
	// the act (4: the probe, then the mouse's three pipelined), one look
	// after (3: one round trip), whose call also asks the watcher what
	// changed, which names the change it saw elsewhere. Depth: 4 round
	// trips, 2 of them the check's. Before the watcher: 18; then 20,
	// every use of the node resolving and releasing it (2 more each);
	// then 14, a look 4 commands, the arming 1 more and the question
	// (Runtime.evaluate) one more, after the look.
	clickCalls = 10
	// click @ref (first use) on a button that changes nothing: the ref
	// (3), the look before with the watcher armed (4: the node resolved
	// and held, then as above), the act (4), a look at once (3), one
	// Runtime.evaluate waiting for the watcher's word (a change, or
	// quiet: nothing the act started still pending), and a last look
	// then (3). Before: about 63, a look every 50 ms (the count varied
	// with the machine's speed); then 28, before the watcher (its wait
	// was the sign of change's); then 29, before the node's object was
	// held; then 22, before cdp.Tab.Look.
	clickIdleCalls = 18
	// fill @ref (first use), --no-verify: the ref (3), DOM.resolveNode,
	// Runtime.callFunctionOn (its facts, the checks, focused with its text
	// selected, the text inserted, its value read back: cdp's fillJS).
	// Before: 15 (the field's facts, its focus, the insertion and the
	// read-back were four calls and two resolves), then 10 (a node read,
	// 4, only to name it: named from the snapshot now), then 6 (the
	// object released after use).
	fillCallsNoVerify = 5
	// fill @ref with the check: the look before with the watcher armed
	// (3, the node's object held), the fill (1), one look after (3),
	// which sees the field's own value change (no question to the
	// watcher). Depth: 3 round trips, 2 of them the check's. Before: 20,
	// then 15 before the watcher, then 16 before the node's object was
	// held (each use resolved and released it), then 10 before
	// cdp.Tab.Look.
	fillCalls = 7
	// select @ref (first use), --no-verify: the ref (3), the node read
	// (3: DOM.resolveNode, the node's object then held), Runtime.callFunctionOn,
	// Runtime.callFunctionOn (the options chosen, the choice read back).
	// Before: 11, the object resolved and released for each use.
	selectCallsNoVerify = 8
	// select @ref with the check: the node read for the road (2, its
	// object held), which the look before takes (2 more: the title and
	// address, and one Runtime.evaluate digesting the content and arming
	// the watcher), the act (2), one look after (3). Before the watcher:
	// 20; then 21, the look before reading the node again (4); then 17
	// before the node's object was held; then 11 before cdp.Tab.Look.
	selectCalls = 9
	// type @ref (ref known) "!?", --no-verify: Runtime.callFunctionOn
	// (the node focused, on its held object), Input.dispatchKeyEvent ×4
	// (a key down and up a character).
	typeCallsNoVerify = 5
	// key Tab, --no-verify: Input.dispatchKeyEvent ×2 (down, up).
	keyCallsNoVerify = 2
	// scroll down, --no-verify: Runtime.evaluate (the viewport's size),
	// Input.dispatchMouseEvent (the wheel).
	scrollCallsNoVerify = 2
	// get title: Target.getTargetInfo.
	getTitleCalls = 1
	// screenshot: Page.captureScreenshot.
	screenshotCalls = 1
)

// TestBrowserRoundTrips counts the CDP commands of each browser verb on a
// tab, driven through a served daemon as vibespace-browser drives it, with
// the effect check on (the default) and off (--no-verify), verifies each
// effect in the page's own DOM, and holds the counts to the budgets above
// (daemontest.RoundTrips, the Firefox tab's walk too).
func TestBrowserRoundTrips(t *testing.T) {
	log := daemontest.Calls{Proto: "CDP"}
	// The daemon's own wait and poll: what an agent gets.
	h := startHarness(t, "", Options{Calls: log.Add}, nil)
	daemontest.RoundTrips(t, h.Served, &log, "rt", daemontest.Budgets{
		Open: openCalls, Snapshot: snapshotCalls, SnapshotI: snapshotICalls,
		ClickNoVerify: clickCallsNoVerify, Click: clickCalls, ClickIdle: clickIdleCalls,
		FillNoVerify: fillCallsNoVerify, Fill: fillCalls, SelectNoVerify: selectCallsNoVerify, Select: selectCalls,
		TypeNoVerify: typeCallsNoVerify, KeyNoVerify: keyCallsNoVerify, ScrollNoVerify: scrollCallsNoVerify,
		GetTitle: getTitleCalls, Screenshot: screenshotCalls,
	})
}
