package tabs

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// page is a tab's backend that loads addresses and goes back; the rest of
// kind.Target is nil (a verb that reached it uses nothing else here).
type page struct {
	kind.Target
	went []string
}

func (p *page) Info(context.Context) (kind.Info, error) { return kind.Info{}, nil }

func (p *page) Navigate(_ context.Context, url string) error {
	p.went = append(p.went, url)
	return nil
}
func (p *page) Back(context.Context) error    { p.went = append(p.went, "back"); return nil }
func (p *page) Forward(context.Context) error { p.went = append(p.went, "forward"); return nil }
func (p *page) Reload(context.Context) error  { p.went = append(p.went, "reload"); return nil }

// browser is a browser double of one context, whose new tabs are pages;
// the rest of kind.Browser is nil.
type browser struct{ kind.Browser }

func (browser) Context(context.Context, kind.BrowserKey) (kind.BrowserContext, func(), error) {
	return browser{}, nil, nil
}

func (browser) NewTab(context.Context) (kind.Target, error) { return &page{}, nil }

// host is a double of the core's hands: one context and its tabs; what
// the tab words did to it is in its fields. It is also the profile words'
// double (Profiles): every choice is sel. The session's current tab is the
// stage's (current).
type host struct {
	sel     Selection
	tabs    []wire.TargetInfo // the session's, in tab order
	others  int
	url     string // where a navigated tab is now
	reached kind.Target
	locked  int     // calls run under the target's lock
	opened  []*page // tabs NewTab opened
	closed  []target.ID
}

func (h *host) Rows() []provider.Row  { return nil }
func (h *host) Browser() kind.Browser { return browser{} }

func (h *host) Registry() (*profile.Registry, error)              { return nil, nil }
func (h *host) Choose(wire.Request) (Selection, error)            { return h.sel, nil }
func (h *host) Gate(wire.Request, args.Args, *Selection) error    { return nil }
func (h *host) RowOf(profile.Profile) provider.Row                { return provider.Row{} }
func (h *host) Attached(profile.Attachment, int) wire.ProfileInfo { return wire.ProfileInfo{} }
func (h *host) Known(*profile.Registry, string, profile.Profile) wire.ProfileInfo {
	return wire.ProfileInfo{}
}
func (h *host) New(wire.Request, args.New) (wire.Response, error) { return wire.Response{}, nil }

func (h *host) Named(*stage.Call, wire.ProfileInfo)           {}
func (h *host) Hold(*stage.Call, func())                      {}
func (h *host) HeadedDisplay(context.Context) (string, error) { return "", nil }
func (h *host) Closed(target.ID) bool                         { return false }
func (h *host) TabKeyed(string) (target.ID, bool)             { return "", false }
func (h *host) AppWindow(string) (target.ID, bool)            { return "", false }

func (h *host) Tab(id target.ID) (kind.BrowserKey, bool) {
	for _, t := range h.tabs {
		if t.ID == id {
			return h.sel.Key, true
		}
	}
	return kind.BrowserKey{}, false
}

func (h *host) Lease(c *stage.Call, id target.ID) error {
	if c.Target == nil || c.Target.ID() != id { // (not the tab AddTab just made c's)
		h.reached = &page{}
	}
	c.Target = stagetest.Of(id)
	return nil
}

func (h *host) AddTab(c *stage.Call, kt kind.Target, _ kind.Info, _ kind.BrowserKey, _ wire.ProfileInfo) target.ID {
	id := target.TabID(len(h.tabs) + 1)
	h.tabs = append(h.tabs, wire.TargetInfo{ID: id})
	h.opened = append(h.opened, kt.(*page))
	c.Target, h.reached = stagetest.Of(id), kt
	return id
}

func (h *host) Reached(c *stage.Call) kind.Target { return h.reached }

func (h *host) Locked(ctx context.Context, c *stage.Call, f func(ctx context.Context) (wire.Response, error)) (wire.Response, error) {
	h.locked++
	resp, err := f(ctx)
	if err != nil {
		return wire.Response{}, err
	}
	return resp, nil
}

// Refresh answers the page a navigated tab shows.
func (h *host) Refresh(context.Context, target.ID) (kind.Info, error) {
	return kind.Info{Title: "A page", App: h.url}, nil
}

func (h *host) Relist(ctx context.Context, c *stage.Call) (kind.Info, error) {
	return kind.Info{Title: "Now", App: h.url}, nil
}

func (h *host) Seen(c *stage.Call) kind.Info { return kind.Info{Title: "Seen", App: h.url} }

func (h *host) NodeText(ctx context.Context, c *stage.Call, ref string) (wire.Response, error) {
	return wire.Response{Text: "text of " + ref}, nil
}

func (h *host) CloseTab(ctx context.Context, c *stage.Call) (*wire.TargetInfo, error) {
	id := c.Target.ID()
	h.closed = append(h.closed, id)
	c.Target, h.reached = nil, nil
	return &wire.TargetInfo{ID: id, Lease: "gone"}, nil
}

// TabsOf lists the session's tabs, then the others', numbered from 100
// (which the session does not see: tabsWith).
func (h *host) TabsOf(kind.BrowserKey) []target.ID {
	var ids []target.ID
	for _, t := range h.tabs {
		ids = append(ids, t.ID)
	}
	for i := range h.others {
		ids = append(ids, target.TabID(100+i))
	}
	return ids
}

func (h *host) Listed(_ context.Context, id target.ID) (*wire.TargetInfo, error) {
	for _, t := range h.tabs {
		if t.ID == id {
			return &t, nil
		}
	}
	return nil, target.Refuse(target.CodeTabGone, "tab %s has closed", id)
}

func (h *host) Display(name string) error                               { return nil }
func (h *host) Open(context.Context, *stage.Call, string) wire.Response { return wire.Response{} }
func (h *host) Stop(context.Context, *stage.Call) error                 { return nil }
func (h *host) ReachWindow(context.Context, *stage.Call) error          { return nil }
func (h *host) CloseWindow(context.Context, *stage.Call) wire.Response  { return wire.Response{} }

// tabsWith is the stage bound to a double whose session "s" has tabs
// (none current), telling what it owes into owed.
func tabsWith(t *testing.T, tabs []wire.TargetInfo, owed *[]notice.Notice) (*Stage, *host) {
	t.Helper()
	h := &host{tabs: tabs, url: "https://example.com/"}
	s, err := New(stage.Env{Now: time.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Owe:   func(n notice.Notice) { *owed = append(*owed, n) },
		Sees:  func(_ string, id target.ID) (seen, known bool) { return id.TabNumber() < 100, true },
		Hands: h}, h)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Stage), h
}

// currentTab is session "s"'s current tab in the double's context.
func currentTab(s *Stage, h *host) target.ID {
	id, _ := s.current.Get("s", h.sel.Key)
	return id
}

func answer(t *testing.T, s *Stage, req wire.Request) (*stage.Call, wire.Response, error) {
	t.Helper()
	if req.Session == "" {
		req.Session = "s"
	}
	c := stagetest.Decoded(&stage.Call{Req: req})
	resp, err := s.Answer(t.Context(), c)
	return c, resp, err
}

// Every verb the stage answers is in the verb table, and a chain of it
// alone is made (stage.Make refuses a verb the table does not list).
func TestVerbsAreTheTables(t *testing.T) {
	if _, err := stage.Make([]stage.Registration{{Name: Name, New: func(env stage.Env) (stage.Stage, error) { return New(env, nil) }}}, stage.Env{}); err != nil {
		t.Fatal(err)
	}
	var s Stage
	for _, v := range s.Verbs() {
		if _, ok := verb.Of(v); !ok || !strings.HasPrefix(v, verb.BrowserPrefix) {
			t.Errorf("%s: in the table %v, want a browser word of it", v, ok)
		}
	}
}

func TestCheck(t *testing.T) {
	var owed []notice.Notice
	s, _ := tabsWith(t, nil, &owed)
	for _, tc := range []struct {
		req  wire.Request
		code target.Code // "" when it passes
	}{
		{wire.Request{Verb: "browser.get"}.With(args.Get{What: "text"}), ""},
		{wire.Request{Verb: "browser.get"}.With(args.Get{What: "html"}), target.CodeBadRequest},
		{wire.Request{Verb: "browser.eval"}.With(args.Eval{Expr: " "}), target.CodeBadRequest},
		{wire.Request{Verb: "browser.eval"}.With(args.Eval{Expr: "1+1"}), ""},
		{wire.Request{Verb: "browser.close"}, target.CodeBadRequest},
		{wire.Request{Verb: "browser.close"}.With(args.Close{Label: "shop"}), ""},
		{wire.Request{Verb: "browser.open"}, ""}, // open checks its URL as it runs
	} {
		// As the core checks a request before it reaches anything: its
		// arguments' own rules, then the stage's.
		c := stagetest.Decoded(&stage.Call{Req: tc.req})
		err := c.Args.Validate()
		if err == nil {
			err = s.Check(c)
		}
		if got := target.CodeOf(err); got != tc.code {
			t.Errorf("%s %+v: %q, want %q", tc.req.Verb, tc.req, got, tc.code)
		}
	}
}

func TestOpenWithoutTabOpensOne(t *testing.T) {
	var owed []notice.Notice
	s, h := tabsWith(t, nil, &owed)
	if _, _, err := answer(t, s, wire.Request{Verb: "browser.open"}.With(args.OpenURL{URL: " "})); target.CodeOf(err) != target.CodeBadRequest {
		t.Fatalf("open with no URL: %v, want bad_request", err)
	}
	c, resp, err := answer(t, s, wire.Request{Verb: "browser.open"}.With(args.OpenURL{URL: "https://example.com/"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.opened) != 1 || len(h.opened[0].went) != 1 || h.opened[0].went[0] != "https://example.com/" {
		t.Fatalf("tabs opened %d, navigated %+v; want one tab that loaded the URL", len(h.opened), h.opened)
	}
	if c.Target.ID() != "tab:1" || currentTab(s, h) != "tab:1" || h.locked != 1 {
		t.Errorf("reached %s, current %s, locked %d; want tab:1, tab:1, 1", c.Target.ID(), currentTab(s, h), h.locked)
	}
	want := `opened https://example.com/ ("A page") in a new tab tab:1; you hold its lease`
	if resp.Did != want || resp.URL != "https://example.com/" {
		t.Errorf("answer %q (%s), want %q", resp.Did, resp.URL, want)
	}
	// A second open navigates the current tab: no new one.
	if _, resp, err = answer(t, s, wire.Request{Verb: "browser.open"}.With(args.OpenURL{URL: "https://example.com/"})); err != nil {
		t.Fatal(err)
	}
	if len(h.opened) != 1 || !strings.HasPrefix(resp.Did, "opened https://example.com/ (\"A page\") in tab tab:1") {
		t.Errorf("second open: %d tabs opened, answer %q", len(h.opened), resp.Did)
	}
}

func TestOpenAfterTheCurrentTabClosed(t *testing.T) {
	var owed []notice.Notice
	s, h := tabsWith(t, nil, &owed)
	s.current.Set("s", h.sel.Key, "tab:7") // closed meanwhile: the host knows no tab:7
	if _, _, err := answer(t, s, wire.Request{Verb: "browser.open"}.With(args.OpenURL{URL: "https://example.com/"})); err != nil {
		t.Fatalf("open: %v, want a new tab in the gone one's place", err)
	}
	if len(h.opened) != 1 || currentTab(s, h) != "tab:1" {
		t.Errorf("tabs opened %d, current %s; want one, tab:1", len(h.opened), currentTab(s, h))
	}
}

func TestTabList(t *testing.T) {
	var owed []notice.Notice
	s, h := tabsWith(t, []wire.TargetInfo{{ID: "tab:1", Title: "One", App: "https://a/"}, {ID: "tab:3", Title: "Three", App: "https://c/"}}, &owed)
	h.sel.Key.Profile, h.sel.Prof.Label = "bp-1", "shop"
	h.others = 2
	s.current.Set("s", h.sel.Key, "tab:3")
	_, resp, err := answer(t, s, wire.Request{Verb: "browser.tab"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "  tab:1 \"One\" https://a/\n* tab:3 \"Three\" https://c/"; resp.Text != want {
		t.Errorf("list:\n%s\nwant:\n%s", resp.Text, want)
	}
	if want := "2 tab(s) of yours in profile shop (bp-1); 2 other session(s)' tab(s) there are not shown"; resp.Did != want {
		t.Errorf("did %q, want %q", resp.Did, want)
	}
	if len(resp.Targets) != 2 {
		t.Errorf("targets %+v, want two", resp.Targets)
	}
}

func TestTabRefusals(t *testing.T) {
	var owed []notice.Notice
	s, _ := tabsWith(t, []wire.TargetInfo{{ID: "tab:1"}}, &owed)
	for _, tc := range []struct {
		req  wire.Request
		code target.Code
	}{
		{wire.Request{Verb: "browser.tab"}.With(args.Tab{Action: "move"}), target.CodeBadRequest},
		{wire.Request{Verb: "browser.tab", Target: "win:1"}.With(args.Tab{Action: "select"}), target.CodeWrongKind},
		{wire.Request{Verb: "browser.tab", Target: "tab:9"}.With(args.Tab{Action: "select"}), target.CodeUnknownTarget},
		{wire.Request{Verb: "browser.tab"}.With(args.Tab{Action: "close"}), target.CodeNoTab},
	} {
		if _, _, err := answer(t, s, tc.req); target.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v, want %s", tc.req, err, tc.code)
		}
	}
}

func TestTabSelectAndClose(t *testing.T) {
	var owed []notice.Notice
	s, h := tabsWith(t, []wire.TargetInfo{{ID: "tab:1"}, {ID: "tab:2"}}, &owed)
	_, resp, err := answer(t, s, wire.Request{Verb: "browser.tab", Target: "tab:2"}.With(args.Tab{Action: "select"}))
	if err != nil {
		t.Fatal(err)
	}
	if currentTab(s, h) != "tab:2" || resp.Did != `tab tab:2 ("Seen") is your current tab` {
		t.Errorf("current %s, answer %q", currentTab(s, h), resp.Did)
	}
	// A bare close closes the current tab, and the audit row names it.
	c, resp, err := answer(t, s, wire.Request{Verb: "browser.tab"}.With(args.Tab{Action: "close"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.closed) != 1 || h.closed[0] != "tab:2" || c.Req.Target != "tab:2" || c.Target != nil {
		t.Errorf("closed %v, request's target %q, reached %v; want tab:2, tab:2, none", h.closed, c.Req.Target, c.Target)
	}
	if resp.Did != "closed tab tab:2" || resp.Target == nil || resp.Target.Lease != "gone" {
		t.Errorf("answer %q, target %+v", resp.Did, resp.Target)
	}
}

func TestGetAndNavigation(t *testing.T) {
	var owed []notice.Notice
	s, h := tabsWith(t, []wire.TargetInfo{{ID: "tab:1"}}, &owed)
	p := &page{}
	h.reached = p
	reached := func(req wire.Request) (wire.Response, error) {
		req.Session = "s"
		return s.Answer(t.Context(), stagetest.Decoded(&stage.Call{Req: req, Target: stagetest.Of("tab:1")}))
	}
	if resp, err := reached(wire.Request{Verb: "browser.get"}.With(args.Get{What: "url"})); err != nil || resp.URL != h.url || resp.Text != h.url {
		t.Errorf("get url: %+v, %v", resp, err)
	}
	if resp, err := reached(wire.Request{Verb: "browser.get"}.With(args.Get{What: "title"})); err != nil || resp.Text != "Now" {
		t.Errorf("get title: %+v, %v", resp, err)
	}
	if resp, err := reached(wire.Request{Verb: "browser.get"}.With(args.Get{What: "text", Ref: "@e3"})); err != nil || resp.Text != "text of @e3" {
		t.Errorf("get text @e3: %+v, %v", resp, err)
	}
	if _, err := reached(wire.Request{Verb: "browser.get"}.With(args.Get{What: "text"})); target.CodeOf(err) != target.CodeNoText {
		t.Errorf("get text of a page double that reads nothing: %v, want no_text", err)
	}
	resp, err := reached(wire.Request{Verb: "browser.back"})
	if err != nil || resp.Did != `went back: https://example.com/ ("A page")` || len(p.went) != 1 || p.went[0] != "back" {
		t.Errorf("back: %+v, %v, went %v", resp, err, p.went)
	}
	if _, err := reached(wire.Request{Verb: "browser.eval"}.With(args.Eval{Expr: "1"})); target.CodeOf(err) != target.CodeBadRequest {
		t.Errorf("eval on a page double that evaluates nothing: %v, want bad_request", err)
	}
	if _, err := reached(wire.Request{Verb: "browser.wait"}.With(args.Wait{Text: "x"})); target.CodeOf(err) != target.CodeBadRequest {
		t.Errorf("wait on a page double that cannot be waited on: %v, want bad_request", err)
	}
	if h.locked != 5 {
		t.Errorf("%d verbs ran under the tab's lock, want 5 (the refusals before it take none)", h.locked)
	}
}

// Lost tells each session once, naming every tab it could address in tab
// order, with its address as kept.
func TestLost(t *testing.T) {
	var owed []notice.Notice
	s, _ := tabsWith(t, nil, &owed)
	s.Lost([]target.Target{
		{ID: "tab:4", Origin: "a", Exposure: []string{"a", "b"}},
		{ID: "tab:2", Origin: "a", App: "https://example.com/x"},
		{ID: "tab:5"}, // nobody's: nobody is told
	})
	if len(owed) != 2 {
		t.Fatalf("owed %+v, want one notice for a and one for b", owed)
	}
	if n := owed[0]; n.Session != "a" || n.Target != "tab:2" || n.Text != "tab:2 (https://example.com/x) and tab:4 were lost when the daemon restarted" {
		t.Errorf("a is owed %+v", n)
	}
	if n := owed[1]; n.Session != "b" || n.Target != "tab:4" || n.Text != "tab:4 was lost when the daemon restarted" {
		t.Errorf("b is owed %+v", n)
	}
}
