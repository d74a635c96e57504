// Package verb is the one table of what is true of each verb the daemon
// answers: how it reaches its target, whether it acts on it (a step of
// the session's budget, watched for loops, recorded in flight, traced
// with a picture), whether it moves the focus, carries typed text, leaves
// the agent's mark for the live view, whether it takes the envelope's
// --for, a mode or a provider's key among its arguments (package
// daemon/args's types hold them; a test holds the two to agree), and
// which verb of
// the capability law (package target) it is decided as. The core, every
// stage and the command lines read this table; no other list of verb
// names exists. It imports nothing of ours but the shared model.
package verb

import (
	"slices"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// Reach is how a verb reaches its target.
type Reach int

const (
	// None: the verb names no target (or finds its own).
	None Reach = iota
	// Handle: the request's Target names a window (vibespace-window's
	// words); a tab's handle is refused wrong_kind. The caller must be
	// exposed to it, and gets its lease.
	Handle
	// Tab: the session's current tab in the chosen profile
	// (vibespace-browser's words), under its lease.
	Tab
)

// Facts is everything the daemon knows of one verb apart from what runs
// it.
type Facts struct {
	Name  string
	Reach Reach
	// Acts: the verb changes its target. It is a step of its session's
	// budget, watched for loops (no_progress), recorded in flight (a
	// daemon killed during it says it was cut), and its trace keeps a
	// picture after it while pictures are on (unless it types text).
	Acts bool
	// Focuses: acting on a node moves the focus to it, so the node's
	// "focused" is no effect the verb meant (a click).
	Focuses bool
	// Types: the verb carries text an agent types (type, fill, key): no
	// picture is kept after it, and the trace keeps how many characters,
	// never which.
	Types bool
	// Marks: where it acted is the agent's mark in the live view (click,
	// scroll, type, key, fill). A mark never carries text.
	Marks bool
	// Untraced: the verb is no step of any trace (reading the trace
	// itself, watching, the keys).
	Untraced bool
	// Unsure: the verb is no step, yet what it does to its target is
	// unknown when the daemon is killed during it (close, eval). It is
	// recorded in flight as every acting verb is.
	Unsure bool
	// For: it takes Request.For, the operator's word for another
	// session's browser attachments, trace or budget.
	For bool
	// Mode: its arguments hold a mode (a window's).
	Mode bool
	// Secret: its arguments hold a provider's key.
	Secret bool
	// Reads: the verb only reads (what the daemon keeps and its targets
	// are as they were): a call the daemon never answered can be sent
	// again safely (daemon_gone), where any other is outcome_unknown.
	Reads bool
	// Picture: its answer is a picture the command line writes to a file,
	// under --json too.
	Picture bool
	// Law is the verb of the capability law it is decided as; "" for a
	// verb the law does not decide (open, navigation, the lease and
	// profile words). LawRef and LawAt replace it when the request names
	// a ref or gives a point.
	Law, LawRef, LawAt target.Verb
}

// LawVerb is the verb of the capability law a request of this verb is
// decided as: ref, whether it names a node; at, whether it gives a point.
// ok is false for a verb the law does not decide.
func (f Facts) LawVerb(ref, at bool) (v target.Verb, ok bool) {
	v = f.Law
	switch {
	case at && f.LawAt != "":
		v = f.LawAt
	case ref && f.LawRef != "":
		v = f.LawRef
	}
	return v, v != ""
}

// Cut reports whether a daemon killed during the verb leaves its effect
// unknown: it is recorded in flight before it runs.
func (f Facts) Cut() bool { return f.Acts || f.Unsure }

// Word is the verb's word as a person types it: "browser.click" is
// "click".
func (f Facts) Word() string { return strings.TrimPrefix(f.Name, BrowserPrefix) }

// Browser reports whether the verb is one of vibespace-browser's.
func (f Facts) Browser() bool { return strings.HasPrefix(f.Name, BrowserPrefix) }

// BrowserPrefix starts the name of every verb of vibespace-browser.
const BrowserPrefix = "browser."

// The shapes the table repeats: the shared verbs that act on a node or a
// point of their target.
var (
	read    = Facts{Reads: true, Law: target.VerbSnapshot}
	picture = Facts{Reads: true, Picture: true, Law: target.VerbScreenshot}
	reads   = Facts{Reads: true}
	click   = Facts{Acts: true, Focuses: true, Marks: true, Law: target.VerbClickRef, LawAt: target.VerbClickAt}
	typing  = Facts{Acts: true, Types: true, Marks: true, Law: target.VerbTypeFocus, LawRef: target.VerbTypeRef}
	fill    = Facts{Acts: true, Types: true, Marks: true, Law: target.VerbTypeRef}
	key     = Facts{Acts: true, Types: true, Marks: true, Law: target.VerbKey}
	scroll  = Facts{Acts: true, Marks: true, Law: target.VerbScroll}
	choose  = Facts{Acts: true, Law: target.VerbSelect}
	acts    = Facts{Acts: true}
)

// table is every verb the daemon answers.
var table = map[string]Facts{
	// vibespace-window
	"status":     reads,
	"doctor":     reads,
	"list":       reads,
	"open":       {Mode: true},
	"close":      {Reach: Handle, Unsure: true},
	"attach":     {},
	"detach":     {},
	"share":      {},
	"takeover":   {},
	"handback":   {},
	"watch":      {Untraced: true, Reads: true},
	"snapshot":   on(Handle, read),
	"screenshot": on(Handle, picture),
	"click":      on(Handle, click),
	"type":       on(Handle, typing),
	"fill":       on(Handle, fill),
	"key":        on(Handle, key),
	"scroll":     on(Handle, scroll),
	"select":     on(Handle, choose),
	"mode":       {Reach: Handle, Mode: true},
	"desktop":    {},
	"find":       on(Handle, read),
	"get":        on(Handle, read),
	"trace":      {Untraced: true, For: true},
	"budget":     {For: true},
	"key.set":    {Untraced: true, Secret: true},
	"key.clear":  {Untraced: true},
	"key.list":   {Untraced: true},
	// batch runs its steps through the verb path, each a step of the
	// trace (under the batch's id), of the budget, of the audit: the
	// batch itself is no step (daemon/batch).
	"batch": {Untraced: true},
	// the desktop pool's words (daemon/pool), both command lines'.
	"borrow": {},
	"return": {},
	// hand-off to a person (daemon/handoff): the target shows "needs you"
	// in the live view until a person takes it over and hands it back,
	// declines, or the bound passes. The agent's lease is kept.
	"handoff": {Reach: Handle},

	// vibespace-browser: the same verbs on the current tab…
	"browser.snapshot":   on(Tab, read),
	"browser.screenshot": on(Tab, picture),
	"browser.click":      on(Tab, click),
	"browser.type":       on(Tab, typing),
	"browser.key":        on(Tab, key),
	"browser.scroll":     on(Tab, scroll),
	"browser.find":       on(Tab, read),
	"browser.select":     on(Tab, choose),
	"browser.fill":       on(Tab, fill),
	// …and the browser's own words.
	"browser.get":     {Reach: Tab, Reads: true},
	"browser.eval":    {Reach: Tab, Unsure: true},
	"browser.back":    on(Tab, acts),
	"browser.forward": on(Tab, acts),
	"browser.reload":  on(Tab, acts),
	"browser.wait":    {Reach: Tab, Reads: true},
	"browser.open":    {},
	// reach climbs the ladder through the verb path (daemon/reach): each
	// verb it sends is a step of the trace, the budget and the audit; the
	// reach itself is no step.
	"browser.reach":       {Untraced: true},
	"browser.tab":         {},
	"browser.profiles":    reads,
	"browser.new":         {Mode: true},
	"browser.close":       {},
	"browser.use":         {For: true},
	"browser.attachments": {For: true, Reads: true},
	"browser.detach":      {For: true},
	"browser.pin":         {For: true},
	"browser.new-child":   {},
	"browser.status":      reads,
	"browser.trace":       {Untraced: true, For: true},
	"browser.budget":      {For: true},
	"browser.batch":       {Untraced: true},
	"browser.borrow":      {},
	"browser.return":      {},
	"browser.handoff":     {Reach: Tab},
}

// on is f reaching its target by r.
func on(r Reach, f Facts) Facts {
	f.Reach = r
	return f
}

// Of answers the facts of the verb named name.
func Of(name string) (Facts, bool) {
	f, ok := table[name]
	f.Name = name
	return f, ok
}

// Names lists every verb, sorted.
func Names() []string {
	out := make([]string, 0, len(table))
	for v := range table {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// All lists every verb's facts, sorted by name.
func All() []Facts {
	out := make([]Facts, 0, len(table))
	for _, n := range Names() {
		f, _ := Of(n)
		out = append(out, f)
	}
	return out
}

// Where lists the verbs, sorted, whose facts satisfy keep.
func Where(keep func(Facts) bool) []string {
	var out []string
	for _, f := range All() {
		if keep(f) {
			out = append(out, f.Name)
		}
	}
	return out
}
