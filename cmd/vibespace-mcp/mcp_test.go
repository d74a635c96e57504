package main_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/testenv"
)

// daemonCall sends one request to the daemon straight over its socket: the
// test's own hand (share, takeover, handback), not the server under test.
func (e *env) daemonCall(req wire.Request) wire.Response {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := wire.Dial(ctx, e.Socket())
	if err != nil {
		e.T.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Call(ctx, req)
	if err != nil || !resp.OK {
		e.T.Fatalf("%s: %v %+v", req.Verb, err, resp)
	}
	return resp
}

// openFixture opens the GTK fixture through window_open and answers its
// handle and its log (the fixture's own record of what it received).
func openFixture(t *testing.T, e *env, cs *mcp.ClientSession) (string, *testenv.FixtureLog) {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "testenv", "fixture", "fixture.py"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(e.Dir, "fixture.jsonl")
	out := ok(t, cs, "window_open", map[string]any{"app": testenv.FixturePython, "args": []string{src, "--log", logPath}})
	h, _, _ := strings.Cut(out, " ")
	if !strings.HasPrefix(h, "win:") || !strings.Contains(out, h+` "vibespace fixture" · lease: yours · mode: auto → tree`) {
		t.Fatalf("window_open's answer does not start with the header line the command line prints:\n%s", out)
	}
	log := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	return h, log
}

// picture decodes a result's one image: a PNG, as its MIME type says.
func picture(t *testing.T, res *mcp.CallToolResult) (w, h int) {
	t.Helper()
	for _, c := range res.Content {
		if im, ok := c.(*mcp.ImageContent); ok {
			if im.MIMEType != "image/png" {
				t.Fatalf("image of type %q", im.MIMEType)
			}
			img, err := png.Decode(bytes.NewReader(im.Data))
			if err != nil {
				t.Fatalf("the image does not decode as PNG: %v", err)
			}
			b := img.Bounds()
			return b.Dx(), b.Dy()
		}
	}
	t.Fatalf("no image content in %s", text(res))
	return 0, 0
}

// TestToolsOverStdio drives a GTK window and a local page through the SDK's
// client over stdio, as an agent's MCP host does, and checks each effect
// outside the server: in the fixture's own log and in the page's own
// script.
func TestToolsOverStdio(t *testing.T) {
	e := newEnv(t)
	e.serve()
	cs := e.client("s1")

	if info := cs.InitializeResult(); info.ServerInfo.Name != "vibespace-mcp" || info.Instructions == "" {
		t.Fatalf("initialize: %+v", info)
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	for _, n := range []string{"status", "doctor", "watch", "window_list", "window_open", "window_snapshot", "window_click", "window_type", "window_fill",
		"window_key", "window_scroll", "window_screenshot", "browser_open", "browser_snapshot", "browser_click", "browser_fill",
		"browser_type", "browser_key", "browser_scroll", "browser_screenshot", "browser_get", "browser_tab_list",
		"browser_tab_select", "browser_profiles", "browser_use"} {
		if byName[n] == nil {
			t.Errorf("tools/list lacks %s", n)
		}
	}
	for _, n := range []string{"window_snapshot", "browser_snapshot", "window_screenshot", "status", "window_list"} {
		if a := byName[n].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("%s only reads, yet is not readOnlyHint", n)
		}
	}
	for _, n := range []string{"window_click", "browser_click", "browser_fill", "window_close", "browser_tab_close"} {
		if a := byName[n].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
			t.Errorf("%s may undo or overwrite something, yet is not destructiveHint", n)
		}
	}

	// The window: open, snapshot, click by ref — the fixture's log says it
	// was clicked.
	h, log := openFixture(t, e, cs)
	snap := ok(t, cs, "window_snapshot", map[string]any{"handle": h, "interactive": true})
	// The open said the header line; the snapshot right after it, of the
	// same window, leaves it out (daemon/headers): the tree alone.
	if !strings.HasPrefix(snap, "# ") || strings.Contains(snap, "· lease: ") {
		t.Fatalf("window_snapshot after window_open: the tree, its header line said once by the open:\n%s", snap)
	}
	from := log.Len()
	out := ok(t, cs, "window_click", map[string]any{"handle": h, "ref": refOf(t, snap, "push button", "Alpha")})
	if !strings.Contains(out, "[by tree]") || !strings.Contains(out, "clicked @e") {
		t.Fatalf("window_click: %s", out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" }); err != nil {
		t.Fatalf("the fixture did not log the click on Alpha: %v", err)
	}
	cancel()

	// window_fill: the entry's whole text replaced — the fixture's log
	// says what it holds.
	from = log.Len()
	out = ok(t, cs, "window_fill", map[string]any{"handle": h, "ref": refOf(t, snap, "text", "Name"), "text": "Ada Lovelace"})
	if !strings.Contains(out, "filled @e") || !strings.Contains(out, "read back") {
		t.Fatalf("window_fill: %s", out)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 30*time.Second)
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool {
		return ev.Type == "text" && ev.Widget == "entry" && ev.Text == "Ada Lovelace"
	}); err != nil {
		t.Fatalf("the fixture did not log the entry holding the filled text: %v", err)
	}
	cancel()

	// no_action: a node without an Action is refused, never clicked at a point.
	full := ok(t, cs, "window_snapshot", map[string]any{"handle": h})
	from = log.Len()
	res := refused(t, cs, "no_action", "window_click", map[string]any{"handle": h, "ref": refOf(t, full, "panel", "Press area")})
	if st := res.StructuredContent.(map[string]any); st["facts"] == nil || st["target"] == nil {
		t.Fatalf("no_action's structured content lacks its facts or target: %v", st)
	}
	if !strings.Contains(text(res), "\n  facts: interfaces=") || !strings.Contains(text(res), "\n  "+h+` "vibespace fixture" · lease: yours`) {
		t.Fatalf("no_action's text lacks the lines the command line prints after the sentence:\n%s", text(res))
	}

	// A screenshot is a PNG image.
	shot := call(t, cs, "window_screenshot", map[string]any{"handle": h})
	if w, hh := picture(t, shot); w < 100 || hh < 100 || !strings.Contains(text(shot), "PNG") {
		t.Fatalf("window_screenshot: %dx%d %s", w, hh, text(shot))
	}

	// held: a second server process of another session, the window shared
	// with it, is refused while s1 holds it — and the fixture receives nothing.
	e.daemonCall(wire.Request{Verb: "share", Session: "s1", Target: h}.With(args.Share{With: "s2"}))
	cs2 := e.client("s2")
	res = refused(t, cs2, "held", "window_click", map[string]any{"handle": h, "ref": refOf(t, snap, "push button", "Alpha")})
	if facts, _ := res.StructuredContent.(map[string]any)["facts"].(map[string]any); facts["holder"] != "s1" {
		t.Fatalf("held names its holder: %v", res.StructuredContent)
	}
	if evs, _ := log.Events(); slices.ContainsFunc(evs[from:], func(ev testenv.Event) bool { return ev.Type == "click" || ev.Type == "button" }) {
		t.Fatal("a refused click reached the application")
	}

	// A takeover pauses the agent; after the handback its next answer
	// carries the note, first, as the command line prints it.
	e.daemonCall(wire.Request{Verb: "takeover", Session: "s2", Target: h}.With(args.Operator{User: "ada"}))
	refused(t, cs, "window_paused", "window_snapshot", map[string]any{"handle": h})
	e.daemonCall(wire.Request{Verb: "handback", Session: "s2", Target: h}.With(args.Operator{User: "ada"}))
	out = ok(t, cs, "window_snapshot", map[string]any{"handle": h, "depth": 1})
	if lines := strings.SplitN(out, "\n", 3); len(lines) < 3 || !strings.HasPrefix(lines[0], "note: control came back") || !strings.HasPrefix(lines[1], h+" ") {
		t.Fatalf("after the handback: the note, then the header line:\n%s", out)
	}

	// The page: open, snapshot -i, fill and click by ref — the page's own
	// script reports the click and the value it read from its field.
	p := newPage(t, "")
	out = ok(t, cs, "browser_open", map[string]any{"url": p.URL + "/"})
	if !strings.HasPrefix(out, `tab:1 "MCP page" · lease: yours`) || !strings.Contains(out, p.URL) {
		t.Fatalf("browser_open: %s", out)
	}
	psnap := ok(t, cs, "browser_snapshot", map[string]any{"interactive": true})
	ok(t, cs, "browser_fill", map[string]any{"ref": refOf(t, psnap, "entry", "Name"), "text": "Ada"})
	out = ok(t, cs, "browser_click", map[string]any{"ref": refOf(t, psnap, "push button", "Go")})
	if hit := p.waitHit(t, 1); hit != "n=1&name=Ada" {
		t.Fatalf("the page reported %q, want n=1&name=Ada (answer: %s)", hit, out)
	}
	if got := ok(t, cs, "browser_get", map[string]any{"what": "title"}); !strings.HasSuffix(got, "MCP page\n") {
		t.Fatalf("browser_get title: %s", got)
	}
	if got := ok(t, cs, "browser_tab_list", nil); !strings.Contains(got, "tab:1") {
		t.Fatalf("browser_tab_list: %s", got)
	}
	pshot := call(t, cs, "browser_screenshot", nil)
	if w, hh := picture(t, pshot); w < 100 || hh < 100 {
		t.Fatalf("browser_screenshot: %dx%d", w, hh)
	}
	refused(t, cs, "bad_ref", "browser_click", map[string]any{"ref": "@e9999"})
	if n := p.hitCount(); n != 1 {
		t.Fatalf("the page reported %d clicks, want 1", n)
	}
	// A bad argument is a tool error too, before anything is asked.
	refused(t, cs, "bad_request", "browser_click", map[string]any{"ref": "@e1", "at": "1,1"})
	// So is one the tool's schema does not take (checked by the SDK).
	if res := refused(t, cs, "bad_request", "window_click", map[string]any{"handle": h, "reff": "@e1"}); !strings.Contains(text(res), "reff") {
		t.Fatalf("an unknown argument's refusal does not name it: %s", text(res))
	}

	if out := ok(t, cs, "status", nil); !strings.Contains(out, "session: s1\n") || !strings.Contains(out, "\ndisplay: :") || !strings.Contains(out, "tab: tab:1 ") {
		t.Fatalf("status: the daemon, the session's windows and its tabs:\n%s", out)
	}
	if out := ok(t, cs, "doctor", nil); !strings.Contains(out, "yes ") {
		t.Fatalf("doctor: %s", out)
	}
	out = ok(t, cs, "watch", map[string]any{"target": h})
	if !strings.Contains(out, "http://127.0.0.1:") {
		t.Fatalf("watch: %s", out)
	}

	// The application lived through every read and act.
	pid := fixturePID(t, log)
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("the fixture (pid %d) is gone", pid)
	}
}

// fixturePID is the fixture's pid from its ready event.
func fixturePID(t *testing.T, log *testenv.FixtureLog) int {
	t.Helper()
	evs, err := log.Events()
	if err != nil || len(evs) == 0 || evs[0].Type != "ready" {
		t.Fatalf("the fixture's log has no ready event: %v", err)
	}
	return evs[0].PID
}

// TestToolGroups lists only the tools of the groups asked for.
func TestToolGroups(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		groups      string
		has, hasNot string
	}{
		{"window", "window_click", "browser_click"},
		{"browser", "browser_fill", "window_open"},
		{"window,browser", "browser_fill", ""},
	} {
		cs := e.client("g", "--tools", c.groups)
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
		}
		if !slices.Contains(names, c.has) || !slices.Contains(names, "status") || (c.hasNot != "" && slices.Contains(names, c.hasNot)) {
			t.Errorf("--tools %s lists %v", c.groups, names)
		}
	}
}

// TestNoDaemon: a server whose daemon program is nowhere answers a tool
// call at once with no_daemon, saying how to build and start it — never a
// hang.
func TestNoDaemon(t *testing.T) {
	e := newEnv(t)
	alone := filepath.Join(t.TempDir(), "vibespace-mcp")
	b, err := os.ReadFile(e.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "--session", "s1")
	cmd.Env = append(e.Environ("s1"), "PATH=/usr/bin:/bin")
	c := mcp.NewClient(&mcp.Implementation{Name: "vibespace-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeServer(t, cs)
	res := refused(t, cs, "no_daemon", "window_list", nil)
	if !strings.Contains(text(res), "make build") || !strings.Contains(text(res), "serve") {
		t.Fatalf("no_daemon does not say how to build and start the daemon:\n%s", text(res))
	}
}
