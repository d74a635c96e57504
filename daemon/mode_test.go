package daemon

import (
	"encoding/json"
	"github.com/vibespace/vibespace/daemon/args"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// events are the kinds of what the fake display received, raises left out.
func events(b *kindtest.Provider) string {
	var out []string
	for _, ev := range b.Display().Events() {
		if ev.Kind != "raise" {
			out = append(out, ev.Kind)
		}
	}
	return strings.Join(out, ",")
}

// TestModeGatesTheVerbs: a window opened --mode pixels refuses the tree
// verbs mode_pixels and runs the point verbs; set to tree, it refuses the
// point verbs mode_tree and reads its tree; auto runs both; a bad word is
// bad_mode; every answer names the mode; the mode outlives a restart.
func TestModeGatesTheVerbs(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	wantCode(t, td.call(t, Request{Verb: "open", Session: "a"}.With(args.Open{App: "fake-app", Mode: "pixel"})), target.CodeBadMode)
	if b.Started() != 0 {
		t.Fatal("a bad mode started a display")
	}
	open := td.call(t, Request{Verb: "open", Session: "a"}.With(args.Open{App: "fake-app", Mode: "pixels"}))
	wantCode(t, open, "")
	if open.Target.Mode != target.ModePixels {
		t.Fatalf("open answer %+v", open.Target)
	}
	id := string(open.Target.ID)
	call := func(req Request) Response {
		req.Session, req.Target = "a", id
		return td.call(t, req)
	}
	r := call(Request{Verb: "snapshot"})
	wantCode(t, r, target.CodeModePixels)
	if r.Facts["switch"] != "vibespace-window mode "+id+" tree" || r.Target == nil || r.Target.Mode != target.ModePixels {
		t.Fatalf("mode_pixels answer %+v", r)
	}
	wantCode(t, call(Request{Verb: "click"}.With(args.Click{Ref: "@e2"})), target.CodeModePixels)
	wantCode(t, call(Request{Verb: "type"}.With(args.Type{Ref: "@e4", Text: "x"})), target.CodeModePixels)
	// find and get read the tree as snapshot does (the verb table's law
	// verb): pixels mode refuses them too.
	wantCode(t, call(Request{Verb: "find"}.With(args.Find{Text: "Alpha"})), target.CodeModePixels)
	wantCode(t, call(Request{Verb: "get"}.With(args.GetNode{What: "text", Ref: "@e2"})), target.CodeModePixels)
	wantCode(t, call(Request{Verb: "screenshot"}), "")
	wantCode(t, call(Request{Verb: "click"}.With(args.Click{At: "5,6"})), "")
	wantCode(t, call(Request{Verb: "scroll"}.With(args.Scroll{At: "5,6", Direction: "down"})), "")
	wantCode(t, call(Request{Verb: "type"}.With(args.Type{Text: "x"})), "")
	wantCode(t, call(Request{Verb: "key"}.With(args.Key{Chord: "a"})), "")
	if got := events(b); got != "click,scroll,type,key" {
		t.Fatalf("pixels mode: the display received %s", got)
	}

	wantCode(t, call(Request{Verb: "mode"}.With(args.Mode{Mode: "banana"})), target.CodeBadMode)
	wantCode(t, call(Request{Verb: "mode"}), target.CodeBadMode)
	wantCode(t, td.call(t, Request{Verb: "mode", Session: "b", Target: id}.With(args.Mode{Mode: "tree"})), target.CodeNotExposed)
	r = call(Request{Verb: "mode"}.With(args.Mode{Mode: "tree"}))
	wantCode(t, r, "")
	if r.Target.Mode != target.ModeTree || !strings.Contains(r.Did, "was pixels") {
		t.Fatalf("mode tree answer %+v", r)
	}
	wantCode(t, call(Request{Verb: "click"}.With(args.Click{At: "5,6"})), target.CodeModeTree)
	r = call(Request{Verb: "scroll"}.With(args.Scroll{At: "5,6", Direction: "down"}))
	wantCode(t, r, target.CodeModeTree)
	if r.Facts["switch"] != "vibespace-window mode "+id+" pixels" {
		t.Fatalf("mode_tree answer %+v", r)
	}
	wantCode(t, call(Request{Verb: "snapshot"}), "")
	wantCode(t, call(Request{Verb: "click"}.With(args.Click{Ref: "@e2"})), "")
	wantCode(t, call(Request{Verb: "scroll"}.With(args.Scroll{Direction: "down"})), "") // at the window's centre: no pixel chosen
	wantCode(t, call(Request{Verb: "key"}.With(args.Key{Chord: "b"})), "")
	if got := events(b); got != "click,scroll,type,key,action,scroll,key" {
		t.Fatalf("tree mode: the display received %s", got)
	}

	r = call(Request{Verb: "mode"}.With(args.Mode{Mode: "auto"}))
	wantCode(t, r, "")
	if r.Target.Mode != target.ModeAuto || r.Target.Resolved != target.ModeTree || r.Target.ModeWhy == "" {
		t.Fatalf("mode auto answer %+v", r.Target)
	}
	wantCode(t, call(Request{Verb: "click"}.With(args.Click{At: "5,6"})), "")
	wantCode(t, call(Request{Verb: "snapshot"}), "")
	wantCode(t, call(Request{Verb: "mode"}.With(args.Mode{Mode: "pixels"})), "")

	// The audit has each mode verb of a on the window: banana, none, tree,
	// auto, pixels, whether it ran or was refused.
	b2, err := os.ReadFile(filepath.Join(dir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, line := range strings.Split(strings.TrimSpace(string(b2)), "\n") {
		var e lease.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Verb == "mode" && e.Session == "a" && string(e.Target) == id {
			codes = append(codes, string(e.Code)+":"+string(e.Mode))
		}
	}
	if got := strings.Join(codes, ","); got != "bad_mode:,bad_mode:,:tree,:auto,:pixels" {
		t.Fatalf("the audit's mode rows of a (code:mode): %q", got)
	}

	td.Detach() // as if killed
	<-td.done
	td2 := startDaemon(t, b, dir)
	list := td2.call(t, Request{Verb: "list", Session: "a"})
	if len(list.Targets) != 1 || list.Targets[0].Mode != target.ModePixels {
		t.Fatalf("after a restart: %+v", list.Targets)
	}
	wantCode(t, td2.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), target.CodeModePixels)
	st, _ := os.ReadFile(filepath.Join(dir, stateFile))
	if !strings.Contains(string(st), `"mode": "pixels"`) {
		t.Fatalf("state.json lacks the mode:\n%s", st)
	}
}

// TestModeIsAWindowsOnly: a tab has no mode, and only open and mode take
// one.
func TestModeIsAWindowsOnly(t *testing.T) {
	br := kindtest.NewBrowser()
	td := startKinds(t, "", br, &kindtest.Provider{})
	wantCode(t, td.call(t, Request{Verb: "browser.open", Session: "a", Args: json.RawMessage(`{"url":"http://127.0.0.1:1/","mode":"pixels"}`)}), target.CodeBadRequest)
	open := td.call(t, Request{Verb: "browser.open", Session: "a"}.With(args.OpenURL{URL: "http://127.0.0.1:1/"}))
	wantCode(t, open, "")
	if open.Target.Mode != "" {
		t.Fatalf("a tab has a mode: %+v", open.Target)
	}
	wantCode(t, td.call(t, Request{Verb: "mode", Session: "a", Target: string(open.Target.ID)}.With(args.Mode{Mode: "tree"})), target.CodeWrongKind)
	id := string(td.open(t, "a"))
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: id, Args: json.RawMessage(`{"chord":"a","mode":"tree"}`)}), target.CodeBadRequest)
	list := td.call(t, Request{Verb: "list", Session: "a"})
	if len(list.Targets) != 2 || list.Targets[0].Mode != target.ModeAuto || list.Targets[0].Resolved != target.ModeTree || list.Targets[1].Mode != "" {
		t.Fatalf("list %+v", list.Targets)
	}
}
