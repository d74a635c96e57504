package args

import (
	"encoding/json"
	"reflect"
	"slices"
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
		if _, ok := Zero(v); !ok {
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

// filled sets every field of the struct v points to: what a round trip
// must carry back.
func filled(t *testing.T, v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("w" + v.Type().Field(i).Name)
		case reflect.Int:
			f.SetInt(int64(7 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.String { // a batch's steps
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
				filled(t, f.Index(0))
				continue
			}
			f.Set(reflect.ValueOf([]string{"a", "b c"}))
		case reflect.Map: // a batch step's arguments
			f.Set(reflect.ValueOf(map[string]any{"ref": "@e1", "n": 2.5}))
		case reflect.Struct:
			filled(t, f)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			filled(t, f.Elem())
		default:
			t.Fatalf("%s: a field of kind %s: teach filled it", v.Type(), f.Kind())
		}
	}
}

// TestArgumentsRoundTrip: every verb's arguments, every field set, go
// onto a request's wire line and come back from the daemon's decoding
// unchanged.
func TestArgumentsRoundTrip(t *testing.T) {
	for _, v := range verb.Names() {
		zero, _ := Zero(v)
		p := reflect.New(reflect.TypeOf(zero))
		filled(t, p.Elem())
		a := p.Elem().Interface().(Args)
		line, err := json.Marshal(Request(v, "win:1", a))
		if err != nil {
			t.Fatal(err)
		}
		req, err := wire.DecodeRequest(line)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		b, ok, err := Decode(req.Verb, req.Args)
		if !ok || err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: read back %+v (%v), want %+v", v, b, err, a)
		}
	}
}

// TestRequestIsAnEnvelope: a request holds its envelope and the verb's
// arguments, nothing of any one verb's.
func TestRequestIsAnEnvelope(t *testing.T) {
	var got []string
	rt := reflect.TypeFor[wire.Request]()
	for i := range rt.NumField() {
		got = append(got, rt.Field(i).Name)
	}
	if want := []string{"Verb", "Session", "Target", "For", "Profile", "Headed", "JSON", "Args"}; !reflect.DeepEqual(got, want) {
		t.Errorf("wire.Request has %v, want the envelope %v", got, want)
	}
}

// TestDecodeRefuses: what is not the verb's arguments is refused
// bad_request, naming what is wrong; none are the zero value.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		verb, raw, msg, arg string
	}{
		{"click", `{"ref":"@e1","mode":"tree"}`, `click takes no argument "mode" (its arguments: at, no_verify, ref)`, "mode"},
		{"status", `{"ref":"@e1"}`, `status takes no argument "ref" (its arguments: none)`, "ref"},
		{"browser.fill", `{"ref":7}`, `fill's arguments: json: cannot unmarshal number`, ""},
		{"scroll", `{"by":1} {"by":2}`, `scroll's arguments: more than one JSON value`, ""},
		{"type", `[1]`, `type's arguments: json: cannot unmarshal array`, ""},
	} {
		_, ok, err := Decode(c.verb, json.RawMessage(c.raw))
		if !ok || target.CodeOf(err) != target.CodeBadRequest || !strings.Contains(err.Error(), c.msg) || Unknown(err) != c.arg {
			t.Errorf("%s %s: %v (argument %q), want bad_request %q naming %q", c.verb, c.raw, err, Unknown(err), c.msg, c.arg)
		}
	}
	for _, raw := range []string{"", "null", "{}"} {
		a, ok, err := Decode("scroll", json.RawMessage(raw))
		if !ok || err != nil || a != (Scroll{}) {
			t.Errorf("scroll %q: %+v %v, want the zero arguments", raw, a, err)
		}
	}
	if _, ok, _ := Decode("frobnicate", nil); ok {
		t.Error("a verb the table does not list decoded")
	}
}

// TestTheStagesReadings: the readings every stage makes of any verb's
// arguments (where it acts, what it types, --no-verify).
func TestTheStagesReadings(t *testing.T) {
	if Ref(Click{Ref: "@e1"}) != "@e1" || Ref(Snapshot{Observe: Observe{Ref: "@e2"}}) != "@e2" || Ref(Key{Chord: "a"}) != "" {
		t.Error("Ref")
	}
	if p := Point(Scroll{At: "3,4"}); p == nil || *p != (wire.Point{X: 3, Y: 4}) || Point(Click{Ref: "@e1"}) != nil || Point(Empty{}) != nil {
		t.Error("Point")
	}
	if Text(Fill{Text: "hé"}) != "hé" || Text(Find{Text: "x"}) != "" {
		t.Error("Text: a find's text is not typed")
	}
	if !NoVerify(Nav{NoVerify: true}) || NoVerify(Click{}) || NoVerify(Empty{}) {
		t.Error("NoVerify")
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

// TestFactsAgreeWithTheTypes: the verb table's Mode and Secret facts (which
// verbs take a mode, a key) say what the arguments' types hold, so the
// refusal of a mode or a key sent with another verb names the right verbs.
func TestFactsAgreeWithTheTypes(t *testing.T) {
	for _, f := range verb.All() {
		fields := Fields(f.Name)
		if has := slices.Contains(fields, "mode"); has != f.Mode {
			t.Errorf("%s: the table says it takes a mode: %v; its arguments %v", f.Name, f.Mode, fields)
		}
		if has := slices.Contains(fields, "secret"); has != f.Secret {
			t.Errorf("%s: the table says it takes a key: %v; its arguments %v", f.Name, f.Secret, fields)
		}
	}
}
