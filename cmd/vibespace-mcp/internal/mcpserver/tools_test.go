package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// fakeDaemon records what the server puts on the wire
// (clitest.FakeDaemon) and answers as answer says.
type fakeDaemon struct {
	env daemoncall.Env
	got <-chan wire.Request
}

func newFakeDaemon(t *testing.T, answer func(wire.Request) wire.Response) *fakeDaemon {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"VIBESPACE_HOME": filepath.Join(dir, "home"), "XDG_RUNTIME_DIR": dir}
	f := &fakeDaemon{env: func(k string) string { return vars[k] }}
	f.got = clitest.FakeDaemon(t, f.env, answer)
	return f
}

// take answers the requests read since the last take (each call's are
// read before it is answered).
func (f *fakeDaemon) take() (out []wire.Request) {
	for {
		select {
		case r := <-f.got:
			out = append(out, r)
		default:
			return out
		}
	}
}

// connect serves New(cfg) in memory to the SDK's client.
func connect(t *testing.T, cfg Config) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close the client: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("the server's session ended with %v", err)
		}
	})
	return cs
}

func tinyPNG() []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)))
	return b.Bytes()
}

// TestEveryToolsRequest holds each tool to the request its command line
// sends for the same words (every field, the session, the profile), and
// each tool's readOnlyHint to whether its request acts (the table the
// command lines decide outcome_unknown by): a tool missing here fails.
func TestEveryToolsRequest(t *testing.T) {
	f := newFakeDaemon(t, func(req wire.Request) wire.Response {
		r := wire.Response{OK: true, Did: "did " + req.Verb}
		switch req.Verb {
		case "screenshot", "browser.screenshot":
			r.PNG = tinyPNG()
		case "status", "browser.status":
			r.Status = &wire.Status{PID: 1}
		}
		return r
	})
	cs := connect(t, Config{Session: "s1", Profile: "work", Groups: AllGroups, Call: daemoncall.Options{Getenv: f.env}})
	wd, _ := os.Getwd()
	cases := []struct {
		tool string
		args map[string]any
		want []wire.Request // Session is s1 in all
	}{
		{"status", nil, []wire.Request{wire.Request{Verb: "browser.status", Profile: "work"}}},
		{"doctor", nil, []wire.Request{wire.Request{Verb: "doctor"}.With(args.Doctor{Env: &wire.DesktopEnv{RuntimeDir: f.env("XDG_RUNTIME_DIR")}})}},
		{"handoff", map[string]any{"handle": "win:3", "reason": "log in", "wait": "2m"}, []wire.Request{wire.Request{Verb: "handoff", Target: "win:3"}.With(args.Handoff{Reason: "log in", Wait: "2m"})}},
		{"handoff", map[string]any{"reason": "solve the check"}, []wire.Request{wire.Request{Verb: "browser.handoff", Profile: "work"}.With(args.Handoff{Reason: "solve the check"})}},
		{"watch", map[string]any{"target": "win:3", "xpra": true, "ssh": "ada@box"}, []wire.Request{wire.Request{Verb: "watch", Target: "win:3"}.With(args.Watch{Xpra: true, Host: "ada@box"})}},
		{"desk", map[string]any{"do": "borrow", "wait": "30s"}, []wire.Request{wire.Request{Verb: "borrow"}.With(args.Borrow{Wait: "30s"})}},
		{"desk", map[string]any{"do": "return"}, []wire.Request{wire.Request{Verb: "return"}.With(args.Empty{})}},
		{"window_list", nil, []wire.Request{wire.Request{Verb: "list"}}},
		{"window_open", map[string]any{"app": "bin/app", "args": []string{"--x", "y"}, "display": "xpra", "mode": "tree"},
			[]wire.Request{wire.Request{Verb: "open"}.With(args.Open{App: filepath.Join(wd, "bin/app"), Args: []string{"--x", "y"}, Display: "xpra", Mode: "tree"})}},
		{"window_snapshot", map[string]any{"handle": "win:1", "ref": "@e2", "interactive": true, "depth": 2, "diff": true},
			[]wire.Request{wire.Request{Verb: "snapshot", Target: "win:1"}.With(args.Snapshot{Observe: args.Observe{Ref: "@e2", Interactive: true, Depth: 2, Diff: true}})}},
		{"window_find", map[string]any{"handle": "win:1", "text": "Dark"}, []wire.Request{wire.Request{Verb: "find", Target: "win:1"}.With(args.Find{Text: "Dark"})}},
		{"window_get_text", map[string]any{"handle": "win:1", "ref": "e7"}, []wire.Request{wire.Request{Verb: "get", Target: "win:1"}.With(args.GetNode{What: "text", Ref: "e7"})}},
		{"window_click", map[string]any{"handle": "win:1", "at": "12,34", "no_verify": true}, []wire.Request{wire.Request{Verb: "click", Target: "win:1"}.With(args.Click{At: "12,34", NoVerify: true})}},
		{"window_type", map[string]any{"handle": "win:1", "ref": "@e9", "text": "hi"}, []wire.Request{wire.Request{Verb: "type", Target: "win:1"}.With(args.Type{Ref: "@e9", Text: "hi"})}},
		{"window_fill", map[string]any{"handle": "win:1", "ref": "@e9", "text": "hi"}, []wire.Request{wire.Request{Verb: "fill", Target: "win:1"}.With(args.Fill{Ref: "@e9", Text: "hi"})}},
		{"window_key", map[string]any{"handle": "win:1", "chord": "ctrl+s"}, []wire.Request{wire.Request{Verb: "key", Target: "win:1"}.With(args.Key{Chord: "ctrl+s"})}},
		{"window_scroll", map[string]any{"handle": "win:1", "direction": "down"}, []wire.Request{wire.Request{Verb: "scroll", Target: "win:1"}.With(args.Scroll{Direction: "down", By: daemoncall.ScrollBy})}},
		{"window_select", map[string]any{"handle": "win:1", "ref": "@e4", "options": []string{"Red", "Green"}},
			[]wire.Request{wire.Request{Verb: "select", Target: "win:1"}.With(args.Select{Ref: "@e4", Options: []string{"Red", "Green"}})}},
		{"batch", map[string]any{"handle": "win:1", "steps": []map[string]any{
			{"verb": "click", "args": map[string]any{"ref": "@e3"}, "expect": "changed"},
			{"verb": "type", "target": "win:2", "args": map[string]any{"ref": "@e4", "secret_name": "login"}}}},
			[]wire.Request{wire.Request{Verb: "batch", Target: "win:1"}.With(args.Batch{Steps: []args.Step{
				{Verb: "click", Args: map[string]any{"ref": "@e3"}, Expect: "changed"},
				{Verb: "type", Target: "win:2", Args: map[string]any{"ref": "@e4", "secret_name": "login"}}}})}},
		{"batch", map[string]any{"steps": []map[string]any{{"verb": "fill", "args": map[string]any{"ref": "@e5", "text": "Ada"}, "expect": `text:"Saved"`}}},
			[]wire.Request{wire.Request{Verb: "browser.batch", Profile: "work"}.With(args.Batch{Steps: []args.Step{
				{Verb: "fill", Args: map[string]any{"ref": "@e5", "text": "Ada"}, Expect: `text:"Saved"`}}})}},
		{"window_screenshot", map[string]any{"handle": "win:1"}, []wire.Request{wire.Request{Verb: "screenshot", Target: "win:1"}}},
		{"window_detach", map[string]any{"handle": "win:1"}, []wire.Request{wire.Request{Verb: "detach", Target: "win:1"}}},
		{"window_close", map[string]any{"handle": "win:1"}, []wire.Request{wire.Request{Verb: "close", Target: "win:1"}}},
		{"browser_open", map[string]any{"url": "http://127.0.0.1:1/"}, []wire.Request{wire.Request{Verb: "browser.open", Profile: "work"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"})}},
		{"browser_reach", map[string]any{"url": "http://127.0.0.1:1/", "goal": "click Upload"}, []wire.Request{wire.Request{Verb: "browser.reach", Profile: "work"}.With(args.Reach{URL: "http://127.0.0.1:1/", Goal: "click Upload"})}},
		{"browser_snapshot", map[string]any{"interactive": true, "profile": "shop"}, []wire.Request{wire.Request{Verb: "browser.snapshot", Profile: "shop"}.With(args.Snapshot{Observe: args.Observe{Interactive: true}})}},
		{"browser_snapshot", map[string]any{"after": "@e13333", "interactive": true, "depth": 2},
			[]wire.Request{wire.Request{Verb: "browser.snapshot", Profile: "work"}.With(args.Snapshot{Observe: args.Observe{Interactive: true, Depth: 2}, After: "@e13333"})}},
		{"browser_find", map[string]any{"text": "Edit"}, []wire.Request{wire.Request{Verb: "browser.find", Profile: "work"}.With(args.Find{Text: "Edit"})}},
		{"browser_get", map[string]any{"what": "text", "ref": "@e3"}, []wire.Request{wire.Request{Verb: "browser.get", Profile: "work"}.With(args.Get{What: "text", Ref: "@e3"})}},
		{"browser_click", map[string]any{"ref": "@e5"}, []wire.Request{wire.Request{Verb: "browser.click", Profile: "work"}.With(args.Click{Ref: "@e5"})}},
		{"browser_fill", map[string]any{"ref": "@e5", "text": "Ada"}, []wire.Request{wire.Request{Verb: "browser.fill", Profile: "work"}.With(args.Fill{Ref: "@e5", Text: "Ada"})}},
		{"browser_fill", map[string]any{"ref": "@e5", "secret_name": "login"}, []wire.Request{wire.Request{Verb: "browser.fill", Profile: "work"}.With(args.Fill{Ref: "@e5", SecretName: "login"})}},
		{"window_type", map[string]any{"handle": "win:1", "ref": "@e9", "secret_name": "login"}, []wire.Request{wire.Request{Verb: "type", Target: "win:1"}.With(args.Type{Ref: "@e9", SecretName: "login"})}},
		{"browser_type", map[string]any{"text": "x"}, []wire.Request{wire.Request{Verb: "browser.type", Profile: "work"}.With(args.Type{Text: "x"})}},
		{"browser_key", map[string]any{"chord": "Enter"}, []wire.Request{wire.Request{Verb: "browser.key", Profile: "work"}.With(args.Key{Chord: "Enter"})}},
		{"browser_scroll", map[string]any{"direction": "up", "by": 7, "at": "12,34"}, []wire.Request{wire.Request{Verb: "browser.scroll", Profile: "work"}.With(args.Scroll{Direction: "up", By: 7, At: "12,34"})}},
		{"browser_select", map[string]any{"ref": "@e6", "options": []string{"Cheese"}}, []wire.Request{wire.Request{Verb: "browser.select", Profile: "work"}.With(args.Select{Ref: "@e6", Options: []string{"Cheese"}})}},
		{"browser_screenshot", nil, []wire.Request{wire.Request{Verb: "browser.screenshot", Profile: "work"}}},
		{"browser_eval", map[string]any{"expr": "document.title"}, []wire.Request{wire.Request{Verb: "browser.eval", Profile: "work"}.With(args.Eval{Expr: "document.title"})}},
		{"browser_navigate", map[string]any{"to": "back"}, []wire.Request{wire.Request{Verb: "browser.back", Profile: "work"}}},
		{"browser_navigate", map[string]any{"to": "forward", "no_verify": true}, []wire.Request{wire.Request{Verb: "browser.forward", Profile: "work"}.With(args.Nav{NoVerify: true})}},
		{"browser_navigate", map[string]any{"to": "reload", "profile": "shop"}, []wire.Request{wire.Request{Verb: "browser.reload", Profile: "shop"}}},
		{"browser_wait", map[string]any{"selector": "#done"}, []wire.Request{wire.Request{Verb: "browser.wait", Profile: "work"}.With(args.Wait{Selector: "#done"})}},
		{"browser_wait", map[string]any{"url": "/thanks"}, []wire.Request{wire.Request{Verb: "browser.wait", Profile: "work"}.With(args.Wait{URL: "/thanks"})}},
		{"browser_tab_list", nil, []wire.Request{wire.Request{Verb: "browser.tab", Profile: "work"}.With(args.Tab{Action: "list"})}},
		{"browser_tab_select", map[string]any{"tab": "3"}, []wire.Request{wire.Request{Verb: "browser.tab", Target: "tab:3", Profile: "work"}.With(args.Tab{Action: "select"})}},
		{"browser_tab_new", map[string]any{"url": "about:blank"}, []wire.Request{wire.Request{Verb: "browser.tab", Profile: "work"}.With(args.Tab{Action: "new", URL: "about:blank"})}},
		{"browser_tab_close", nil, []wire.Request{wire.Request{Verb: "browser.tab", Profile: "work"}.With(args.Tab{Action: "close"})}},
		{"browser_profiles", nil, []wire.Request{wire.Request{Verb: "browser.profiles"}}},
		{"browser_use", map[string]any{"profile": "shop", "alias": "s"}, []wire.Request{wire.Request{Verb: "browser.use"}.With(args.Use{Label: "shop", Alias: "s"})}},
		{"browser_new", map[string]any{"label": "theirs", "provider": "cdp", "endpoint": "http://127.0.0.1:9222"},
			[]wire.Request{wire.Request{Verb: "browser.new"}.With(args.New{Label: "theirs", Provider: "cdp", Endpoint: "http://127.0.0.1:9222"})}},
	}
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{}
	for _, c := range cases {
		tested[c.tool] = true
	}
	for _, tl := range list.Tools {
		if !tested[tl.Name] {
			t.Errorf("%s: no case here holds its request", tl.Name)
		}
	}
	annotations := map[string]*mcp.ToolAnnotations{}
	for _, tl := range list.Tools {
		annotations[tl.Name] = tl.Annotations
	}
	// after pages a tab's snapshot: window_snapshot does not offer it.
	for tool, want := range map[string]bool{"browser_snapshot": true, "window_snapshot": false} {
		if got := hasArg(t, list.Tools, tool, "after"); got != want {
			t.Errorf("%s offers after: %v, want %v", tool, got, want)
		}
	}
	for _, c := range cases {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Errorf("%s: %v %s", c.tool, err, textOf(res))
			continue
		}
		got := f.take()
		for i := range c.want {
			c.want[i].Session = "s1"
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %v:\n got  %+v\n want %+v", c.tool, c.args, got, c.want)
		}
		acts := false
		for _, r := range got {
			acts = acts || daemoncall.Acts(r)
		}
		if a := annotations[c.tool]; a == nil || a.ReadOnlyHint == acts {
			t.Errorf("%s: readOnlyHint %v, but its request acts=%v", c.tool, a != nil && a.ReadOnlyHint, acts)
		}
	}
}

// properties is the arguments a tool's input schema lists, by name.
func properties(t *testing.T, tl *mcp.Tool) map[string]json.RawMessage {
	t.Helper()
	b, err := json.Marshal(tl.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	return schema.Properties
}

// hasArg reports whether the tool's input schema lists the argument.
func hasArg(t *testing.T, tools []*mcp.Tool, tool, arg string) bool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name != tool {
			continue
		}
		_, ok := properties(t, tl)[arg]
		return ok
	}
	t.Fatalf("no tool %s", tool)
	return false
}

// TestStatusAndWatchOfOneKind: status is one call of browser.status (it
// carries the daemon's part), the window status and the set in one text;
// a browser side that refuses is a line of the window status (or, with
// browser tools alone, the refusal); watch without a target is the
// current tab for a server of browser tools alone, in the profile named.
func TestStatusAndWatchOfOneKind(t *testing.T) {
	browserOK := true
	var mu sync.Mutex
	f := newFakeDaemon(t, func(req wire.Request) wire.Response {
		mu.Lock()
		ok := browserOK
		mu.Unlock()
		st := &wire.Status{PID: 42, Display: ":0", Yours: 1, Targets: 2}
		switch {
		case req.Verb == "browser.status" && !ok:
			return wire.Response{Code: target.CodeNoBrowser, Message: "this daemon has no browser"}
		case req.Verb == "browser.status":
			return wire.Response{OK: true, Status: st, Targets: []wire.TargetInfo{{ID: "tab:4", Title: "A", Lease: "free"}}}
		case req.Verb == "status":
			return wire.Response{OK: true, Status: st}
		case req.Verb == "browser.tab":
			return wire.Response{OK: true, Targets: []wire.TargetInfo{{ID: "tab:4", Title: "A"}}}
		}
		return wire.Response{OK: true, URL: "http://127.0.0.1:1/view"}
	})
	verbs := func() (out []string) {
		for _, r := range f.take() {
			out = append(out, r.Verb)
		}
		return out
	}
	call := func(cs *mcp.ClientSession, name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", name, err, textOf(res))
		}
		return textOf(res)
	}
	all := connect(t, Config{Session: "s1", Groups: AllGroups, Call: daemoncall.Options{Getenv: f.env}})
	out := call(all, "status", nil)
	if got := verbs(); !slices.Equal(got, []string{"browser.status"}) || !strings.Contains(out, "daemon pid 42") ||
		!strings.Contains(out, "windows: 1 yours of 2") || !strings.Contains(out, `tab: tab:4 "A" · lease: free`) {
		t.Fatalf("status, both kinds: asked %v, answered\n%s", got, out)
	}
	mu.Lock()
	browserOK = false
	mu.Unlock()
	out = call(all, "status", nil)
	if got := verbs(); !slices.Equal(got, []string{"browser.status", "status"}) || !strings.Contains(out, "daemon pid 42") ||
		!strings.Contains(out, "browser: no_browser: this daemon has no browser") {
		t.Fatalf("status with no browser: asked %v, answered\n%s", got, out)
	}
	browser := connect(t, Config{Session: "s1", Groups: groupBrowser, Call: daemoncall.Options{Getenv: f.env}})
	if res, err := browser.CallTool(t.Context(), &mcp.CallToolParams{Name: "status"}); err != nil || !res.IsError ||
		!strings.HasPrefix(textOf(res), "no_browser: ") || !slices.Equal(verbs(), []string{"browser.status"}) {
		t.Fatalf("status with no browser, browser tools alone: %v %s", err, textOf(res))
	}
	call(browser, "watch", map[string]any{"profile": "shop"})
	if got := f.take(); len(got) != 2 || got[0].Verb != "browser.tab" || got[0].Profile != "shop" || got[1].Verb != "watch" || got[1].Target != "tab:4" {
		t.Fatalf("watch without a target, browser tools alone: %+v", got)
	}
	call(browser, "watch", map[string]any{"target": "3"})
	if got := f.take(); len(got) != 1 || got[0].Target != "tab:3" {
		t.Fatalf("watch 3, browser tools alone: %+v", got)
	}
}

// TestCallsWithoutAnAnswer: a verb that acts and got no answer in time is
// outcome_unknown; one that reads is timeout.
func TestCallsWithoutAnAnswer(t *testing.T) {
	late := errors.New("the daemon did not answer in time: " + context.DeadlineExceeded.Error())
	late = errors.Join(late, context.DeadlineExceeded)
	tabNew := args.Request("browser.tab", "", args.Tab{Action: "new"})
	for req, code := range map[*wire.Request]target.Code{
		{Verb: "browser.click"}: target.CodeOutcomeUnknown,
		{Verb: "snapshot"}:      target.CodeTimeout,
		&tabNew:                 target.CodeOutcomeUnknown,
		{Verb: "find"}:          target.CodeTimeout,
	} {
		res := failed(late, *req)
		if st := res.StructuredContent.(map[string]any); st["code"] != code {
			t.Errorf("%s: %v, want %s", req.Verb, st["code"], code)
		}
	}
}

// listBudget is what tools/list may weigh with every tool listed: an
// agent's host reads it into the context of every conversation.
const listBudget = 20 << 10

// TestToolsListUnderBudget: tools/list of every tool, as the server sends
// it, stays under listBudget — and lists every verb of the command lines an
// agent uses to read and act on a page (wait, back/forward/reload as
// browser_navigate, eval among them).
func TestToolsListUnderBudget(t *testing.T) {
	cs := connect(t, Config{Session: "s", Groups: AllGroups})
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d tools, %d bytes", len(list.Tools), len(b))
	if len(b) >= listBudget {
		t.Errorf("tools/list weighs %d bytes with every tool, over its budget of %d", len(b), listBudget)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, n := range []string{"browser_eval", "browser_navigate", "browser_wait",
		"browser_open", "browser_reach", "browser_snapshot", "browser_find", "browser_get", "browser_click", "browser_fill", "browser_type",
		"browser_key", "browser_scroll", "browser_select", "browser_screenshot"} {
		if !names[n] {
			t.Errorf("tools/list lacks %s", n)
		}
	}
}
