package main_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// batch, without a handle, runs an MCP array of steps on a real page in one call —
// a field filled with a secret by name, then the button clicked, expecting
// the page's words — and the page's own report is the oracle; the tool's
// answer never holds the secret. A step whose expect does not hold stops
// the batch, a tool error expect_unmet, the step after it not run.
func TestBatchThroughMCP(t *testing.T) {
	e := newEnv(t)
	e.serve()
	const value = "mcp-secret-0a1b2c"
	e.daemonCall(wire.Request{Verb: "key.set", Session: "op"}.With(args.KeySet{Provider: "secret:mcp", Secret: value}))
	p := newPage(t, "")
	cs := e.client("s1")
	ok(t, cs, "browser_open", map[string]any{"url": p.URL})
	snap := ok(t, cs, "browser_snapshot", map[string]any{"interactive": true})
	name, goBtn := refOf(t, snap, "entry", "Name"), refOf(t, snap, "push button", "Go")

	out := ok(t, cs, "batch", map[string]any{"steps": []map[string]any{
		{"verb": "fill", "args": map[string]any{"ref": name, "secret_name": "mcp"}, "expect": "changed"},
		{"verb": "click", "args": map[string]any{"ref": goBtn}, "expect": `text:"clicked 1"`},
	}})
	if !strings.Contains(out, "2 of 2 steps ran") || strings.Contains(out, value) {
		t.Errorf("batch answered:\n%s", out)
	}
	if got := p.waitHit(t, 1); got != "n=1&name="+url.QueryEscape(value) {
		t.Errorf("the page reported %q", got)
	}

	res := refused(t, cs, "expect_unmet", "batch", map[string]any{"steps": []map[string]any{
		{"verb": "click", "args": map[string]any{"ref": goBtn}, "expect": `text:"no such words"`},
		{"verb": "click", "args": map[string]any{"ref": goBtn}},
	}})
	if !strings.Contains(text(res), "stopped at step 1 of 2") {
		t.Errorf("the stopped batch said:\n%s", text(res))
	}
	// The first step ran (the page's second report), the second did not:
	// the page's own words, set by its click handler as it runs, say 2.
	p.waitHit(t, 2)
	after := ok(t, cs, "browser_snapshot", nil)
	if !strings.Contains(after, "clicked 2 ") || strings.Contains(after, "clicked 3") {
		t.Errorf("after the stopped batch the page says:\n%s", after)
	}
}
