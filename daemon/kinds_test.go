package daemon

import (
	"context"
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// Tests of the seam on the doubles: both kinds in one daemon, several
// displays in one daemon.

// startKinds runs a daemon with the given displays and a fake browser.
func startKinds(t *testing.T, dir string, br *kindtest.Browser, displays ...kind.DisplayProvider) *testDaemon {
	t.Helper()
	return startDaemonWith(t, nil, dir, func(c *Config) {
		c.Displays = displays
		if br != nil {
			c.Browser = br
		}
	})
}

// A window verb given a tab's handle, and a browser word given a window's,
// is refused wrong_kind naming the command line that addresses it, and
// reaches nothing. (Before the seam, vibespace-window snapshot tab:<id>
// answered an empty "unreadable" tree.)
func TestWrongKindBothWays(t *testing.T) {
	p, br := &kindtest.Provider{}, kindtest.NewBrowser()
	td := startKinds(t, "", br, p)
	win := string(td.open(t, "a"))
	open := td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, open, "")
	tab := string(open.Target.ID)
	if !strings.HasPrefix(tab, "tab:") || open.Profile == nil {
		t.Fatalf("browser.open: %+v", open)
	}
	before := len(br.Events())
	for _, req := range []Request{
		Request{Verb: "snapshot"}, Request{Verb: "screenshot"}, Request{Verb: "click"}.With(args.Click{Ref: "@e1"}), Request{Verb: "click"}.With(args.Click{At: "1,1"}),
		Request{Verb: "type"}.With(args.Type{Text: "x"}), Request{Verb: "key"}.With(args.Key{Chord: "a"}), Request{Verb: "scroll"}.With(args.Scroll{Direction: "down"}), Request{Verb: "close"},
		Request{Verb: "attach"}, Request{Verb: "detach"}, Request{Verb: "share"}.With(args.Share{With: "b"}),
	} {
		req.Session, req.Target = "a", tab
		resp := td.call(t, req)
		wantCode(t, resp, target.CodeWrongKind)
		if resp.Facts["use"] != "vibespace-browser" || !strings.Contains(resp.Message, "vibespace-browser") || resp.Target != nil {
			t.Fatalf("%s with a tab's handle: %+v", req.Verb, resp)
		}
	}
	if got := br.Events()[before:]; len(got) != 0 {
		t.Fatalf("a refused verb reached the tab: %+v", got)
	}
	disp := p.Display()
	before = len(disp.Events())
	for _, action := range []string{"select", "close"} {
		resp := td.call(t, Request{Verb: "browser.tab", Session: "a", Target: win}.With(args.Tab{Action: action}))
		wantCode(t, resp, target.CodeWrongKind)
		if resp.Facts["use"] != "vibespace-window" {
			t.Fatalf("tab %s with a window's handle: %+v", action, resp)
		}
	}
	if got := disp.Events()[before:]; len(got) != 0 {
		t.Fatalf("a refused verb reached the window: %+v", got)
	}
	// The person's words take either kind (from a session that sees it:
	// a tab is its opener's alone).
	for _, id := range []string{win, tab} {
		wantCode(t, td.call(t, Request{Verb: "takeover", Session: "a", Target: id}.With(args.Operator{User: "alice"})), "")
		wantCode(t, td.call(t, Request{Verb: "handback", Session: "a", Target: id}.With(args.Operator{User: "alice"})), "")
	}
	// Both kinds are listed, each with the roads its own probe gives.
	list := td.call(t, Request{Verb: "list", Session: "a"})
	roads := map[target.ID]target.Road{}
	for _, ti := range list.Targets {
		for _, c := range ti.Capabilities {
			if c.Verb == target.VerbClickRef {
				roads[ti.ID] = c.Road
			}
		}
	}
	if roads[target.ID(win)] != target.RoadTree || roads[target.ID(tab)] != target.RoadPoint {
		t.Fatalf("click @ref roads per kind: %v", roads)
	}
}

// The shared verbs are one verb set: on a tab they reach it through the
// browser's words, with the tab's refs (interactive nodes first) and its
// own roads.
func TestSharedVerbsOnATab(t *testing.T) {
	br := kindtest.NewBrowser()
	td := startKinds(t, "", br, &kindtest.Provider{})
	wantCode(t, td.call(t, Request{Verb: "browser.snapshot", Session: "a"}), target.CodeNoTab)
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})), "")
	snap := td.call(t, Request{Verb: "browser.snapshot", Session: "a", JSON: true})
	wantCode(t, snap, "")
	refOf := map[string]string{}
	snap.Snapshot.Root.Walk(func(n *target.Node, _ int) bool { refOf[n.Name] = n.Ref; return true })
	// The actionable nodes (the button, the entry) first, then the rest.
	if refOf["Alpha"] != "@e1" || refOf["Name"] != "@e2" || refOf["Press area"] != "@e3" {
		t.Fatalf("refs %v", refOf)
	}
	click := td.call(t, Request{Verb: "browser.click", Session: "a"}.With(args.Click{Ref: "@e1"}))
	wantCode(t, click, "")
	if click.By != target.RoadPoint {
		t.Fatalf("a tab's click @ref by %q", click.By)
	}
	typed := td.call(t, Request{Verb: "browser.type", Session: "a"}.With(args.Type{Ref: "@e2", Text: strings.Repeat("x", 20)}))
	wantCode(t, typed, "")
	if typed.By != target.RoadKeys {
		t.Fatalf("a tab's type @ref by %q", typed.By)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.fill", Session: "a"}.With(args.Fill{Ref: "@e2", Text: "f"})), "")
	wantCode(t, td.call(t, Request{Verb: "browser.click", Session: "a"}.With(args.Click{Ref: "@e99"})), target.CodeBadRef)
	var kinds []string
	for _, e := range br.Events() {
		if e.Kind != "navigate" {
			kinds = append(kinds, e.Kind+":"+e.Key)
		}
	}
	if got := strings.Join(kinds, ","); got != "action:button,focus:entry,type:,type:,type:,fill:entry" {
		t.Fatalf("what the tab received: %s", got)
	}
	// A page that retitles itself: the listings read it afresh.
	br.Tabs()[0].Retitle("Retitled")
	tabs := td.call(t, Request{Verb: "browser.tab", Session: "a"})
	if len(tabs.Targets) != 1 || tabs.Targets[0].Title != "Retitled" {
		t.Fatalf("tab list after the page retitled itself: %+v", tabs.Targets)
	}
	if got := td.call(t, Request{Verb: "browser.get", Session: "a"}.With(args.Get{What: "title"})); got.Text != "Retitled" {
		t.Fatalf("get title: %q", got.Text)
	}
	// Another session sees neither the tab nor its refs.
	list := td.call(t, Request{Verb: "browser.tab", Session: "b"})
	wantCode(t, list, "")
	if len(list.Targets) != 0 {
		t.Fatalf("b lists %+v", list.Targets)
	}
}

// Several displays in one daemon: each is started on its first open, has
// its own record (reattached after a restart), its own input slot (a type
// held on one does not hold a key on the other), and dies alone.
func TestSeveralDisplays(t *testing.T) {
	alpha, beta := &kindtest.Provider{NameIs: "alpha"}, &kindtest.Provider{NameIs: "beta"}
	dir := t.TempDir()
	td := startKinds(t, dir, nil, alpha, beta)
	a := string(td.open(t, "s")) // the first display is the default
	if alpha.Started() != 1 || beta.Started() != 0 {
		t.Fatalf("started alpha %d, beta %d", alpha.Started(), beta.Started())
	}
	resp := td.call(t, Request{Verb: "open", Session: "s"}.With(args.Open{App: "fake-b", Display: "beta"}))
	wantCode(t, resp, "")
	b := string(resp.Target.ID)
	if beta.Started() != 1 || !strings.Contains(resp.Did, "(beta)") {
		t.Fatalf("open --display beta: %+v (beta started %d)", resp, beta.Started())
	}
	resp = td.call(t, Request{Verb: "open", Session: "s"}.With(args.Open{App: "fake-c", Display: "gamma"}))
	wantCode(t, resp, target.CodeNoDisplay)
	if !strings.Contains(resp.Message, "alpha, beta") {
		t.Fatalf("no_display does not list the displays: %q", resp.Message)
	}
	if st := td.call(t, Request{Verb: "status", Session: "s"}).Status; strings.Count(st.Display, ":") != 2 {
		t.Fatalf("status names the displays %q", st.Display)
	}

	// One keyboard per display: a type held in flight on alpha does not
	// hold a key on beta.
	gate := alpha.Display().GateTyping()
	typed := make(chan Response, 1)
	go func() {
		typed <- td.call(t, Request{Verb: "type", Session: "s", Target: a}.With(args.Type{Text: strings.Repeat("x", 16)}))
	}()
	gate <- struct{}{}
	done := make(chan Response, 1)
	go func() {
		done <- td.call(t, Request{Verb: "key", Session: "s", Target: b}.With(args.Key{Chord: "Return"}))
	}()
	select {
	case r := <-done:
		wantCode(t, r, "")
	case <-time.After(10 * time.Second):
		t.Fatal("a key on beta waited for a type on alpha")
	}
	close(gate)
	wantCode(t, <-typed, "")

	// Each display has its own record, and a restarted daemon re-attaches
	// to both.
	st, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Backends map[string]json.RawMessage `json:"backends"`
		Targets  []target.Target            `json:"targets"`
	}
	json.Unmarshal(st, &state)
	var recs map[string]json.RawMessage
	json.Unmarshal(state.Backends[displays.DisplaysKey], &recs)
	if len(recs) != 2 || recs["alpha"] == nil || recs["beta"] == nil {
		t.Fatalf("the displays' records: %s", state.Backends[displays.DisplaysKey])
	}
	for _, rec := range state.Targets {
		if rec.Key == "" || (rec.Display != "alpha" && rec.Display != "beta") {
			t.Fatalf("a window names no display or key: %+v", rec)
		}
	}
	td.Detach()
	<-td.done
	td2 := startKinds(t, dir, nil, alpha, beta)
	if l := td2.call(t, Request{Verb: "list", Session: "s"}); len(l.Targets) != 2 {
		t.Fatalf("after the restart: %+v", l.Targets)
	}
	if alpha.Started() != 1 || beta.Started() != 1 {
		t.Fatal("the restarted daemon started displays instead of re-attaching")
	}

	// beta dies: its window goes, alpha's stays; the next open on beta
	// starts a new one.
	beta.Display().Close()
	wantCode(t, td2.call(t, Request{Verb: "snapshot", Session: "s", Target: b}), target.CodeWindowGone)
	wantCode(t, td2.call(t, Request{Verb: "snapshot", Session: "s", Target: a}), "")
	wantCode(t, td2.call(t, Request{Verb: "open", Session: "s"}.With(args.Open{App: "fake-b", Display: "beta"})), "")
	if beta.Started() != 2 || alpha.Started() != 1 {
		t.Fatalf("started alpha %d, beta %d", alpha.Started(), beta.Started())
	}
}

// A daemon of an earlier version kept one display under "display" and its
// windows by X id: a daemon of this version finds the display and its
// windows again, leases and shares included.
func TestLegacyDisplayRecord(t *testing.T) {
	p := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, p, dir)
	id := td.open(t, "s")
	wantCode(t, td.call(t, Request{Verb: "share", Session: "s", Target: string(id)}.With(args.Share{With: "other"})), "")
	td.Detach()
	<-td.done
	// Rewrite the state as the earlier version wrote it.
	path := filepath.Join(dir, stateFile)
	b, _ := os.ReadFile(path)
	var st map[string]any
	json.Unmarshal(b, &st)
	backends := st["backends"].(map[string]any)
	backends["display"] = backends[displays.DisplaysKey].(map[string]any)["fake"]
	delete(backends, displays.DisplaysKey)
	for _, tg := range st["targets"].([]any) {
		m := tg.(map[string]any)
		delete(m, "key")
		m["display"] = ":91"
		m["xid"] = 0x400001
	}
	b, _ = json.Marshal(st)
	os.WriteFile(path, b, 0o600)

	td2 := startDaemon(t, p, dir)
	if p.Started() != 1 {
		t.Fatal("the earlier version's display was not re-attached")
	}
	l := td2.call(t, Request{Verb: "list", Session: "other"})
	if len(l.Targets) != 1 || l.Targets[0].ID != id || l.Targets[0].Holder != "s" {
		t.Fatalf("the earlier version's window: %+v", l.Targets)
	}
	wantCode(t, td2.call(t, Request{Verb: "snapshot", Session: "s", Target: string(id)}), "")
	td2.open(t, "s")
	if p.Started() != 1 {
		t.Fatal("open started a second display")
	}
}

// A person's input from the live view passes the gate agent verbs pass:
// only the user who took the target over drives it, and the event waits
// for the target's lock like a verb; a click raises its window first.
func TestLiveInputPassesTheGate(t *testing.T) {
	p := &kindtest.Provider{}
	td := startDaemon(t, p, "")
	id := td.open(t, "agent")
	ctx := t.Context()
	ev := kind.Input{Type: kind.InputClick, X: 5, Y: 6, Button: 1, Count: 1}
	if err := td.liveHands().Input(ctx, id, "viewer-1", ev); target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("input before a takeover: %v", err)
	}
	wantCode(t, td.liveHands().Takeover(ctx, id, "viewer-1"), "")
	if err := td.liveHands().Input(ctx, id, "viewer-2", ev); target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("input of a user who did not take over: %v", err)
	}
	// The target's lock is held (a verb of ours on it): the event waits.
	e := td.entryOf(id)
	e.gate <- struct{}{}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	err := td.liveHands().Input(short, id, "viewer-1", ev)
	cancel()
	<-e.gate
	if target.CodeOf(err) != target.CodeTimeout {
		t.Fatalf("input past a held lock: %v", err)
	}
	from := len(p.Display().Events())
	if err := td.liveHands().Input(ctx, id, "viewer-1", ev); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range p.Display().Events()[from:] {
		kinds = append(kinds, e.Kind+":"+e.Text)
	}
	if got := strings.Join(kinds, ","); got != "raise:,input:click" {
		t.Fatalf("what the window received: %s", got)
	}
	// A handback while an event waits for the lock: the event is refused
	// when its turn comes, not delivered to the agents' target.
	e.gate <- struct{}{}
	waited := make(chan error, 1)
	go func() { waited <- td.liveHands().Input(ctx, id, "viewer-1", ev) }()
	time.Sleep(100 * time.Millisecond)
	d2 := td.liveHands().Handback(ctx, id, "viewer-1")
	wantCode(t, d2, "")
	from = len(p.Display().Events())
	<-e.gate
	if err := <-waited; target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("an event that waited past a handback: %v", err)
	}
	for _, ev := range p.Display().Events()[from:] {
		if ev.Kind == "input" {
			t.Fatalf("it was delivered: %+v", ev)
		}
	}
	wantCode(t, td.liveHands().Takeover(ctx, id, "viewer-1"), "")
	// Outside the window: refused, nothing delivered.
	if err := td.liveHands().Input(ctx, id, "viewer-1", kind.Input{Type: kind.InputClick, X: 900, Y: 6, Button: 1}); target.CodeOf(err) != target.CodeOutsideWindow {
		t.Fatalf("input outside the window: %v", err)
	}
	wantCode(t, td.liveHands().Handback(ctx, id, "viewer-1"), "")
	if err := td.liveHands().Input(ctx, id, "viewer-1", ev); target.CodeOf(err) != target.CodeHeld {
		t.Fatalf("input after the handback: %v", err)
	}
}

// A window's answers keep naming the program it was opened with after its
// backend re-reads it (which knows its title and bounds, not its program).
func TestWindowKeepsItsApp(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), "")
	resp := td.call(t, Request{Verb: "key", Session: "a", Target: id}.With(args.Key{Chord: "a"}))
	if resp.Target == nil || resp.Target.App != "fake-app" {
		t.Fatalf("the answer names %+v", resp.Target)
	}
	if l := td.call(t, Request{Verb: "list", Session: "a"}); len(l.Targets) != 1 || l.Targets[0].App != "fake-app" {
		t.Fatalf("list %+v", l.Targets)
	}
	closed := td.call(t, Request{Verb: "close", Session: "a", Target: id})
	if !strings.Contains(closed.Did, "stopped fake-app") {
		t.Fatalf("close: %q", closed.Did)
	}
}

// A verb that runs out of time mid-way says timeout, with how far it got —
// not an internal failure.
func TestVerbTimeoutIsTimeout(t *testing.T) {
	p := &kindtest.Provider{}
	td := startDaemonWith(t, p, "", func(c *Config) { c.VerbTimeout = 300 * time.Millisecond })
	id := string(td.open(t, "a"))
	gate := p.Display().GateTyping()
	go func() { gate <- struct{}{} }() // the first chunk goes in, the next waits past the deadline
	resp := td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Text: strings.Repeat("x", 20)}))
	wantCode(t, resp, target.CodeTimeout)
	if resp.Facts["partial"] != true || resp.Facts["typed"] != float64(8) {
		t.Fatalf("a timed-out type: %+v", resp)
	}
}
