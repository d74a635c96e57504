package cdp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	proto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/vibespace/vibespace/cdp"
)

// An error from the browser is a typed *cdp.Error with the CDP code.
func TestCallError(t *testing.T) {
	t.Parallel()
	b := sharedBrowser(t)
	err := b.Conn().Call(ctxT(t), "Nope.nothing", nil, nil)
	var e *cdp.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %#v, want *cdp.Error", err)
	}
	if e.Code != -32601 || e.Method != "Nope.nothing" || e.Message == "" {
		t.Fatalf("error = %+v", e)
	}
}

// A call honours its context.
func TestCallCancelled(t *testing.T) {
	t.Parallel()
	b := sharedBrowser(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := b.Conn().Call(ctx, "Browser.getVersion", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// The generated commands and events of cdproto run over our connection in
// flat mode: navigate a tab by its session and receive its load event.
func TestGeneratedCommandsAndEvents(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	srv := server(t)
	ctx := ctxT(t)
	tab, err := c.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ectx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	loads := proto.Events(ectx, tab.Session(), page.LoadEventFired)
	if _, err := proto.Call(ctx, tab.Session(), page.Navigate, page.NavigateParams{URL: srv.URL + "/other"}); err != nil {
		t.Fatal(err)
	}
	for _, err := range loads {
		if err != nil {
			t.Fatalf("waiting for the load event: %v", err)
		}
		break
	}
	res, err := proto.Call(ctx, tab.Session(), runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Result.Value); got != `"Other page"` {
		t.Fatalf("title = %s", got)
	}
}
