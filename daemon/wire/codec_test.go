package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// tricky are strings every escape of encoding/json touches.
var tricky = []string{
	"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "\b\f\n\r\t", "\x00\x01\x1f\x7f",
	"line\u2028para\u2029", "bad \xff\xfe utf-8", "é ü 中文 😀", "/slash/", `\u0041`,
}

// fill sets every field reachable from v (settable) to a value that is
// not its zero value, strings to s, so that a field a hand-written codec
// forgets shows as a difference from encoding/json.
func fill(v reflect.Value, s string, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s, depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fill(v.Field(i), s, depth)
			}
		}
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(-1234567)
	case reflect.Uint8, reflect.Uint, reflect.Uint32, reflect.Uint64:
		v.SetUint(200)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(2.5)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage{}) {
			v.SetBytes([]byte(`{"a":[1,2.5,"x",null,true]}`))
			return
		}
		if depth > 4 {
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := 0; i < 2; i++ {
			fill(v.Index(i), s, depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		if v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.Interface {
			v.SetMapIndex(reflect.ValueOf("s"), reflect.ValueOf(s))
			v.SetMapIndex(reflect.ValueOf("n"), reflect.ValueOf(3.0))
			v.SetMapIndex(reflect.ValueOf("l"), reflect.ValueOf([]any{"a", false}))
		}
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(s))
		}
	default:
		panic(fmt.Sprintf("fill: a field of kind %s: teach fill (and the codec) about it", v.Kind()))
	}
}

// TestRequestLine holds the client's request line to json.Marshal, byte
// for byte (the hand-written encoder it replaced was held to the same, so
// a daemon reads old clients' lines and new ones alike), with every field
// set and with each field alone, over strings that need escaping; and the
// daemon decodes it back to the same request.
func TestRequestLine(t *testing.T) {
	check := func(req Request) {
		t.Helper()
		want, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := requestLine(&req)
		if err != nil || !bytes.Equal(got, append(want, '\n')) {
			t.Fatalf("requestLine (%v):\n got %s\nwant %s", err, got, want)
		}
	}
	line := func(req Request) []byte {
		t.Helper()
		b, err := requestLine(&req)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	check(Request{})
	for _, s := range tricky {
		var all Request
		fill(reflect.ValueOf(&all).Elem(), s, 0)
		check(all)
		if s != "" && s != "bad \xff\xfe utf-8" {
			back, err := DecodeRequest(line(all))
			if err != nil || !reflect.DeepEqual(back, all) {
				t.Fatalf("the daemon decodes %q back as %+v (%v), want %+v", s, back, err, all)
			}
		}
		// Each field alone: the omitempty of the others.
		rt := reflect.TypeOf(Request{})
		for i := 0; i < rt.NumField(); i++ {
			var one Request
			fill(reflect.ValueOf(&one).Elem().Field(i), s, 0)
			check(one)
		}
	}
	check(Request{Verb: "scroll"}.With(map[string]any{"at": "0,0", "by": -3}))
	// snapshot --after with the view options it takes, as its arguments.
	after := Request{Verb: "snapshot", Session: "s", JSON: true}.With(map[string]any{"interactive": true, "depth": 2, "after": "@e13333"})
	check(after)
	l := line(after)
	if !bytes.Contains(l, []byte(`"json":true,"args":{"after":"@e13333","depth":2,"interactive":true}`)) {
		t.Fatalf("snapshot --after encodes as %s", l)
	}
	if back, err := DecodeRequest(l); err != nil || !reflect.DeepEqual(back, after) {
		t.Fatalf("the daemon decodes snapshot --after back as %+v (%v), want %+v", back, err, after)
	}
}

// TestDecodeResponse holds the answer decoder to json.Unmarshal: an answer
// with every field set (as the daemon writes it) decodes on the fast path
// to what json.Unmarshal gives, and so do the answers the daemon sends.
func TestDecodeResponse(t *testing.T) {
	for _, s := range tricky {
		var all Response
		fill(reflect.ValueOf(&all).Elem(), s, 0)
		line, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		var fast Response
		if !fastResponse(line, &fast) {
			t.Fatalf("an answer with every field (strings %q) left the fast path: a field it does not know?\n%s", s, line)
		}
		var want Response
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("fast path:\n got %+v\nwant %+v\nline %s", fast, want, line)
		}
	}
	for _, line := range []string{
		`{"v":1,"ok":true,"target":{"id":"tab:5A7E","title":"Tiny Page","lease":"held by perf since 2026-11-30T04:32:41Z","input":"agent","holder":"perf","since":"2026-11-30T04:32:41Z"},"text":"Tiny Page","profile":{"ephemeral":true,"attachments":0}}`,
		`{"v":1,"ok":true,"did":"1 tab(s) of yours; 0 attachment(s)","targets":[],"status":{"pid":9565,"socket":"/run/vibespace/window-25b039cd.sock","state_dir":"/srv/state","targets":1,"yours":1,"started":"2026-11-30T04:32:34Z","audit":"/srv/state/audit.jsonl","max_request":1048576}}`,
		"  {\"v\" : 1 , \"ok\":false,\"code\":\"stale_ref\",\"message\":\"ref @e3 is gone\",\"facts\":{\"ref\":\"@e3\",\"n\":2}}\n",
		`{"v":1,"ok":true,"value":  {"a" : [1, 2.5e3]} ,"attachments":[{"id":"bp-3f9a1c02","label":"work","default":true,"attachments":2}]}`,
		`{}`,
	} {
		var fast, want Response
		if !fastResponse([]byte(line), &fast) {
			t.Fatalf("left the fast path: %s", line)
		}
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("fast path:\n got %+v\nwant %+v\nline %s", fast, want, line)
		}
	}
}

// slowLines are lines the fast path leaves to json.Unmarshal: decoding
// them must still give what json.Unmarshal gives, error or not.
var slowLines = []string{
	`{"v":1,"v":2}`, `{"target":{"id":"a"},"target":{"title":"b"}}`, `{"OK":true}`, `{"v":null}`,
	`{"target":null}`, `{"v":1.0}`, `{"v":1e2}`, `{"v":01}`, `{"text":"\ud83d\ude00"}`, `{"text":"\ud83d"}`,
	"{\"text\":\"bad \xff\"}", `{"unknown":[1,{"a":"}"}]}`, `{"v":1} x`, `{"v":1`, ``, `null`, `[]`,
	`{"text":"a` + "\x01" + `"}`, `{"ok":tru}`, `{"facts":{"a":}}`, `{"value":[1,]}`, `{"targets":[{"pid":"x"}]}`,
	`{"v":99999999999999999999999}`, `{"text":"\x"}`, `{"png":"not base64!"}`, `{"png":"aGk="}`,
}

func TestDecodeResponseFallback(t *testing.T) {
	for _, line := range slowLines {
		var got, want Response
		errGot := decodeResponse([]byte(line), &got)
		errWant := json.Unmarshal([]byte(line), &want)
		if (errGot == nil) != (errWant == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v (%v)\nwant %+v (%v)", line, got, errGot, want, errWant)
		}
	}
}

// FuzzDecodeResponse: whatever the line, decodeResponse answers what
// json.Unmarshal answers.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range slowLines {
		f.Add([]byte(s))
	}
	var all Response
	fill(reflect.ValueOf(&all).Elem(), "x<\"y", 0)
	line, _ := json.Marshal(all)
	f.Add(line)
	f.Fuzz(func(t *testing.T, line []byte) {
		var got, want Response
		errGot := decodeResponse(line, &got)
		errWant := json.Unmarshal(line, &want)
		if (errGot == nil) != (errWant == nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", line, errGot, errWant)
		}
		if errWant == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	})
}
