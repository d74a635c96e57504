package cdp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// Two contexts in one browser share no cookies: a cookie set in one is sent
// by that context only.
func TestContextsDoNotShareCookies(t *testing.T) {
	t.Parallel()
	a, b := newContext(t), newContext(t)
	srv := server(t)
	ctx := ctxT(t)
	ta, err := a.NewTab(ctx, srv.URL+"/set?v=alpha")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.NewTab(ctx, srv.URL+"/echo")
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, tb); strings.Contains(got, "alpha") {
		t.Fatalf("context B sent A's cookie: %q", got)
	}
	if err := ta.Navigate(ctx, srv.URL+"/echo"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ta); !strings.Contains(got, "who=alpha") {
		t.Fatalf("context A lost its own cookie: %q", got)
	}
}

// A context lists, reaches and closes only its own tabs; another's tab is
// not_your_tab, a closed one tab_gone.
func TestContextsDoNotSeeEachOthersTabs(t *testing.T) {
	t.Parallel()
	a, b := newContext(t), newContext(t)
	srv := server(t)
	ctx := ctxT(t)
	ta, err := a.NewTab(ctx, srv.URL+"/other")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if ids := tabIDs(t, a); !slices.Equal(ids, []string{ta.ID()}) {
		t.Fatalf("A lists %v, want only %s", ids, ta.ID())
	}
	if ids := tabIDs(t, b); !slices.Equal(ids, []string{tb.ID()}) {
		t.Fatalf("B lists %v, want only %s", ids, tb.ID())
	}
	_, err = b.Tab(ctx, ta.ID())
	wantCode(t, err, target.CodeNotYourTab)
	if strings.Contains(err.Error(), "Other page") || strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("the refusal tells B about A's tab: %v", err)
	}
	wantCode(t, b.CloseTab(ctx, ta.ID()), target.CodeNotYourTab)
	if _, err := ta.Title(ctx); err != nil {
		t.Fatalf("A's tab after B tried to close it: %v", err)
	}

	if got, err := a.Tab(ctx, ta.ID()); err != nil || got != ta {
		t.Fatalf("A reaching its own tab: %v, %v", got, err)
	}
	if err := a.CloseTab(ctx, ta.ID()); err != nil {
		t.Fatal(err)
	}
	_, err = a.Tab(ctx, ta.ID())
	wantCode(t, err, target.CodeTabGone)
	_, err = ta.Title(ctx)
	wantCode(t, err, target.CodeTabGone)
	_, err = a.Tab(ctx, "0123456789ABCDEF0123456789ABCDEF")
	wantCode(t, err, target.CodeUnknownTarget)
}

func tabIDs(t *testing.T, c *cdp.Context) []string {
	t.Helper()
	tabs, err := c.Tabs(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ti := range tabs {
		ids = append(ids, ti.ID)
	}
	return ids
}

func text(t *testing.T, tab *cdp.Tab) string {
	t.Helper()
	s, err := tab.Text(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, err error, code target.Code) {
	t.Helper()
	if got := target.CodeOf(err); got != code {
		t.Fatalf("err = %v, want refusal %s", err, code)
	}
}

// From a tab's session, the browser-wide CDP domains are refused: it
// cannot list, attach to or close another context's tab.
func TestTabSessionFenced(t *testing.T) {
	t.Parallel()
	a, b := newContext(t), newContext(t)
	ctx := ctxT(t)
	ta, err := a.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	s := ta.Session()
	wantCode(t, s.Call(ctx, "Target.getTargets", nil, nil), target.CodeOutsideContext)
	wantCode(t, s.Call(ctx, "Target.closeTarget", map[string]any{"targetId": tb.ID()}, nil), target.CodeOutsideContext)
	wantCode(t, s.Call(ctx, "Browser.close", nil, nil), target.CodeOutsideContext)
	if _, err := tb.Title(ctx); err != nil {
		t.Fatalf("B's tab: %v", err)
	}
	if err := s.Call(ctx, "Page.bringToFront", nil, nil); err != nil {
		t.Fatalf("a page command on the fenced session: %v", err)
	}
}

// A tab whose page is stuck in a script does not hold up another context's
// tab: its verbs answer while the first is still busy.
func TestSlowTabDoesNotBlockOthers(t *testing.T) {
	a, b := newContext(t), newContext(t)
	srv := server(t)
	ctx := ctxT(t)
	ta, err := a.NewTab(ctx, srv.URL+"/other")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.NewTab(ctx, srv.URL+"/page")
	if err != nil {
		t.Fatal(err)
	}
	busy := make(chan error, 1)
	go func() {
		// Spins until terminated below (or for 60 s).
		_, err := ta.Eval(ctx, `(() => { const end = Date.now() + 60000; while (Date.now() < end) {} })()`)
		busy <- err
	}()
	for range 3 {
		if _, err := tb.Snapshot(ctx, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-busy:
		t.Fatalf("the busy script ended (%v) before B's verbs did: the test proves nothing", err)
	default:
	}
	if err := ta.Session().Call(ctx, "Runtime.terminateExecution", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-busy; err == nil {
		t.Fatal("the terminated script returned no error")
	}
}
