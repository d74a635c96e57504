package main_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/testenv"
)

// inspector is the MCP inspector's command line (npm
// @modelcontextprotocol/inspector-cli, make test-deps puts it under the
// module root's .testdeps): a client of another implementation than ours
// (the TypeScript SDK), one process per call, as a person tries a server.
type inspector struct {
	t      *testing.T
	e      *env
	script string // its build/index.js
	dir    string // where it runs from (see newInspector)
}

func newInspector(t *testing.T, e *env) *inspector {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if up := filepath.Dir(dir); up != dir {
			dir = up
			continue
		}
		t.Fatal("no go.mod above the test's directory")
	}
	modules := filepath.Join(dir, ".testdeps", "node_modules")
	script := filepath.Join(modules, "@modelcontextprotocol", "inspector-cli", "build", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the MCP inspector's CLI is not installed under %s: run make test-deps (make test does)", filepath.Dir(modules))
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH (the inspector runs on Node.js): %v", err)
	}
	// It looks for its own package.json at "../package.json" relative to
	// the directory it runs in, then imports it relative to itself: run it
	// where the first exists (the folder above node_modules holds npm's
	// package.json for the install).
	return &inspector{t: t, e: e, script: script, dir: modules}
}

// run calls method on a fresh vibespace-mcp process as session s and
// decodes the inspector's JSON output.
func (in *inspector) run(s, method string, args ...string) map[string]any {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{in.script, in.e.Bin, "--session", s, "--method", method}, args...)
	cmd := exec.CommandContext(ctx, "node", argv...)
	cmd.Dir = in.dir
	cmd.Env = in.e.Environ(s)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		in.t.Fatalf("inspector %s %v: %v\n%s%s", method, args, err, out.String(), errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		in.t.Fatalf("inspector %s %v: not JSON: %v\n%s%s", method, args, err, out.String(), errb.String())
	}
	return m
}

// tool calls a tool with key=value arguments (a value is JSON where it
// parses as JSON) and answers its text and whether it is a tool error.
func (in *inspector) tool(s, name string, kv ...string) (text string, isError bool, res map[string]any) {
	in.t.Helper()
	args := []string{"--tool-name", name}
	for _, a := range kv {
		args = append(args, "--tool-arg", a)
	}
	res = in.run(s, "tools/call", args...)
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, _ := c.(map[string]any); m["type"] == "text" {
			text += m["text"].(string)
		}
	}
	isError, _ = res["isError"].(bool)
	return text, isError, res
}

// TestIndependentClient drives the server with the MCP inspector's CLI:
// the tools listed, the fixture window and a local page opened, a
// snapshot, clicks by ref (the fixture's log and the page's own script say
// so), a refusal as a tool error with its code, and a screenshot that
// decodes as PNG.
func TestIndependentClient(t *testing.T) {
	e := newEnv(t)
	in := newInspector(t, e)
	e.serve()

	list := in.run("s1", "tools/list")
	names := map[string]bool{}
	for _, tl := range list["tools"].([]any) {
		names[tl.(map[string]any)["name"].(string)] = true
	}
	for _, n := range []string{"window_open", "window_snapshot", "window_click", "browser_open", "browser_snapshot", "browser_click", "browser_screenshot"} {
		if !names[n] {
			t.Errorf("tools/list lacks %s: %v", n, names)
		}
	}

	// The window.
	src, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(e.Dir, "fixture.jsonl")
	argv, _ := json.Marshal([]string{src, "--log", logPath})
	out, isErr, _ := in.tool("s1", "window_open", "app="+testenv.FixturePython, "args="+string(argv))
	h, _, _ := strings.Cut(out, " ")
	if isErr || !strings.HasPrefix(h, "win:") {
		t.Fatalf("window_open: %s", out)
	}
	log := testenv.OpenFixtureLog(logPath)
	snap, isErr, _ := in.tool("s1", "window_snapshot", "handle="+h, "interactive=true")
	if isErr {
		t.Fatalf("window_snapshot: %s", snap)
	}
	if out, isErr, _ := in.tool("s1", "window_click", "handle="+h, "ref="+refOf(t, snap, "push button", "Beta")); isErr {
		t.Fatalf("window_click: %s", out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "beta" }); err != nil {
		t.Fatalf("the fixture did not log the click on Beta: %v", err)
	}

	// Refusals: a node without an Action (no_action), and the window held
	// by s1 for a server of another session it was shared with (held).
	full, _, _ := in.tool("s1", "window_snapshot", "handle="+h)
	out, isErr, res := in.tool("s1", "window_click", "handle="+h, "ref="+refOf(t, full, "panel", "Press area"))
	if st, _ := res["structuredContent"].(map[string]any); !isErr || !strings.HasPrefix(out, "no_action: ") || st["code"] != "no_action" {
		t.Fatalf("a click on a node without an Action: want the tool error no_action, got isError=%v\n%s", isErr, out)
	}
	e.daemonCall(wire.Request{Verb: "share", Session: "s1", Target: h}.With(args.Share{With: "s2"}))
	out, isErr, res = in.tool("s2", "window_click", "handle="+h, "ref="+refOf(t, snap, "push button", "Beta"))
	if st, _ := res["structuredContent"].(map[string]any); !isErr || !strings.HasPrefix(out, "held: ") || st["code"] != "held" {
		t.Fatalf("another session's click on s1's window: want the tool error held, got isError=%v\n%s", isErr, out)
	}

	// The page.
	p := newPage(t, "")
	if out, isErr, _ := in.tool("s1", "browser_open", "url="+p.URL+"/"); isErr || !strings.Contains(out, `"MCP page"`) {
		t.Fatalf("browser_open: %s", out)
	}
	psnap, isErr, _ := in.tool("s1", "browser_snapshot", "interactive=true")
	if isErr {
		t.Fatalf("browser_snapshot: %s", psnap)
	}
	if out, isErr, _ := in.tool("s1", "browser_click", "ref="+refOf(t, psnap, "push button", "Go")); isErr {
		t.Fatalf("browser_click: %s", out)
	}
	if hit := p.waitHit(t, 1); !strings.HasPrefix(hit, "n=1") {
		t.Fatalf("the page reported %q", hit)
	}

	// A refusal: a tool error whose text starts with the code, the code in
	// the structured content.
	out, isErr, res = in.tool("s1", "browser_click", "ref=@e9999")
	if st, _ := res["structuredContent"].(map[string]any); !isErr || !strings.HasPrefix(out, "bad_ref: ") || st["code"] != "bad_ref" {
		t.Fatalf("a ref never minted: want the tool error bad_ref, got isError=%v %v\n%s", isErr, res["structuredContent"], out)
	}

	// A screenshot: base64 PNG in an image content.
	_, isErr, res = in.tool("s1", "browser_screenshot")
	var decoded bool
	for _, c := range res["content"].([]any) {
		m := c.(map[string]any)
		if m["type"] != "image" {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(m["data"].(string))
		if err != nil {
			t.Fatalf("the image's data is not base64: %v", err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil || m["mimeType"] != "image/png" {
			t.Fatalf("the image (%v) does not decode as PNG: %v", m["mimeType"], err)
		}
		decoded = true
	}
	if isErr || !decoded {
		t.Fatalf("browser_screenshot: no PNG image in %v", res)
	}
}
