package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// pagesOf lists the URLs of the pages of the browser at endpoint, read over
// its own DevTools (not through the daemon).
func pagesOf(t *testing.T, endpoint string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ws, err := cdp.ResolveEndpoint(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cdp.Connect(ctx, ws, cdp.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var res struct {
		TargetInfos []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"targetInfos"`
	}
	if err := b.Conn().Call(ctx, "Target.getTargets", nil, &res); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" {
			out = append(out, ti.URL)
		}
	}
	return out
}

// TestProviderMCP: browser_new takes provider and endpoint as new
// --provider --endpoint does. A profile of provider cdp at a Chromium the
// test started is opened, read and clicked through the MCP server: the
// page's own script reports the click, and that Chromium's own DevTools
// lists the page (the daemon's browser did not load it). What the daemon
// refuses reaches the client as its typed code: an endpoint missing or
// not a DevTools URL (bad_request), cloud:browserless with no key set
// (no_key), an endpoint that does not answer (provider_unreachable).
func TestProviderMCP(t *testing.T) {
	e := newEnv(t)
	e.serve()
	endpoint := clitest.TheirChromium(t)
	p := newPage(t, "")
	cs := e.client("s1")

	out := ok(t, cs, "browser_new", map[string]any{"label": "theirs", "provider": "cdp", "endpoint": endpoint})
	if !strings.Contains(out, "provider cdp") || !strings.Contains(out, endpoint) {
		t.Fatalf("browser_new: %s", out)
	}
	ok(t, cs, "browser_use", map[string]any{"profile": "theirs"})
	if out := ok(t, cs, "browser_open", map[string]any{"url": p.URL + "/"}); !strings.Contains(out, p.URL) {
		t.Fatalf("browser_open: %s", out)
	}
	snap := ok(t, cs, "browser_snapshot", map[string]any{"interactive": true})
	out = ok(t, cs, "browser_click", map[string]any{"ref": refOf(t, snap, "push button", "Go")})
	if hit := p.waitHit(t, 1); hit != "n=1&name=" {
		t.Fatalf("the page reported %q, want n=1&name= (answer: %s)", hit, out)
	}
	found := false
	for _, u := range pagesOf(t, endpoint) {
		found = found || u == p.URL+"/"
	}
	if !found {
		t.Fatalf("the test's Chromium has no page at %s: %v", p.URL+"/", pagesOf(t, endpoint))
	}

	for _, args := range []map[string]any{
		{"label": "x", "provider": "cdp"},
		{"label": "x", "provider": "cdp", "endpoint": "ftp://127.0.0.1:1/"},
		{"label": "x", "provider": "cloud:nobody"},
	} {
		refused(t, cs, "bad_request", "browser_new", args)
	}

	c2 := e.client("s2")
	ok(t, c2, "browser_new", map[string]any{"label": "cloud", "provider": "cloud:browserless"})
	ok(t, c2, "browser_use", map[string]any{"profile": "cloud"})
	res := refused(t, c2, "no_key", "browser_open", map[string]any{"url": p.URL + "/"})
	st, _ := res.StructuredContent.(map[string]any)
	if facts, _ := st["facts"].(map[string]any); facts["provider"] != "cloud:browserless" || !strings.Contains(text(res), "key set cloud:browserless") {
		t.Fatalf("no_key does not name the provider and the command: %v\n%s", st, text(res))
	}

	c3 := e.client("s3")
	ok(t, c3, "browser_new", map[string]any{"label": "nowhere", "provider": "cdp", "endpoint": "ws://127.0.0.1:1/devtools/browser/x"})
	ok(t, c3, "browser_use", map[string]any{"profile": "nowhere"})
	refused(t, c3, "provider_unreachable", "browser_open", map[string]any{"url": p.URL + "/"})
}
