package args

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// TestEveryVerbHasArgs walks the verb table: every verb has its
// arguments' type, and no type is kept for a verb the table lacks.
func TestEveryVerbHasArgs(t *testing.T) {
	for _, v := range verb.Names() {
		if _, ok := Of(wire.Request{Verb: v}); !ok {
			t.Errorf("verb %s has no arguments' type", v)
		}
	}
	for v := range table {
		if _, ok := verb.Of(v); !ok {
			t.Errorf("arguments of %s, which the verb table does not list", v)
		}
	}
	if got, want := Verbs(), verb.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Verbs() = %v, want %v", got, want)
	}
}

// full is a request with every argument field set.
func full(v string) wire.Request {
	return wire.Request{Verb: v, Session: "s", Target: "win:1", Ref: "@e1", Text: "hi", Chord: "ctrl+s",
		At: &wire.Point{X: 3, Y: 4}, Dir: "up", By: 5, With: "s2", Argv: []string{"xterm", "-e", "sh"}, Display: "xpra",
		Interactive: true, JSON: true, User: "ada", Force: true, Mode: "tree", Xpra: true, Host: "a@b",
		Depth: 2, Diff: true, After: "@e9", Values: []string{"Red"}, NoVerify: true, Steps: 7, Minutes: 8, Reset: true,
		URL: "https://example.com", Profile: "work", Label: "lab", Alias: "al", None: true, Action: "text",
		Expr: "1+1", Selector: "#x", Headed: true, For: "s3", Backend: "desktop-app", Size: "800x600", Task: "t",
		Last: 9, Provider: "cloud:browserless", Secret: "k", Endpoint: "wss://x", Desktop: &wire.DesktopEnv{Display: ":0"}}
}

// TestIntoCarriesWhatOfRead: the arguments read from a request go back
// onto one unchanged, and Into writes no field it did not read.
func TestIntoCarriesWhatOfRead(t *testing.T) {
	for _, v := range verb.Names() {
		req := full(v)
		a, _ := Of(req)
		var out wire.Request
		a.Into(&out)
		out.Verb = v
		if b, _ := Of(out); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: read back %+v, want %+v", v, b, a)
		}
		ov, rv := reflect.ValueOf(out), reflect.ValueOf(req)
		for i := range ov.NumField() {
			if f := ov.Field(i); !f.IsZero() && !reflect.DeepEqual(f.Interface(), rv.Field(i).Interface()) {
				t.Errorf("%s: Into set %s to %v, the request had %v", v, ov.Type().Field(i).Name, f.Interface(), rv.Field(i).Interface())
			}
		}
	}
}

// TestEnvelopeIsNoArgument: the envelope (session, target, --for, the
// profile a browser verb acts in) is no verb's argument: Into never sets
// it (pin's profile is the one pinned, its argument).
func TestEnvelopeIsNoArgument(t *testing.T) {
	for _, v := range verb.Names() {
		a, _ := Of(full(v))
		var out wire.Request
		a.Into(&out)
		if out.Session != "" || out.Target != "" || out.For != "" || (out.Profile != "" && v != "browser.pin") {
			t.Errorf("%s: Into set the envelope: %+v", v, out)
		}
	}
}

func TestValidateRefuses(t *testing.T) {
	for _, c := range []struct {
		a    Args
		code target.Code
		msg  string
	}{
		{Click{}, target.CodeBadRequest, "click needs exactly one of @ref or --at x,y"},
		{Click{Ref: "@e1", At: "1,2"}, target.CodeBadRequest, "click needs exactly one of @ref or --at x,y"},
		{Click{At: "1;2"}, target.CodeBadRequest, "--at \"1;2\": expected x,y"},
		{Type{Text: "a\x00b"}, target.CodeBadRequest, "the text holds a NUL character (U+0000) at character 2"},
		{Type{Text: "\xff"}, target.CodeBadRequest, "the text is not valid UTF-8"},
		{Fill{Text: "x"}, target.CodeBadRequest, "fill needs @ref and a text"},
		{Key{Chord: ""}, target.CodeBadChord, "empty chord"},
		{Scroll{Direction: "sideways"}, target.CodeBadRequest, "scroll direction \"sideways\": use up, down, left or right"},
		{Scroll{By: 101}, target.CodeBadRequest, "--by 101: use 1 to 100 steps"},
		{Select{}, target.CodeBadRequest, "select needs @ref and the options"},
		{Select{Ref: "@e1", Options: make([]string, 101)}, target.CodeBadRequest, "select takes at most 100 options at once, not 101"},
		{Select{Ref: "@e1", Options: []string{strings.Repeat("x", 1001)}}, target.CodeBadRequest, "an option is 1001 characters; at most 1000"},
		{Mode{Mode: "sideways"}, target.CodeBadMode, "\"sideways\" is not a mode: use auto, tree or pixels"},
		{Open{Mode: "sideways"}, target.CodeBadMode, "\"sideways\" is not a mode"},
		{Snapshot{Observe: Observe{Depth: -1}}, target.CodeBadRequest, "--depth takes a number of levels"},
		{Snapshot{Observe: Observe{Depth: 1, Diff: true}}, target.CodeBadRequest, "--diff answers what changed, not levels"},
		{Snapshot{Observe: Observe{Ref: "@e1"}, After: "@e2"}, target.CodeBadRequest, "--after reads on past a snapshot its budget cut"},
		{Snapshot{Observe: Observe{Diff: true}, After: "@e2"}, target.CodeBadRequest, "--diff answers what changed since your last whole snapshot"},
		{Find{Text: " "}, target.CodeBadRequest, "find needs the text to look for"},
		{GetNode{What: "url", Ref: "@e1"}, target.CodeBadRequest, "get \"url\": a window's get is get <handle> text @ref"},
		{Get{What: "html"}, target.CodeBadRequest, "get \"html\": use text, url or title"},
		{Eval{Expr: " "}, target.CodeBadRequest, "eval needs an expression"},
		{Close{}, target.CodeBadRequest, "close needs a desktop app's profile"},
	} {
		err := c.a.Validate()
		if target.CodeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%#v: refused %v (%s), want %s %q", c.a, err, target.CodeOf(err), c.code, c.msg)
		}
	}
	for _, a := range []Args{Click{Ref: "@e1"}, Click{At: "1,2"}, Type{Text: "héllo"}, Fill{Ref: "@e1"}, Key{Chord: "ctrl+s"},
		Scroll{}, Scroll{Direction: "left", By: 100, At: "0,0"}, Select{Ref: "@e1"}, Mode{Mode: "auto"}, Open{},
		Snapshot{Observe: Observe{Depth: 1}}, Find{Text: "Save"}, GetNode{What: "text", Ref: "@e1"}, Get{What: "title"},
		Eval{Expr: "1"}, Close{Label: "x"}, Empty{}} {
		if err := a.Validate(); err != nil {
			t.Errorf("%#v: refused %v", a, err)
		}
	}
}

func TestTextWithin(t *testing.T) {
	if err := TextWithin("héllo", 5, "typed as keys"); err != nil {
		t.Fatal(err)
	}
	err := TextWithin("héllo!", 5, "typed as keys")
	if target.CodeOf(err) != target.CodeTextTooLong || !strings.Contains(err.Error(), "the text is 6 characters; at most 5 can be typed as keys (split it)") {
		t.Fatalf("got %v", err)
	}
}
