package cdp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/testenv"
)

// One headless browser per test binary; each test takes its own context.
var shared struct {
	once sync.Once
	b    *cdp.Browser
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if b := shared.b; b != nil {
		pid := b.PID()
		if err := b.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "cdp_test: closing the shared browser: %v\n", err)
			code = 1
		}
		if left := cdp.GroupProcesses(pid); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "cdp_test: the shared browser left processes %v\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

// needChromium skips (or, with VIBESPACE_INTEGRATION=1, fails) when there is
// no Chromium to test against.
func needChromium(t testing.TB) {
	t.Helper()
	testenv.NeedIntegration(t, "chromium")
}

// sharedBrowser starts the binary's browser on first use.
func sharedBrowser(t testing.TB) *cdp.Browser {
	t.Helper()
	needChromium(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		// The browser outlives this call: its lifetime is the binary's.
		shared.b, shared.err = cdp.Launch(context.WithoutCancel(ctx), cdp.Options{Headless: true, StartTimeout: 60 * time.Second})
	})
	if shared.err != nil {
		t.Fatalf("launch: %v", shared.err)
	}
	return shared.b
}

// newContext gives the test a fresh browser context, disposed at cleanup.
func newContext(t testing.TB) *cdp.Context {
	t.Helper()
	b := sharedBrowser(t)
	c, err := b.NewContext(ctxT(t))
	if err != nil {
		t.Fatalf("new context: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("closing context: %v", err)
		}
	})
	return c
}

// ctxT is the test's context with a deadline, so no call can hang a test.
func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// server serves the test pages on 127.0.0.1.
func server(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, testPage)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Other page</title><h1>Other</h1><p>the other page</p>`)
	})
	mux.HandleFunc("/untitled", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><p>a page with no title</p>`)
	})
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>set</title><p>cookie set</p>`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "cookies: %s", r.Header.Get("Cookie"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

const testPage = `<!doctype html>
<html><head><title>Anchor test page</title>
<style>
  #wrap { position: relative; display: inline-block; }
  #overlay { position: absolute; inset: 0; background: rgba(0,0,0,0.4); }
</style></head>
<body>
<h1>Anchor test page</h1>
<label>Name <input id="name" type="text"></label>
<label><input id="agree" type="checkbox"> I agree</label>
<button id="inc" onclick="window.count = (window.count || 0) + 1">Increment</button>
<button id="dis" disabled>Disabled button</button>
<div id="wrap"><button id="under" onclick="window.underClicks = 1">Under the overlay</button><div id="overlay"></div></div>
<button id="doomed">Remove me</button>
<button id="ghost" style="opacity: 0">Ghost</button>
<a href="/other">Other page</a>
<textarea aria-label="Notes"></textarea>
<input id="keys" aria-label="Keys">
<div style="height: 3000px"></div>
<button id="far" onclick="window.farClicks = 1">Far below</button>
</body></html>`
