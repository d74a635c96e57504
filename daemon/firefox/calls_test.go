package firefox_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/testenv"
)

// The BiDi commands one verb sends on a Firefox tab, through the whole
// daemon (its road decided, its node read, the verifier's looks, the
// act), on daemontest.RoundTripPage. A change that asks the browser once more
// changes a number here: it is seen, and said in its commit.
//
// Counted in this order on one tab. Every verb starts with the tab's
// facts (Tab.Info: one script.evaluate in the sandbox, its address and
// title from one document): "the info" below, 1. A node read
// (kind.NodeReader) is one script.callFunction in the sandbox, on the
// walk's handle; a look of the effect check is a node read, the info and
// script.evaluate (the content's digest, in the sandbox): 3.
const (
	// open: the info, browsingContext.navigate, the info again (the
	// answer's title and address). Before: 5, the info two commands
	// (browsingContext.getTree, the title).
	ffOpenCalls = 3
	// snapshot: the info, script.callFunction (the walk, in the sandbox).
	ffSnapshotCalls = 2
	// snapshot -i: the same.
	ffSnapshotICalls = 2
	// click @ref, --no-verify: the info, script.callFunction (scrolled
	// into view, its point hit-tested), input.performActions (move,
	// press, release).
	ffClickCallsNoVerify = 3
	// click @ref with the check, on a button that changes the page: the
	// info, the look before (3) with the page's watcher armed beside it
	// (script.evaluate in the page, 1), the act (2), one look after (3),
	// and the watcher asked what changed, to name it (script.evaluate,
	// 1). Before the watcher: a look every 50 ms to the wait's end (a
	// screenshot each); then 14, the info two commands.
	ffClickCalls = 11
	// click @ref on a button that changes nothing: the info, the look
	// before (3), the watcher armed (1), the act (2), a look at once (3),
	// one script.evaluate waiting for the watcher's word (a change, or
	// quiet: nothing the act started still pending), and a last look
	// then (3). Before: 18, the info two commands.
	ffClickIdleCalls = 14
	// fill @ref, --no-verify: the info, script.callFunction (focused,
	// its text selected, the text inserted, its value read back).
	ffFillCallsNoVerify = 2
	// fill @ref with the check: the info, the look before (3), the
	// watcher armed (1), the fill (1), one look after (3), which sees the
	// field's own value change (no question to the watcher). Before: 12.
	ffFillCalls = 9
	// select @ref, --no-verify: the info, the node's traits for the road
	// (script.callFunction: Tab.Node), then cdp.SelectOn's two page
	// functions (the options chosen, the choice read back), each a
	// script.callFunction.
	ffSelectCallsNoVerify = 4
	// select @ref with the check: the info, the node's traits (1), the
	// look before (3) with the watcher armed (1), the select (2), one look
	// after (3), which sees the select's own value change.
	ffSelectCalls = 11
	// type @ref "!?", --no-verify: the info, the focus
	// (script.callFunction), the keys (one input.performActions).
	ffTypeCallsNoVerify = 3
	// key, --no-verify: the info, input.performActions.
	ffKeyCallsNoVerify = 2
	// scroll, --no-verify: the info, the viewport's size
	// (script.callFunction), input.performActions (the wheel).
	ffScrollCallsNoVerify = 3
	// get title: the info, and the title read again (script.evaluate).
	ffGetTitleCalls = 2
	// screenshot: the info, browsingContext.captureScreenshot.
	ffScreenshotCalls = 2
)

// served is a daemon with Firefox beside Chromium as the program runs
// them (Firefox's commands counted into log when it is set), and a
// session on each: "fx" uses a profile of provider firefox, "ch" the
// daemon's own Chromium. Firefox is started outside every call.
func served(t *testing.T, log *daemontest.Calls) *daemontest.Served {
	t.Helper()
	testenv.NeedIntegration(t, "firefox-esr", "chromium")
	dir := t.TempDir()
	o := firefox.Options{StartTimeout: 2 * time.Minute}
	if log != nil {
		o.Calls = log.Add
	}
	ch := chromium.New(chromium.Options{StartTimeout: 90 * time.Second})
	ff := firefox.NewPool(o)
	br := firefox.Beside(ch, ff)
	t.Cleanup(func() { br.Close() })
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays: []kind.DisplayProvider{native.Xvfb(native.Options{})}, Browser: br, VerbTimeout: 2 * time.Minute})
	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "fx"} }
	id := sv.OK(t, a("browser.new").With(args.New{Label: "rt", Provider: provider.Firefox})).Profile.ID
	sv.OK(t, a("browser.use").With(args.Use{Label: id}))
	if err := ff.Start(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	return sv
}

// TestFirefoxRoundTrips counts the BiDi commands of each verb on a
// Firefox tab, driven through a served daemon as vibespace-browser drives
// it, with the effect check on (the default) and off (--no-verify),
// verifies each effect in the page's own DOM (eval in the page), and
// holds the counts to the budgets above (daemontest.RoundTrips, the
// Chromium tab's walk too).
func TestFirefoxRoundTrips(t *testing.T) {
	log := daemontest.Calls{Proto: "BiDi"}
	sv := served(t, &log)
	daemontest.RoundTrips(t, sv, &log, "fx", daemontest.Budgets{
		Open: ffOpenCalls, Snapshot: ffSnapshotCalls, SnapshotI: ffSnapshotICalls,
		ClickNoVerify: ffClickCallsNoVerify, Click: ffClickCalls, ClickIdle: ffClickIdleCalls,
		FillNoVerify: ffFillCallsNoVerify, Fill: ffFillCalls, SelectNoVerify: ffSelectCallsNoVerify, Select: ffSelectCalls,
		TypeNoVerify: ffTypeCallsNoVerify, KeyNoVerify: ffKeyCallsNoVerify, ScrollNoVerify: ffScrollCallsNoVerify,
		GetTitle: ffGetTitleCalls, Screenshot: ffScreenshotCalls,
	})
}
