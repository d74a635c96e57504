package cdp_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// Navigate, back, forward and reload each land on the expected page.
func TestHistory(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	srv := server(t)
	ctx := ctxT(t)
	tab, err := c.NewTab(ctx, srv.URL+"/page")
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, tab.Forward(ctx), target.CodeBadRequest)
	if err := tab.Navigate(ctx, srv.URL+"/other"); err != nil {
		t.Fatal(err)
	}
	title := func(want string) {
		t.Helper()
		if got, err := tab.Title(ctx); err != nil || got != want {
			t.Fatalf("title = %q (%v), want %q", got, err, want)
		}
	}
	title("Other page")
	if err := tab.Back(ctx); err != nil {
		t.Fatal(err)
	}
	title("Anchor test page")
	if err := tab.Forward(ctx); err != nil {
		t.Fatal(err)
	}
	title("Other page")
	if _, err := tab.Eval(ctx, "document.title = 'changed'"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	title("Other page")
	u, err := tab.URL(ctx)
	if err != nil || u != srv.URL+"/other" {
		t.Fatalf("url = %q (%v)", u, err)
	}
}

// A URL that does not load is navigation_failed.
func TestNavigateFails(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	srv := server(t)
	url := srv.URL
	srv.Close() // nothing listens there now
	ctx := ctxT(t)
	tab, err := c.NewTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, tab.Navigate(ctx, url+"/page"), target.CodeNavigationFailed)
}

// Wait returns once a selector, text or URL shows up, and times out with a
// refusal when it never does.
func TestWait(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	if _, err := tab.Eval(ctx, `setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'arrived late'; document.body.prepend(p); }, 200)`); err != nil {
		t.Fatal(err)
	}
	if err := tab.Wait(ctx, cdp.WaitFor{Selector: "#late"}); err != nil {
		t.Fatal(err)
	}
	if err := tab.Wait(ctx, cdp.WaitFor{Text: "arrived late"}); err != nil {
		t.Fatal(err)
	}
	if err := tab.Wait(ctx, cdp.WaitFor{URL: "/page"}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	wantCode(t, tab.Wait(short, cdp.WaitFor{Selector: "#never"}), target.CodeTimeout)
	wantCode(t, tab.Wait(ctx, cdp.WaitFor{Selector: "##bad"}), target.CodeScriptError)
	wantCode(t, tab.Wait(ctx, cdp.WaitFor{}), target.CodeBadRequest)
}

// Eval returns JSON values; a throw is script_error.
func TestEval(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	v, err := tab.Eval(ctx, `({a: 1, b: [true, "x"]})`)
	if err != nil {
		t.Fatal(err)
	}
	if string(v) != `{"a":1,"b":[true,"x"]}` {
		t.Fatalf("value %s", v)
	}
	v, err = tab.Eval(ctx, `Promise.resolve(42)`)
	if err != nil || string(v) != "42" {
		t.Fatalf("awaited value %s (%v)", v, err)
	}
	_, err = tab.Eval(ctx, `throw new Error("boom")`)
	wantCode(t, err, target.CodeScriptError)
	if !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
}

// Screenshot is a PNG of the viewport; Scroll moves the page.
func TestScreenshotAndScroll(t *testing.T) {
	t.Parallel()
	tab := openPage(t)
	ctx := ctxT(t)
	png, err := tab.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 1000 {
		t.Fatalf("screenshot is %d bytes starting %q", len(png), png[:min(8, len(png))])
	}
	if err := tab.Scroll(ctx, 0, 500, nil); err != nil {
		t.Fatal(err)
	}
	// The wheel scrolls asynchronously; the page says when it moved.
	if _, err := tab.Eval(ctx, `new Promise(r => { const f = () => window.scrollY > 0 ? r() : requestAnimationFrame(f); f(); })`); err != nil {
		t.Fatal(err)
	}
}
