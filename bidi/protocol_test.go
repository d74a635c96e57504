package bidi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
)

// newTab opens a tab in a user context of the test's own, closed after it.
func newTab(t *testing.T, ctx context.Context, c *bidi.Conn) (bidi.UserContext, bidi.Context) {
	t.Helper()
	uc, err := c.CreateUserContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.RemoveUserContext(cctx, uc); err != nil {
			t.Errorf("remove user context: %v", err)
		}
	})
	tab, err := c.CreateTab(ctx, uc)
	if err != nil {
		t.Fatal(err)
	}
	return uc, tab
}

// TestNavigateInUserContext: a tab of a new user context loads a page
// served on the launcher's loopback (through the relay's proxy: the
// browser's own loopback is another), the site sees the request, and the
// tree names the tab, its URL and its user context.
func TestNavigateInUserContext(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := newSite(t, map[string]string{"/hello": `<title>Hello there</title><p id=p>hi</p>`})
	uc, tab := newTab(t, ctx, c)
	nav, err := c.Navigate(ctx, tab, s.URL+"/hello?x=1", bidi.ReadyComplete)
	if err != nil {
		t.Fatal(err)
	}
	if nav.URL != s.URL+"/hello?x=1" {
		t.Errorf("navigated to %q", nav.URL)
	}
	s.waitFor(t, ctx, "GET /hello?x=1")
	tree, err := c.GetTree(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, ci := range tree {
		if ci.Context == tab {
			found = true
			if ci.URL != nav.URL || ci.UserContext != uc {
				t.Errorf("tree: tab %s at %q in %q, want %q in %q", tab, ci.URL, ci.UserContext, nav.URL, uc)
			}
		}
	}
	if !found {
		t.Errorf("the tree %+v has no tab %s", tree, tab)
	}
	v, err := c.Evaluate(ctx, bidi.Target{Context: tab}, "document.title")
	if err != nil {
		t.Fatal(err)
	}
	if title, _ := v.String(); title != "Hello there" {
		t.Errorf("title %q (%+v)", title, v)
	}
}

// TestUserContextsIsolated: a cookie a page sets in one user context is
// sent by that context's next request and not by another context's: the
// site's log is the oracle.
func TestUserContextsIsolated(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := newSite(t, map[string]string{"/set": `<script>document.cookie = "who=one; path=/"</script>`, "/look": `ok`})
	_, one := newTab(t, ctx, c)
	_, two := newTab(t, ctx, c)
	if _, err := c.Navigate(ctx, one, s.URL+"/set", bidi.ReadyComplete); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Navigate(ctx, one, s.URL+"/look?tab=one", bidi.ReadyComplete); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Navigate(ctx, two, s.URL+"/look?tab=two", bidi.ReadyComplete); err != nil {
		t.Fatal(err)
	}
	if l := s.waitFor(t, ctx, "GET /look?tab=one"); !strings.HasSuffix(l, "cookie=who=one") {
		t.Errorf("the first context's request: %q, want its cookie", l)
	}
	if l := s.waitFor(t, ctx, "GET /look?tab=two"); !strings.HasSuffix(l, "cookie=") {
		t.Errorf("the second context's request: %q, want no cookie", l)
	}
}

const formPage = `<!doctype html><style>body{margin:0} button{position:absolute;left:20px;top:20px;width:120px;height:40px}
input{position:absolute;left:20px;top:100px;width:200px;height:30px}</style>
<button id=b onclick="fetch('/clicked?by=' + event.isTrusted)">Press</button>
<form action=/submit><input id=q name=q></form>`

// TestClickAndType: input actions click a button at its place (the page's
// own click handler tells the site, and that the event was trusted: a
// real pointer event, not a script's), then click into a field, type, and
// press Enter: the form's submission carries the text.
func TestClickAndType(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := newSite(t, map[string]string{"/form": formPage})
	_, tab := newTab(t, ctx, c)
	if _, err := c.Navigate(ctx, tab, s.URL+"/form", bidi.ReadyComplete); err != nil {
		t.Fatal(err)
	}
	if err := c.PerformActions(ctx, tab, bidi.Mouse(bidi.MoveTo(80, 40), bidi.Down(0), bidi.Up(0))); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /clicked?by=true")
	if err := c.PerformActions(ctx, tab, bidi.Mouse(bidi.MoveTo(100, 115), bidi.Down(0), bidi.Up(0))); err != nil {
		t.Fatal(err)
	}
	keys := append(bidi.TypeText("héllo wörld"), bidi.KeyDown("\uE007"), bidi.KeyUp("\uE007"))
	if err := c.PerformActions(ctx, tab, bidi.Keyboard(keys...)); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /submit?q=h%C3%A9llo+w%C3%B6rld")
}

// TestScreenshot: the viewport's PNG shows the page's colour.
func TestScreenshot(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := newSite(t, map[string]string{"/blue": `<body style="margin:0;background:rgb(0,128,255)"></body>`})
	_, tab := newTab(t, ctx, c)
	if _, err := c.Navigate(ctx, tab, s.URL+"/blue", bidi.ReadyComplete); err != nil {
		t.Fatal(err)
	}
	data, err := c.Screenshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r := img.Bounds()
	if r.Dx() < 100 || r.Dy() < 100 {
		t.Fatalf("a screenshot of %v", r)
	}
	cr, cg, cb, _ := img.At(r.Min.X+r.Dx()/2, r.Min.Y+r.Dy()/2).RGBA()
	if cr>>8 != 0 || cg>>8 != 128 || cb>>8 != 255 {
		t.Errorf("the middle pixel is %d,%d,%d, want 0,128,255", cr>>8, cg>>8, cb>>8)
	}
}

// TestTypedErrors: what the browser refuses is an *Error with BiDi's code
// and the method; a script that throws is a *ScriptError.
func TestTypedErrors(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	err := c.CloseContext(ctx, "no-such-context")
	var be *bidi.Error
	if !errors.As(err, &be) || be.Code != bidi.CodeNoSuchFrame || be.Method != "browsingContext.close" {
		t.Errorf("closing a context that is not: %v (%#v)", err, be)
	}
	if code := bidi.ErrorCode(c.Call(ctx, "browsingContext.noSuchCommand", nil, nil)); code != bidi.CodeUnknownCommand {
		t.Errorf("an unknown command: code %q", code)
	}
	_, tab := newTab(t, ctx, c)
	_, err = c.CallFunction(ctx, bidi.Target{Context: tab}, `() => { throw new Error("kaboom") }`)
	var se *bidi.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Text, "kaboom") {
		t.Errorf("a throwing function: %v", err)
	}
}

// TestSandboxAndCallJSON: a sandbox sees the page's DOM but not its
// script's globals; CallJSON carries arguments in and a structure out;
// a node's sharedId passed back names the same element.
func TestSandboxAndCallJSON(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := newSite(t, map[string]string{"/g": `<p id=p>para</p><script>window.secret = 42</script>`})
	_, tab := newTab(t, ctx, c)
	if _, err := c.Navigate(ctx, tab, s.URL+"/g", bidi.ReadyComplete); err != nil {
		t.Fatal(err)
	}
	page, box := bidi.Target{Context: tab}, bidi.Target{Context: tab, Sandbox: "vibespace"}
	var got struct {
		Secret any    `json:"secret"`
		Text   string `json:"text"`
		Sum    float64
	}
	fn := `(a, b) => ({secret: window.secret ?? null, text: document.getElementById("p").textContent, Sum: a + b})`
	if err := c.CallJSON(ctx, page, fn, &got, bidi.Num(2), bidi.Num(3)); err != nil {
		t.Fatal(err)
	}
	if got.Secret != float64(42) || got.Text != "para" || got.Sum != 5 {
		t.Errorf("in the page: %+v", got)
	}
	got = struct {
		Secret any    `json:"secret"`
		Text   string `json:"text"`
		Sum    float64
	}{}
	if err := c.CallJSON(ctx, box, fn, &got, bidi.Num(2), bidi.Num(3)); err != nil {
		t.Fatal(err)
	}
	if got.Secret != nil || got.Text != "para" {
		t.Errorf("in the sandbox: %+v, want no secret and the DOM's text", got)
	}
	el, err := c.Evaluate(ctx, box, `document.getElementById("p")`)
	if err != nil || el.SharedID == "" {
		t.Fatalf("a node: %+v %v", el, err)
	}
	v, err := c.CallFunction(ctx, box, `(n) => n.id + ":" + n.textContent`, bidi.Node(el.SharedID))
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := v.String(); s != "p:para" {
		t.Errorf("the node passed back: %q", s)
	}
}

// TestEvents: a subscription to browsingContext.load delivers the load of
// the page navigated to, with its context and URL.
func TestEvents(t *testing.T) {
	b := sharedBrowser(t)
	c := b.Conn()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := newSite(t, map[string]string{"/loaded": `ok`})
	_, tab := newTab(t, ctx, c)
	ev := c.Events("browsingContext.load")
	defer ev.Stop()
	id, err := c.Subscribe(ctx, []string{"browsingContext.load"}, tab)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Unsubscribe(ctx, id)
	if _, err := c.Navigate(ctx, tab, s.URL+"/loaded", bidi.ReadyNone); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case e := <-ev.C():
			var p struct {
				Context bidi.Context `json:"context"`
				URL     string       `json:"url"`
			}
			if err := json.Unmarshal(e.Params, &p); err != nil {
				t.Fatal(err)
			}
			if p.Context == tab && p.URL == s.URL+"/loaded" {
				return
			}
		case <-ctx.Done():
			t.Fatal("no load event of the page")
		}
	}
}
