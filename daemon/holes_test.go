package daemon

import (
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

// Issue 11's misleading codes and silent successes, on the doubles.

// A tab handle that never named a tab is unknown_target, not tab_gone "has
// closed"; a tab that did close is tab_gone; tab close without an id closes
// the current tab (as its help says), and with none is no_tab. Before,
// tab tab:NOPE answered tab_gone and tab close answered unknown_target
// about win:N while a current tab existed.
func TestTabHandles(t *testing.T) {
	br := kindtest.NewBrowser()
	td := startKinds(t, "", br, &kindtest.Provider{})
	for _, action := range []string{"select", "close"} {
		r := td.call(t, Request{Verb: "browser.tab", Session: "a", Target: "tab:NOPE"}.With(args.Tab{Action: action}))
		wantCode(t, r, target.CodeUnknownTarget)
		if strings.Contains(r.Message, "closed") {
			t.Fatalf("tab %s tab:NOPE: %q", action, r.Message)
		}
	}
	open := td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, open, "")
	first := open.Target.ID
	second := td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "new"}))
	wantCode(t, second, "")
	// The current tab is the second: a bare close closes it, not the first.
	closed := td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "close"}))
	wantCode(t, closed, "")
	if closed.Target == nil || closed.Target.ID != second.Target.ID || !strings.Contains(closed.Did, string(second.Target.ID)) {
		t.Fatalf("tab close closed %+v (did %q), want the current tab %s", closed.Target, closed.Did, second.Target.ID)
	}
	if tabs := br.Tabs(); len(tabs) != 2 || tabs[0].Closed() || !tabs[1].Closed() {
		t.Fatalf("%d tabs; the first closed %v, the second %v: want only the second closed", len(tabs), tabs[0].Closed(), tabs[len(tabs)-1].Closed())
	}
	wantCode(t, td.call(t, Request{Verb: "browser.tab", Session: "a"}.With(args.Tab{Action: "close"})), target.CodeNoTab)
	for _, action := range []string{"select", "close"} {
		wantCode(t, td.call(t, Request{Verb: "browser.tab", Session: "a", Target: string(second.Target.ID)}.With(args.Tab{Action: action})), target.CodeTabGone)
	}
	wantCode(t, td.call(t, Request{Verb: "browser.tab", Session: "a", Target: string(first)}.With(args.Tab{Action: "select"})), "")
}

// A text holding U+0000 is refused before any road, on both kinds and every
// verb that takes a text: a tab's type used to drop it and count it typed,
// a window's type @ref answered stale_ref.
func TestNULTextRefused(t *testing.T) {
	p, br := &kindtest.Provider{}, kindtest.NewBrowser()
	td := startKinds(t, "", br, p)
	win := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})), "")
	wins, tabs := len(p.Display().Events()), len(br.Events())
	for _, req := range []Request{
		Request{Verb: "type", Target: win}.With(args.Type{Text: "ab\x00c"}),
		Request{Verb: "type", Target: win}.With(args.Type{Ref: "@e1", Text: "\x00"}),
		Request{Verb: "browser.type"}.With(args.Type{Text: "ab\x00c"}),
		Request{Verb: "browser.fill"}.With(args.Fill{Ref: "@e1", Text: "x\x00"}),
	} {
		req.Session = "a"
		r := td.call(t, req)
		wantCode(t, r, target.CodeBadRequest)
		if !strings.Contains(r.Message, "NUL") {
			t.Fatalf("%s: %q does not say why", req.Verb, r.Message)
		}
	}
	if got := p.Display().Events()[wins:]; len(got) != 0 {
		t.Fatalf("the window received %+v", got)
	}
	if got := br.Events()[tabs:]; len(got) != 0 {
		t.Fatalf("the tab received %+v", got)
	}
}

// A display whose server stopped answering holds neither list nor a verb
// for the X calls' deadlines: list answers its windows as last read,
// marked, and a verb is refused display_not_answering; once it answers
// again both are as before. Before, list and every window verb waited 30 s
// (here the call's own 10 s deadline would have cut them).
func TestStoppedDisplay(t *testing.T) {
	p := &kindtest.Provider{}
	td := startKinds(t, "", nil, p)
	a, b := td.open(t, "a"), td.open(t, "a")
	disp := p.Display()
	disp.Stop()
	for range 2 { // the first list finds it out; the second asks it again
		list := td.call(t, Request{Verb: "list", Session: "a"})
		wantCode(t, list, "")
		if len(list.Targets) != 2 {
			t.Fatalf("list of a stopped display: %+v", list.Targets)
		}
		for _, ti := range list.Targets {
			if ti.NotAnswering == "" || ti.Title == "" {
				t.Fatalf("%s is not marked, or lost its facts: %+v", ti.ID, ti)
			}
		}
	}
	before := len(disp.Events())
	for _, req := range []Request{Request{Verb: "snapshot", Target: string(a)}, Request{Verb: "key", Target: string(b)}.With(args.Key{Chord: "a"}), Request{Verb: "screenshot", Target: string(a)}} {
		req.Session = "a"
		r := td.call(t, req)
		wantCode(t, r, target.CodeDisplayNotAnswering)
		if r.Facts["since"] == nil {
			t.Fatalf("%s: %+v", req.Verb, r)
		}
	}
	if got := disp.Events()[before:]; len(got) != 0 {
		t.Fatalf("the stopped display received %+v", got)
	}
	disp.Cont()
	list := td.call(t, Request{Verb: "list", Session: "a"})
	for _, ti := range list.Targets {
		if ti.NotAnswering != "" {
			t.Fatalf("%s still marked after the display answers: %+v", ti.ID, ti)
		}
	}
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: string(b)}.With(args.Key{Chord: "a"})), "")
}
