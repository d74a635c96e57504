package mcpserver

// The tools: the command lines' verbs under the same words, each one
// daemon request. window_* are vibespace-window's (a window by its handle),
// browser_* vibespace-browser's (the session's current tab); status,
// doctor and watch are both kinds'.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Groups are the tool groups a server lists (--tools).
type Groups uint8

const (
	groupWindow Groups = 1 << iota
	groupBrowser
	groupBoth = groupWindow | groupBrowser // a tool of both kinds
)

// AllGroups is every tool.
const AllGroups = groupBoth

// ParseGroups reads --tools: window, browser, all, or a comma-separated
// list of them.
func ParseGroups(s string) (Groups, error) {
	var g Groups
	for _, w := range strings.Split(s, ",") {
		switch strings.TrimSpace(w) {
		case "window":
			g |= groupWindow
		case "browser":
			g |= groupBrowser
		case "all":
			g |= AllGroups
		default:
			return 0, fmt.Errorf("--tools %s: the groups are window, browser and all (e.g. --tools window,browser)", target.Echo(w))
		}
	}
	return g, nil
}

// has reports whether a tool of group t is listed: a tool of both kinds
// is listed with either.
func (g Groups) has(t Groups) bool { return g&t != 0 }

// toolDef is one tool and the group it is listed with.
type toolDef struct {
	group Groups
	name  string
	add   func(*mcp.Server, *server)
}

// handler answers one tool call.
type handler[In any] func(ctx context.Context, x *server, in In) *mcp.CallToolResult

// custom is a tool answered by h.
func custom[In any](g Groups, t *mcp.Tool, h handler[In]) toolDef {
	return toolDef{group: g, name: t.Name, add: func(s *mcp.Server, x *server) {
		mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			return h(ctx, x, in), nil, nil
		})
	}}
}

// verb is a tool that is one daemon request, built from its arguments by
// build; an error of build is the tool error bad_request. A browser tool's
// profile argument names the attachment it acts in.
func verb[In any](g Groups, t *mcp.Tool, build func(in In) (plan, error)) toolDef {
	return custom(g, t, func(ctx context.Context, x *server, in In) *mcp.CallToolResult {
		p, err := build(in)
		if err != nil {
			return toolError(target.CodeBadRequest, err.Error())
		}
		if pr, ok := any(in).(profiled); ok {
			p.req.Profile = pr.profileHandle()
		}
		return x.ask(ctx, p)
	})
}

// Annotations, set truthfully: a tool that only reads says so; one that
// acts says whether it may undo or overwrite something (a click may submit
// or delete, a fill overwrites a value, a wheel turns a spin button, a
// program opened may do anything) or only adds or moves (a tab, a lease);
// tools that load or act on pages, or start programs, reach the open world.
// No title: a tool's name is its title, and tools/list's bytes are read
// into every conversation of an agent's host (TestToolsListUnderBudget).
func reads(web bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: openWorld(web)}
}

func acts(destructive, idempotent, web bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: openWorld(web)}
}

// openWorld is openWorldHint: left out when true, the protocol's default
// (tools/list is read into every conversation of an agent's host: its
// bytes count), said when false.
func openWorld(web bool) *bool {
	if web {
		return nil
	}
	return &web
}

// onWindow is a window tool's target.
type onWindow struct {
	Handle string `json:"handle" jsonschema:"win:N"`
}

// atProfile is a browser tool's profile, as the command line's --profile:
// which attachment it acts in; without one, the only attachment, else the
// session's own context (several attachments need one: profile_required).
// Its schema has no description: the refusal profile_required says when
// it is needed, and tools/list's budget is better spent on the tools.
type atProfile struct {
	Profile string `json:"profile,omitempty"`
}

func (a atProfile) profileHandle() string { return a.Profile }

// profiled are the arguments of a browser tool.
type profiled interface{ profileHandle() string }

// The arguments: a window tool's are onWindow and the verb's own, a
// browser tool's atProfile and the verb's own. A verb's own are its type
// of package daemon/args, whose JSON form is the tool's arguments (the
// input schema is derived from it); a tool that takes less than its verb
// (a tab's words, new) keeps its own, every argument of it one of its
// verb's (TestToolArgsAreTheVerbs).
type (
	noArgs         struct{}
	openWindowArgs = args.Open
	tabArgs        struct {
		atProfile
		Tab string `json:"tab" jsonschema:"the tab: tab:N (browser_tab_list)"`
	}
	tabCloseArgs struct {
		atProfile
		Tab string `json:"tab,omitempty" jsonschema:"the tab: tab:N (default your current one)"`
	}
	tabNewArgs struct {
		atProfile
		URL string `json:"url,omitempty" jsonschema:"the address to load in it"`
	}
	newArgs struct {
		Label    string `json:"label" jsonschema:"its label (any words)"`
		Provider string `json:"provider,omitempty" jsonschema:"chromium (default), cdp, cloud:browserless or desktop-app"`
		Endpoint string `json:"endpoint,omitempty" jsonschema:"cdp: ws:// or http://host:port; a cloud: wss://host"`
	}
	useArgs = args.Use
	// deskArgs are borrow's and return's: do is the verb.
	deskArgs struct {
		Do   string `json:"do" jsonschema:"borrow or return"`
		Wait string `json:"wait,omitempty" jsonschema:"queue up to, e.g. 30s"`
	}
	// handoff's: a window (handle) or the current tab (none).
	handoffArgs struct {
		Handle string `json:"handle,omitempty" jsonschema:"win:N, else your tab"`
		atProfile
		args.Handoff
	}
	watchArgs struct {
		atProfile
		Target string `json:"target,omitempty" jsonschema:"win:N or tab:N (none: your tab, or the overview)"`
		args.Watch
	}

	// A window tool's arguments.
	windowArgs         struct{ onWindow }
	snapshotWindowArgs struct {
		onWindow
		// A window's snapshot does not page: no After.
		args.Observe
	}
	findWindowArgs struct {
		onWindow
		args.Find
	}
	getTextArgs struct {
		onWindow
		// A window's get reads a node's text alone: no word (args.GetNode's
		// What is text).
		Ref string `json:"ref" jsonschema:"the node (@eN)"`
	}
	clickWindowArgs struct {
		onWindow
		args.Click
	}
	typeWindowArgs struct {
		onWindow
		args.Type
	}
	keyWindowArgs struct {
		onWindow
		args.Key
	}
	scrollWindowArgs struct {
		onWindow
		args.Scroll
	}
	selectWindowArgs struct {
		onWindow
		args.Select
	}
	fillWindowArgs struct {
		onWindow
		args.Fill
	}
	// batch's: on a window (handle) or on the current tab (none).
	batchArgs struct {
		Handle string `json:"handle,omitempty" jsonschema:"win:N, else your current tab"`
		atProfile
		args.Batch
	}

	// A browser tool's arguments.
	pageArgs         struct{ atProfile }
	snapshotPageArgs struct {
		atProfile
		args.Snapshot
	}
	findPageArgs struct {
		atProfile
		args.Find
	}
	fillArgs struct {
		atProfile
		args.Fill
	}
	openURLArgs struct {
		atProfile
		args.OpenURL
	}
	reachArgs struct {
		atProfile
		args.Reach
	}
	getArgs struct {
		atProfile
		args.Get
	}
	clickPageArgs struct {
		atProfile
		args.Click
	}
	typePageArgs struct {
		atProfile
		args.Type
	}
	keyPageArgs struct {
		atProfile
		args.Key
	}
	scrollPageArgs struct {
		atProfile
		args.Scroll
	}
	selectPageArgs struct {
		atProfile
		args.Select
	}
	evalArgs struct {
		atProfile
		args.Eval
	}
	navArgs struct {
		atProfile
		// The verb: browser_navigate is back's, forward's and reload's.
		To string `json:"to" jsonschema:"back, forward or reload"`
		args.Nav
	}
	waitArgs struct {
		atProfile
		args.Wait
	}
)

// point reads an "x,y" argument ("" none).
func point(s string) (*wire.Point, error) {
	if s == "" {
		return nil, nil
	}
	return daemoncall.ParsePointArg("at", s)
}

// clickRequest is click's request on the window h ("" the current tab).
func clickRequest(verb, h string, in args.Click) (plan, error) {
	at, err := point(in.At)
	if err != nil {
		return plan{}, err
	}
	if (in.Ref == "") == (at == nil) {
		return plan{}, fmt.Errorf("click needs exactly one of ref or at: {\"ref\": \"@e3\"}, or {\"at\": \"120,40\"}")
	}
	return plan{req: args.Request(verb, h, in)}, nil
}

func scrollRequest(verb, h string, in args.Scroll) (plan, error) {
	if _, err := point(in.At); err != nil {
		return plan{}, err
	}
	if in.By == 0 {
		in.By = daemoncall.ScrollBy
	}
	return plan{req: args.Request(verb, h, in)}, nil
}

// snapshotRequest is snapshot's request on the window h ("" the current
// tab); After ("" none) reads on past a tab's snapshot its budget cut.
func snapshotRequest(verb, h string, in args.Snapshot) (plan, error) {
	return plan{req: args.Request(verb, h, in), body: daemoncall.PrintText}, nil
}

func findRequest(verb, h string, in args.Find) (plan, error) {
	return plan{req: args.Request(verb, h, in), body: daemoncall.PrintText}, nil
}

func typeRequest(verb, h string, in args.Type) (plan, error) {
	return plan{req: args.Request(verb, h, in)}, nil
}

func keyRequest(verb, h string, in args.Key) (plan, error) {
	return plan{req: args.Request(verb, h, in)}, nil
}

func selectRequest(verb, h string, in args.Select) (plan, error) {
	return plan{req: args.Request(verb, h, in)}, nil
}

func screenshotPlan(verb, h string) plan {
	return plan{req: wire.Request{Verb: verb, Target: h}, body: pictureBody}
}

// tools is every tool (tools/list gives them sorted by name).
var tools = []toolDef{
	// Both kinds.
	custom(groupBoth, &mcp.Tool{Name: "status", Description: "The daemon, your session, windows, attachments and tabs.",
		Annotations: reads(false)}, status),
	custom(groupBoth, &mcp.Tool{Name: "doctor", Description: "What this machine offers (display, input, accessibility, browser, encoders), and why not.",
		Annotations: reads(false)}, func(ctx context.Context, x *server, _ noArgs) *mcp.CallToolResult {
		// The server's environment names the desktop session it runs in, as
		// a command line's does.
		return x.ask(ctx, plan{req: args.Request("doctor", "", args.Doctor{Env: daemoncall.DesktopEnv(x.cfg.Call.Getenv)}),
			body: daemoncall.DoctorBody, timeout: daemoncall.OpenTimeout})
	}),
	custom(groupBoth, &mcp.Tool{Name: "watch", Description: "The live view's address: a pane or the overview, to watch and take over.",
		Annotations: reads(false)}, watch),

	verb(groupBoth, &mcp.Tool{Name: "desk", Description: "Borrow a pool desktop (deskN, for window_open) or return it, wiped.",
		Annotations: acts(true, false, false)}, func(in deskArgs) (plan, error) {
		switch in.Do {
		case "borrow":
			return plan{req: args.Request("borrow", "", args.Borrow{Wait: in.Wait})}, nil
		case "return":
			return plan{req: args.Request("return", "", args.Empty{})}, nil
		}
		return plan{}, fmt.Errorf("desk needs do: borrow or return: {\"do\": \"borrow\", \"wait\": \"30s\"}")
	}),

	verb(groupBoth, &mcp.Tool{Name: "handoff", Description: "Ask a person (live view) to do a part, e.g. a login; waits for their handback, answers what changed.",
		Annotations: acts(false, false, false)}, func(in handoffArgs) (plan, error) {
		v := "browser.handoff"
		if in.Handle != "" {
			v = "handoff"
		}
		return plan{req: args.Request(v, in.Handle, in.Handoff), body: daemoncall.PrintText, timeout: args.MaxHandoffWait + time.Minute}, nil
	}),

	// Windows (vibespace-window's words).
	verb(groupWindow, &mcp.Tool{Name: "window_list", Description: "The windows your session may address: win:N, title, lease, mode.",
		Annotations: reads(false)}, func(noArgs) (plan, error) {
		return plan{req: wire.Request{Verb: "list"}, body: daemoncall.PrintWindows}, nil
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_open", Description: "Start an app; answers its handle win:N, whose lease you hold.",
		Annotations: acts(true, false, true)}, func(in openWindowArgs) (plan, error) {
		if in.App == "" {
			return plan{}, fmt.Errorf("window_open needs an application: {\"app\": \"gtk3-widget-factory\"}")
		}
		argv, err := daemoncall.AppArgv(append([]string{in.App}, in.Args...))
		if err != nil {
			return plan{}, err
		}
		in.App, in.Args = argv[0], argv[1:]
		return plan{req: args.Request("open", "", in), timeout: daemoncall.OpenTimeout}, nil
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_snapshot", Description: "The window's accessibility tree, a node a line: role, \"name\", @ref, states, actions.",
		Annotations: reads(false)}, func(in snapshotWindowArgs) (plan, error) {
		return snapshotRequest("snapshot", in.Handle, args.Snapshot{Observe: in.Observe})
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_find", Description: "A window's @refs whose name or text contains a text, each with where it is.",
		Annotations: reads(false)}, func(in findWindowArgs) (plan, error) {
		return findRequest("find", in.Handle, in.Find)
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_get_text", Description: "One node's text: its value, else the text it shows.",
		Annotations: reads(false)}, func(in getTextArgs) (plan, error) {
		return plan{req: args.Request("get", in.Handle, args.GetNode{What: "text", Ref: in.Ref}), body: daemoncall.PrintText}, nil
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_click", Description: "Click a node through its Action (ref), or a screenshot pixel (at).",
		Annotations: acts(true, false, false)}, func(in clickWindowArgs) (plan, error) {
		return clickRequest("click", in.Handle, in.Click)
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_type", Description: "Type text into a node (ref), or as keys into the window's focused node.",
		Annotations: acts(true, false, false)}, func(in typeWindowArgs) (plan, error) {
		return typeRequest("type", in.Handle, in.Type)
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_fill", Description: "Replace a field's whole text (ref) through its EditableText; reads it back.",
		Annotations: acts(true, true, false)}, func(in fillWindowArgs) (plan, error) {
		return plan{req: args.Request("fill", in.Handle, in.Fill)}, nil
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_key", Description: "Press one chord in the window.",
		Annotations: acts(true, false, false)}, func(in keyWindowArgs) (plan, error) {
		return keyRequest("key", in.Handle, in.Key)
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_scroll", Description: "Scroll the window with the wheel at a pixel (its centre by default).",
		Annotations: acts(true, false, false)}, func(in scrollWindowArgs) (plan, error) {
		return scrollRequest("scroll", in.Handle, in.Scroll)
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_select", Description: "Choose options of a combo box, list or tree (label or value); reads them back.",
		Annotations: acts(true, true, false)}, func(in selectWindowArgs) (plan, error) {
		return selectRequest("select", in.Handle, in.Select)
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_screenshot", Description: "The window's own pixels as a PNG; at of click and scroll are its pixels.",
		Annotations: reads(false)}, func(in windowArgs) (plan, error) {
		return screenshotPlan("screenshot", in.Handle), nil
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_detach", Description: "Release a window's lease (its app runs on) for another session.",
		Annotations: acts(false, true, false)}, func(in windowArgs) (plan, error) {
		return plan{req: wire.Request{Verb: "detach", Target: in.Handle}}, nil
	}),
	verb(groupWindow, &mcp.Tool{Name: "window_close", Description: "Stop a window's app (a later window or dialog: close it alone).",
		Annotations: acts(true, true, false)}, func(in windowArgs) (plan, error) {
		return plan{req: wire.Request{Verb: "close", Target: in.Handle}}, nil
	}),

	// Tabs (vibespace-browser's words): the session's current tab.
	verb(groupBrowser, &mcp.Tool{Name: "browser_open", Description: "Load a URL in your current tab (new if none); waits for the load.",
		Annotations: acts(true, false, true)}, func(in openURLArgs) (plan, error) {
		return plan{req: args.Request("browser.open", "", in.OpenURL), body: daemoncall.PrintURL}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_reach", Description: "Reach a URL on the lowest rung that serves (fetch, tree, pixels, desktop, person), naming each signal.",
		Annotations: acts(true, false, true)}, func(in reachArgs) (plan, error) {
		return plan{req: args.Request("browser.reach", "", in.Reach), body: daemoncall.PrintText, timeout: args.DefaultHandoffWait + 2*time.Minute}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_snapshot", Description: "The page's accessibility tree, a node a line: role, \"name\", @ref, states.",
		Annotations: reads(true)}, func(in snapshotPageArgs) (plan, error) {
		return snapshotRequest("browser.snapshot", "", in.Snapshot)
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_find", Description: "The page's @refs whose name or text contains a text, each with where it is.",
		Annotations: reads(true)}, func(in findPageArgs) (plan, error) {
		return findRequest("browser.find", "", in.Find)
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_get", Description: "Read the page back: its text (or a node's), its URL or its title.",
		Annotations: reads(true)}, func(in getArgs) (plan, error) {
		switch {
		case in.What == "text", (in.What == "url" || in.What == "title") && in.Ref == "":
		default:
			return plan{}, fmt.Errorf("browser_get needs what: text (with a ref or not), url or title")
		}
		return plan{req: args.Request("browser.get", "", in.Get), body: daemoncall.GetBody(in.What)}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_click", Description: "Click a node (ref) once visible, enabled and uncovered, or a screenshot pixel (at).",
		Annotations: acts(true, false, true)}, func(in clickPageArgs) (plan, error) {
		return clickRequest("browser.click", "", in.Click)
	}),
	verb(groupBoth, &mcp.Tool{Name: "batch", Description: "Run steps on a window (handle) or your tab in one call, each as its tool would; stops at the first refused or expect_unmet.",
		Annotations: acts(true, false, true)}, func(in batchArgs) (plan, error) {
		if in.Handle != "" {
			return plan{req: args.Request("batch", in.Handle, in.Batch)}, nil
		}
		return plan{req: args.Request("browser.batch", "", in.Batch)}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_fill", Description: "Replace a field's value with text; the answer reads it back.",
		Annotations: acts(true, true, true)}, func(in fillArgs) (plan, error) {
		return plan{req: args.Request("browser.fill", "", in.Fill)}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_type", Description: "Type text as keys into a node (ref, focused first) or the focused node.",
		Annotations: acts(true, false, true)}, func(in typePageArgs) (plan, error) {
		return typeRequest("browser.type", "", in.Type)
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_key", Description: "Press one chord in the page: Enter, Tab, ctrl+a, Escape.",
		Annotations: acts(true, false, true)}, func(in keyPageArgs) (plan, error) {
		return keyRequest("browser.key", "", in.Key)
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_scroll", Description: "Scroll the page with the wheel at a pixel (its centre by default).",
		Annotations: acts(true, false, true)}, func(in scrollPageArgs) (plan, error) {
		return scrollRequest("browser.scroll", "", in.Scroll)
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_select", Description: "Choose options of a <select> or listbox (label or value); reads them back.",
		Annotations: acts(true, true, true)}, func(in selectPageArgs) (plan, error) {
		return selectRequest("browser.select", "", in.Select)
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_screenshot", Description: "The tab's viewport as a PNG; at of click and scroll are its pixels.",
		Annotations: reads(true)}, func(pageArgs) (plan, error) {
		return screenshotPlan("browser.screenshot", ""), nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_eval", Description: "Evaluate a JavaScript expression in the page; answers its JSON value.",
		Annotations: acts(true, false, true)}, func(in evalArgs) (plan, error) {
		return plan{req: args.Request("browser.eval", "", in.Eval), body: printValue}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_navigate", Description: "Go back or forward in history, or reload; answers where the tab is.",
		Annotations: acts(true, false, true)}, func(in navArgs) (plan, error) {
		switch in.To {
		case "back", "forward", "reload":
		default:
			return plan{}, fmt.Errorf("browser_navigate needs to: back, forward or reload: {\"to\": \"back\"}")
		}
		// its answer says where the tab is now
		return plan{req: args.Request("browser."+in.To, "", in.Nav)}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_wait", Description: "Wait until the page shows a visible node (CSS selector), a text, or a URL with a string.",
		Annotations: reads(true)}, func(in waitArgs) (plan, error) {
		if n := btoi(in.Selector != "") + btoi(in.Text != "") + btoi(in.URL != ""); n != 1 {
			return plan{}, fmt.Errorf("browser_wait needs exactly one of selector, text or url: {\"text\": \"Thanks\"}")
		}
		return plan{req: args.Request("browser.wait", "", in.Wait)}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_tab_list", Description: "Your tabs in this profile; * marks the current one.",
		Annotations: reads(false)}, func(pageArgs) (plan, error) {
		return tabPlan("list", "", ""), nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_tab_select", Description: "Make a tab your current one: the browser tools act on it.",
		Annotations: acts(false, true, false)}, func(in tabArgs) (plan, error) {
		return tabPlan("select", in.Tab, ""), nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_tab_new", Description: "Open a new tab (it becomes current), at a URL or blank.",
		Annotations: acts(false, false, true)}, func(in tabNewArgs) (plan, error) {
		return tabPlan("new", "", in.URL), nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_tab_close", Description: "Close a tab of yours (the current one by default).",
		Annotations: acts(true, false, false)}, func(in tabCloseArgs) (plan, error) {
		return tabPlan("close", in.Tab, ""), nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_profiles", Description: "The browser profiles that exist: id, label, whether running.",
		Annotations: reads(false)}, func(noArgs) (plan, error) {
		return plan{req: wire.Request{Verb: "browser.profiles"}, body: daemoncall.ProfilesBody}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_new", Description: "Register a browser profile, then browser_use it.",
		Annotations: acts(false, false, true)}, func(in newArgs) (plan, error) {
		if in.Label == "" {
			return plan{}, fmt.Errorf("browser_new needs a label: {\"label\": \"theirs\", \"provider\": \"cdp\", \"endpoint\": \"http://127.0.0.1:9222\"}")
		}
		return plan{req: args.Request("browser.new", "", args.New{Label: in.Label, Provider: in.Provider, Endpoint: in.Endpoint})}, nil
	}),
	verb(groupBrowser, &mcp.Tool{Name: "browser_use", Description: "Attach your session to a profile (label or id), maybe under an alias.",
		Annotations: acts(false, true, false)}, func(in useArgs) (plan, error) {
		return plan{req: args.Request("browser.use", "", in)}, nil
	}),
}

// printValue prints eval's value as vibespace-browser eval does: its JSON.
func printValue(r wire.Response, w io.Writer) error {
	_, err := fmt.Fprintln(w, string(r.Value))
	return err
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tabPlan is browser.tab's request for action on tab (a handle or "3").
func tabPlan(action, tab, url string) plan {
	return plan{req: args.Request("browser.tab", daemoncall.TabHandle(tab), args.Tab{Action: action, URL: url}),
		body: daemoncall.TabBody(action)}
}

// status answers as both command lines' status do, for the groups listed:
// the daemon, its display and the session's windows (window), the
// session's attachments and tabs (browser). browser.status carries the
// daemon's part too: one call. A browser side that refuses (no browser
// here, a profile to name) is a line of the window status, not its end.
func status(ctx context.Context, x *server, _ noArgs) *mcp.CallToolResult {
	daemon := plan{req: wire.Request{Verb: "status"}, body: daemoncall.StatusBody(x.cfg.Session)}
	if !x.cfg.Groups.has(groupBrowser) {
		return x.ask(ctx, daemon)
	}
	bp := plan{req: wire.Request{Verb: "browser.status"}}
	br, err := x.call(ctx, bp)
	switch {
	case err != nil:
		return failed(err, bp.req)
	case !br.OK && !x.cfg.Groups.has(groupWindow):
		return x.result(br, bp)
	case !br.OK:
		daemon.body = func(r wire.Response, w io.Writer) error {
			daemoncall.StatusBody(x.cfg.Session)(r, w)
			fmt.Fprintf(w, "browser: %s", daemoncall.RefusalText(br, x.cfg.Session))
			return nil
		}
		return x.ask(ctx, daemon)
	case !x.cfg.Groups.has(groupWindow):
		bp.body = daemoncall.BrowserStatusBody(x.cfg.Session)
		return x.result(br, bp)
	}
	bp.body = func(r wire.Response, w io.Writer) error {
		daemoncall.StatusBody(x.cfg.Session)(r, w)
		daemoncall.PrintBrowserSet(r, w)
		return nil
	}
	return x.result(br, bp)
}

// watch answers the live view's address: the target named, else — for a
// server of browser tools alone, as vibespace-browser watch does — the
// session's current tab, else the overview.
func watch(ctx context.Context, x *server, in watchArgs) *mcp.CallToolResult {
	if in.Host != "" && !in.Xpra {
		return toolError(target.CodeBadRequest, "ssh goes with xpra: {\"xpra\": true, \"ssh\": \"ada@build-box\"}")
	}
	p := plan{req: args.Request("watch", in.Target, in.Watch), body: daemoncall.PrintWatch}
	if !x.cfg.Groups.has(groupWindow) { // browser tools alone: vibespace-browser watch's words
		p.req.Target = daemoncall.TabHandle(in.Target) // "3" is tab:3
		if p.req.Target == "" {                        // the current tab
			tp := tabPlan("list", "", "")
			tp.req.Profile = in.Profile
			r, err := x.call(ctx, tp)
			if err != nil {
				return failed(err, tp.req)
			}
			if !r.OK {
				return x.result(r, tp)
			}
			p.req.Target = daemoncall.CurrentTab(r)
		}
	}
	return x.ask(ctx, p)
}
