// Package args is one Go type per verb's arguments: what a command line,
// the MCP server and the daemon each take of a request beyond its envelope
// (the verb, the session, the target, --for and the profile a browser verb
// acts in). Each type's Validate holds the rules a daemon applies to its
// arguments alone, with the refusal's code and words, so a client refuses
// a bad argument with no daemon running exactly as the daemon would; the
// rules that need the daemon's state (its limits of typed text, the
// providers that take a key, the user's desktop's gate, the provider rows)
// stay the daemon's. Into puts a type onto a wire.Request; Of reads the
// arguments of a request's verb back. The JSON form of a type is the
// arguments of the MCP tool built on it (the go-sdk derives each tool's
// input schema from it).
//
// Clients link it: it imports only the wire protocol, the verb table and
// the shared model, never a backend or the daemon's core.
package args

import (
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
	// Into sets the arguments' fields of req (its envelope is the
	// caller's). Call Validate first: what does not parse (a point that
	// is no x,y) is left out.
	Into(req *wire.Request)
}

// table reads each verb's arguments from a request: every verb of the
// verb table has exactly one entry (TestEveryVerbHasArgs).
var table = map[string]func(wire.Request) Args{
	// vibespace-window
	"status":     none,
	"doctor":     func(r wire.Request) Args { return DoctorOf(r) },
	"list":       none,
	"open":       func(r wire.Request) Args { return OpenOf(r) },
	"close":      none,
	"attach":     none,
	"detach":     none,
	"share":      func(r wire.Request) Args { return ShareOf(r) },
	"takeover":   func(r wire.Request) Args { return OperatorOf(r) },
	"handback":   func(r wire.Request) Args { return OperatorOf(r) },
	"watch":      func(r wire.Request) Args { return WatchOf(r) },
	"snapshot":   func(r wire.Request) Args { return SnapshotOf(r) },
	"screenshot": none,
	"click":      func(r wire.Request) Args { return ClickOf(r) },
	"type":       func(r wire.Request) Args { return TypeOf(r) },
	"key":        func(r wire.Request) Args { return KeyOf(r) },
	"scroll":     func(r wire.Request) Args { return ScrollOf(r) },
	"select":     func(r wire.Request) Args { return SelectOf(r) },
	"mode":       func(r wire.Request) Args { return ModeOf(r) },
	"desktop":    func(r wire.Request) Args { return DesktopOf(r) },
	"find":       func(r wire.Request) Args { return FindOf(r) },
	"get":        func(r wire.Request) Args { return GetNodeOf(r) },
	"trace":      func(r wire.Request) Args { return TraceOf(r) },
	"budget":     func(r wire.Request) Args { return BudgetOf(r) },
	"key.set":    func(r wire.Request) Args { return KeySetOf(r) },
	"key.clear":  func(r wire.Request) Args { return KeyNamedOf(r) },
	"key.list":   func(r wire.Request) Args { return KeyNamedOf(r) },

	// vibespace-browser: the same verbs on the current tab…
	"browser.snapshot":   func(r wire.Request) Args { return SnapshotOf(r) },
	"browser.screenshot": none,
	"browser.click":      func(r wire.Request) Args { return ClickOf(r) },
	"browser.type":       func(r wire.Request) Args { return TypeOf(r) },
	"browser.key":        func(r wire.Request) Args { return KeyOf(r) },
	"browser.scroll":     func(r wire.Request) Args { return ScrollOf(r) },
	"browser.find":       func(r wire.Request) Args { return FindOf(r) },
	"browser.select":     func(r wire.Request) Args { return SelectOf(r) },
	// …and the browser's own words.
	"browser.fill":        func(r wire.Request) Args { return FillOf(r) },
	"browser.get":         func(r wire.Request) Args { return GetOf(r) },
	"browser.eval":        func(r wire.Request) Args { return EvalOf(r) },
	"browser.back":        func(r wire.Request) Args { return NavOf(r) },
	"browser.forward":     func(r wire.Request) Args { return NavOf(r) },
	"browser.reload":      func(r wire.Request) Args { return NavOf(r) },
	"browser.wait":        func(r wire.Request) Args { return WaitOf(r) },
	"browser.open":        func(r wire.Request) Args { return OpenURLOf(r) },
	"browser.tab":         func(r wire.Request) Args { return TabOf(r) },
	"browser.profiles":    none,
	"browser.new":         func(r wire.Request) Args { return NewOf(r) },
	"browser.close":       func(r wire.Request) Args { return CloseOf(r) },
	"browser.use":         func(r wire.Request) Args { return UseOf(r) },
	"browser.attachments": none,
	"browser.detach":      none,
	"browser.pin":         func(r wire.Request) Args { return PinOf(r) },
	"browser.new-child":   func(r wire.Request) Args { return ChildOf(r) },
	"browser.status":      none,
	"browser.trace":       func(r wire.Request) Args { return TraceOf(r) },
	"browser.budget":      func(r wire.Request) Args { return BudgetOf(r) },
}

func none(wire.Request) Args { return Empty{} }

// Of reads the arguments of req's verb from req; ok is false for a verb
// the verb table does not list.
func Of(req wire.Request) (a Args, ok bool) {
	of, ok := table[req.Verb]
	if !ok {
		return nil, false
	}
	return of(req), true
}

// Check validates the arguments of req's verb: nil for a verb the table
// does not list (the daemon refuses it unknown, naming its verbs).
func Check(req wire.Request) error {
	a, ok := Of(req)
	if !ok {
		return nil
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

// Into sets nothing.
func (Empty) Into(*wire.Request) {}

// badRequest is a refusal of a bad argument.
func badRequest(format string, a ...any) *target.Refusal {
	return target.Refuse(target.CodeBadRequest, format, a...)
}

// Request is verb's request on the target named ("" none) carrying a; the
// rest of its envelope (the session, --for, the profile a browser verb
// acts in) is the caller's to set.
func Request(verb, target string, a Args) wire.Request {
	req := wire.Request{Verb: verb, Target: target}
	a.Into(&req)
	return req
}
