// Package args is one Go type per verb's arguments: what a command line,
// the MCP server and the daemon each take of a request beyond its envelope
// (the verb, the session, the target, --for, the profile a browser verb
// acts in and how its browser runs, and the answer's form). Each type's Validate holds the rules a
// daemon applies to its arguments alone, with the refusal's code and
// words, so a client refuses a bad argument with no daemon running exactly
// as the daemon would; the rules that need the daemon's state (its limits
// of typed text, the providers that take a key, the user's desktop's gate,
// the provider rows) stay the daemon's. A type's JSON form is both the
// request's arguments on the wire (Request puts it there, Decode reads it
// back) and the arguments of the MCP tool built on it (the go-sdk derives
// each tool's input schema from it).
//
// Clients link it: it imports only the wire protocol, the verb table and
// the shared model, never a backend or the daemon's core.
package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"

	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Args are one verb's arguments.
type Args interface {
	// Validate refuses arguments no daemon would take, with the code and
	// words the daemon refuses them with; nil when none of its own rules
	// is broken.
	Validate() error
}

// table reads each verb's arguments from a request: every verb of the
// verb table has exactly one entry (TestEveryVerbHasArgs).
var table = map[string]func(json.RawMessage) (Args, error){
	// vibespace-window
	"status":     of[Empty],
	"doctor":     of[Doctor],
	"list":       of[Empty],
	"open":       of[Open],
	"close":      of[Empty],
	"attach":     of[Empty],
	"detach":     of[Empty],
	"share":      of[Share],
	"takeover":   of[Operator],
	"handback":   of[Operator],
	"watch":      of[Watch],
	"snapshot":   of[Snapshot],
	"screenshot": of[Empty],
	"click":      of[Click],
	"type":       of[Type],
	"key":        of[Key],
	"scroll":     of[Scroll],
	"select":     of[Select],
	"fill":       of[Fill],
	"mode":       of[Mode],
	"desktop":    of[Desktop],
	"find":       of[Find],
	"get":        of[GetNode],
	"trace":      of[Trace],
	"budget":     of[Budget],
	"key.set":    of[KeySet],
	"key.clear":  of[KeyNamed],
	"key.list":   of[KeyNamed],
	"batch":      of[Batch],
	"borrow":     of[Borrow],
	"handoff":    of[Handoff],
	"return":     of[Empty],

	// vibespace-browser: the same verbs on the current tab…
	"browser.snapshot":   of[Snapshot],
	"browser.screenshot": of[Empty],
	"browser.click":      of[Click],
	"browser.type":       of[Type],
	"browser.key":        of[Key],
	"browser.scroll":     of[Scroll],
	"browser.find":       of[Find],
	"browser.select":     of[Select],
	"browser.fill":       of[Fill],
	// …and the browser's own words.
	"browser.get":         of[Get],
	"browser.eval":        of[Eval],
	"browser.back":        of[Nav],
	"browser.forward":     of[Nav],
	"browser.reload":      of[Nav],
	"browser.wait":        of[Wait],
	"browser.open":        of[OpenURL],
	"browser.reach":       of[Reach],
	"browser.tab":         of[Tab],
	"browser.profiles":    of[Empty],
	"browser.new":         of[New],
	"browser.close":       of[Close],
	"browser.use":         of[Use],
	"browser.attachments": of[Empty],
	"browser.detach":      of[Empty],
	"browser.pin":         of[Pin],
	"browser.new-child":   of[Child],
	"browser.status":      of[Empty],
	"browser.trace":       of[Trace],
	"browser.budget":      of[Budget],
	"browser.batch":       of[Batch],
	"browser.borrow":      of[Borrow],
	"browser.return":      of[Empty],
	"browser.handoff":     of[Handoff],
}

// of decodes the arguments of a verb whose type is T: none (no bytes, or
// null) is T's zero value; a field T does not have, a second JSON value
// or a value of the wrong type is refused.
func of[T Args](raw json.RawMessage) (Args, error) {
	var a T
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return a, nil
}

// Decode reads the arguments of verb from raw (a request's Args) into
// verb's type. A verb the verb table does not list has none (ok false);
// arguments that are not verb's are refused bad_request, naming the field
// (Unknown reads it back).
func Decode(verbName string, raw json.RawMessage) (a Args, ok bool, err error) {
	dec, ok := table[verbName]
	if !ok {
		return nil, false, nil
	}
	a, err = dec(raw)
	if err != nil {
		word := strings.TrimPrefix(verbName, verb.BrowserPrefix)
		if f := unknownField(err); f != "" {
			return nil, true, badRequest("%s takes no argument %s (its arguments: %s)", word, target.Echo(f), fieldWords(verbName)).
				With("argument", target.Clip(f)).Wrap(err)
		}
		return nil, true, badRequest("%s's arguments: %s", word, target.Clip(err.Error())).Wrap(err)
	}
	return a, true, nil
}

// Zero is verb's arguments' type at its zero value; ok is false for a
// verb the verb table does not list.
func Zero(verbName string) (Args, bool) {
	a, ok, _ := Decode(verbName, nil)
	return a, ok
}

// Unknown is the argument a refusal of Decode names as not its verb's, or
// "" when err is no such refusal.
func Unknown(err error) string {
	var r *target.Refusal
	if errors.As(err, &r) {
		if f, ok := r.Facts["argument"].(string); ok {
			return f
		}
	}
	return ""
}

// unknownField is the field encoding/json's decoder names in its refusal
// of a field the type does not have ("" another error).
func unknownField(err error) string {
	const prefix = `json: unknown field "`
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, `"`) {
		return ""
	}
	return msg[len(prefix) : len(msg)-1]
}

// Fields lists the JSON names of verb's arguments, sorted.
func Fields(verbName string) []string {
	a, ok := Zero(verbName)
	if !ok {
		return nil
	}
	names := jsonFields(reflect.TypeOf(a))
	sort.Strings(names)
	return names
}

// jsonFields are the JSON names of struct type t's fields, those of an
// embedded struct as its own (as encoding/json reads them).
func jsonFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-", !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, jsonFields(f.Type)...)
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// fieldWords names verb's arguments for a refusal: "none" for none.
func fieldWords(verbName string) string {
	fs := Fields(verbName)
	if len(fs) == 0 {
		return "none"
	}
	return strings.Join(fs, ", ")
}

// Check validates req's arguments, decoded as its verb's: nil for a verb
// the table does not list (the daemon refuses it unknown, naming its
// verbs).
func Check(req wire.Request) error {
	a, ok, err := Decode(req.Verb, req.Args)
	if !ok || err != nil {
		return err
	}
	return a.Validate()
}

// Verbs lists the verbs that have arguments' types: every verb of the
// verb table.
func Verbs() []string {
	var out []string
	for _, v := range verb.Names() {
		if _, ok := table[v]; ok {
			out = append(out, v)
		}
	}
	return out
}

// Empty are the arguments of a verb that takes none beyond its envelope.
type Empty struct{}

// Validate refuses nothing.
func (Empty) Validate() error { return nil }

// badRequest is a refusal of a bad argument.
func badRequest(format string, a ...any) *target.Refusal {
	return target.Refuse(target.CodeBadRequest, format, a...)
}

// Request is verb's request on the target named ("" none) carrying a; the
// rest of its envelope (the session, --for, the profile a browser verb
// acts in, the answer's form) is the caller's to set.
func Request(verb, target string, a Args) wire.Request {
	return wire.Request{Verb: verb, Target: target}.With(a)
}
