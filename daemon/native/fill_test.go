package native

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// contentWindow opens the GTK 3 fixture with its document content
// (fixture.py --content) on a served daemon, and answers its session,
// handle, log and first snapshot.
func contentWindow(t *testing.T, ctx context.Context) (sv *daemontest.Served, session, id string, flog *testenv.FixtureLog, snap *target.Snapshot) {
	t.Helper()
	dir := t.TempDir()
	sv = daemontest.Start(t, daemon.Config{
		StateDir: dir, SocketPath: filepath.Join(dir, "run", "d.sock"),
		Displays:    []kind.DisplayProvider{Xvfb(Options{Logf: t.Logf})},
		VerbTimeout: 30 * time.Second, IdleHandback: -1,
	})
	session = "content"
	id, flog, snap = openWindow(t, ctx, sv, session, fixturePy, "--content")
	return sv, session, id, flog, snap
}

// refNode is the node of snap with role and name, which has a ref.
func refNode(t *testing.T, snap *target.Snapshot, role, name string) *target.Node {
	t.Helper()
	n := snap.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name && n.Ref != "" })
	if n == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, snap.Text())
	}
	return n
}

// TestFillWindow: fill on a window replaces a field's whole text through
// its EditableText and reads it back; a field that does not take the text
// is refused value_not_set with what it holds, and a node with no
// EditableText no_editable_text. The oracle is the GTK 3 fixture's own log
// of its fields' text, and its own tree read back by get.
func TestFillWindow(t *testing.T) {
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sv, session, id, flog, snap := contentWindow(t, ctx)
	call := func(verb string, a args.Args) daemon.Response {
		return sv.Call(t, daemon.Request{Verb: verb, Session: session, Target: id, JSON: true}.With(a))
	}
	logged := func(what string, from int, widget, text string) {
		t.Helper()
		if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" && e.Widget == widget && e.Text == text }); err != nil {
			t.Fatalf("%s: the fixture never logged %s holding %q: %v", what, widget, text, err)
		}
	}

	// The entry holds text first; fill replaces all of it.
	entry := refNode(t, snap, "text", "Name").Ref
	from := flog.Len()
	if r := call("type", args.Type{Ref: entry, Text: "Untitled 1"}); !r.OK {
		t.Fatalf("type: refused %s: %s", r.Code, r.Message)
	}
	logged("type", from, "entry", "Untitled 1")
	from = flog.Len()
	const want = "report — wörld.odt"
	r := call("fill", args.Fill{Ref: entry, Text: want})
	if !r.OK {
		t.Fatalf("fill: refused %s: %s", r.Code, r.Message)
	}
	t.Logf("fill: %s", r.Did)
	if !strings.HasPrefix(r.Did, "filled "+entry) || !strings.Contains(r.Did, "read back") || strings.Contains(r.Did, want) {
		t.Errorf("fill's answer %q: want filled %s …, read back, and never the text", r.Did, entry)
	}
	logged("fill", from, "entry", want)
	if g := call("get", args.GetNode{What: "text", Ref: entry}); !g.OK || g.Text != want {
		t.Errorf("get text %s after fill: %q (%s %s), want %q", entry, g.Text, g.Code, g.Message, want)
	}
	// The trace keeps the fill (the step before get's) as a step on the
	// tree road, its node and how many characters, never which.
	tr := sv.Call(t, daemon.Request{Verb: "trace", Session: session}.With(args.Trace{Last: 2}))
	if !tr.OK || len(tr.Trace) != 2 {
		t.Fatalf("trace: %v %s %s, %d steps", tr.OK, tr.Code, tr.Message, len(tr.Trace))
	}
	if st := tr.Trace[0]; st.Verb != "fill" || !st.OK || st.By != target.RoadTree || st.Ref != entry || st.Chars != len([]rune(want)) || st.Name == want {
		t.Errorf("fill's trace step: %+v", st)
	}

	// A multi-line text view: its whole buffer replaced.
	notes := refNode(t, snap, "text", "Notes").Ref
	from = flog.Len()
	if r := call("fill", args.Fill{Ref: notes, Text: "line one\nline two"}); !r.OK {
		t.Fatalf("fill notes: refused %s: %s", r.Code, r.Message)
	}
	logged("fill notes", from, "notes", "line one\nline two")

	// An entry of at most 4 characters holding "ab" keeps "abcd" of
	// "abcdefgh": value_not_set, with what it holds.
	code := refNode(t, snap, "text", "Code").Ref
	from = flog.Len()
	r = call("fill", args.Fill{Ref: code, Text: "abcdefgh"})
	if r.OK || r.Code != target.CodeValueNotSet {
		t.Fatalf("fill of 8 characters into an entry of at most 4: %v %s %s, want value_not_set", r.OK, r.Code, r.Message)
	}
	t.Logf("refused: %s", r.Message)
	if r.Facts["holds"] != "abcd" || !strings.Contains(r.Message, `"abcd"`) {
		t.Errorf("value_not_set says it holds %v (%s), want \"abcd\"", r.Facts["holds"], r.Message)
	}
	logged("fill of a short entry", from, "code", "abcd")

	// A push button has no EditableText: refused, naming why, and
	// never typed into as keys.
	alpha := refNode(t, snap, "push button", "Alpha").Ref
	from = flog.Len()
	r = call("fill", args.Fill{Ref: alpha, Text: "x"})
	if r.OK || r.Code != target.CodeNoEditableText || !strings.Contains(r.Message, "EditableText") {
		t.Fatalf("fill on a push button: %v %s %s, want no_editable_text naming EditableText", r.OK, r.Code, r.Message)
	}
	t.Logf("refused: %s", r.Message)

	// The greyed-out entry stays refused, as type @ref is.
	disabled := refNode(t, snap, "text", "Disabled").Ref
	if r := call("fill", args.Fill{Ref: disabled, Text: "x"}); r.OK || r.Code != target.CodeNotSensitive {
		t.Errorf("fill on a disabled entry: %v %s %s, want not_sensitive", r.OK, r.Code, r.Message)
	}
	// Nothing the two refusals reached changed: the next event the
	// fixture logs is the one typed now, into the entry.
	if r := call("type", args.Type{Ref: entry, Text: "!"}); !r.OK {
		t.Fatalf("type: refused %s: %s", r.Code, r.Message)
	}
	e, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" || e.Type == "click" || e.Type == "key" })
	if err != nil {
		t.Fatal(err)
	}
	if e.Widget != "entry" || e.Text != want+"!" {
		t.Errorf("after the refusals the fixture logged %+v first, want the entry holding %q", e, want+"!")
	}
}

// TestDocumentContentState: a paragraph of document content whose toolkit
// sets neither SENSITIVE nor ENABLED on it (LibreOffice Writer's state set:
// role paragraph, EDITABLE, FOCUSABLE, with EditableText) is not shown
// disabled, and type @ref and fill reach it; a greyed-out entry (EDITABLE
// and FOCUSABLE too, a widget) is still shown disabled and refused
// not_sensitive; a read-only entry is shown readonly and refused
// not_editable. The fixture (GTK 3, --content) reproduces the paragraph's
// state set; the oracle is its own log of the fields' text.
func TestDocumentContentState(t *testing.T) {
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sv, session, id, flog, snap := contentWindow(t, ctx)
	call := func(verb string, a args.Args) daemon.Response {
		return sv.Call(t, daemon.Request{Verb: verb, Session: session, Target: id, JSON: true}.With(a))
	}
	para := refNode(t, snap, "paragraph", "Paragraph")
	// The state set is the office suite's: editable, focusable, with
	// EditableText, and neither sensitive nor enabled.
	for _, s := range []string{"editable", "focusable"} {
		if !para.Has(s) {
			t.Fatalf("the fixture's paragraph lacks %s: %v", s, para.States)
		}
	}
	if para.Has("sensitive") || para.Has("enabled") || !para.Implements("EditableText") {
		t.Fatalf("the fixture's paragraph does not reproduce the state set (states %v, interfaces %v)", para.States, para.Interfaces)
	}
	disabled := refNode(t, snap, "text", "Disabled")
	line := func(n *target.Node) string {
		for l := range strings.Lines(snap.Text()) {
			if strings.Contains(l, " "+n.Ref) {
				return l
			}
		}
		t.Fatalf("no line of %s in:\n%s", n.Ref, snap.Text())
		return ""
	}
	if l := line(para); strings.Contains(l, "disabled") {
		t.Errorf("the paragraph is shown disabled: %s", l)
	}
	if l := line(disabled); !strings.Contains(l, "disabled") {
		t.Errorf("the greyed-out entry is not shown disabled: %s", l)
	}

	from := flog.Len()
	r := call("type", args.Type{Ref: para.Ref, Text: " Hi"})
	if !r.OK {
		t.Fatalf("type @ref into the paragraph: refused %s: %s", r.Code, r.Message)
	}
	t.Logf("type: %s", r.Did)
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool {
		return e.Type == "text" && e.Widget == "paragraph" && e.Text == "Dear reader, Hi"
	}); err != nil {
		t.Fatalf("the fixture never logged the paragraph holding %q: %v", "Dear reader, Hi", err)
	}
	from = flog.Len()
	if r := call("fill", args.Fill{Ref: para.Ref, Text: "Dear Ada,"}); !r.OK {
		t.Fatalf("fill the paragraph: refused %s: %s", r.Code, r.Message)
	}
	if _, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool {
		return e.Type == "text" && e.Widget == "paragraph" && e.Text == "Dear Ada,"
	}); err != nil {
		t.Fatalf("the fixture never logged the paragraph holding %q: %v", "Dear Ada,", err)
	}

	if r := call("type", args.Type{Ref: disabled.Ref, Text: "x"}); r.OK || r.Code != target.CodeNotSensitive {
		t.Errorf("type @ref into the greyed-out entry: %v %s %s, want not_sensitive", r.OK, r.Code, r.Message)
	}

	// A read-only entry (GTK sets no READ_ONLY on it, only drops
	// EDITABLE) is shown readonly, and type and fill are refused
	// not_editable, as the law reads it.
	serial := refNode(t, snap, "text", "Serial")
	if l := line(serial); !strings.Contains(l, "readonly") || strings.Contains(l, "editable") || strings.Contains(l, "disabled") {
		t.Errorf("the read-only entry is not shown readonly alone: %s", l)
	}
	if r := call("type", args.Type{Ref: serial.Ref, Text: "x"}); r.OK || r.Code != target.CodeNotEditable {
		t.Errorf("type @ref into the read-only entry: %v %s %s, want not_editable", r.OK, r.Code, r.Message)
	}
	if r := call("fill", args.Fill{Ref: serial.Ref, Text: "x"}); r.OK || r.Code != target.CodeNotEditable {
		t.Errorf("fill the read-only entry: %v %s %s, want not_editable", r.OK, r.Code, r.Message)
	}
	// Neither refusal reached the application: the next text it logs is
	// the paragraph's, typed now.
	from = flog.Len()
	if r := call("type", args.Type{Ref: para.Ref, Text: "!"}); !r.OK {
		t.Fatalf("type @ref into the paragraph: refused %s: %s", r.Code, r.Message)
	}
	e, err := flog.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "text" })
	if err != nil {
		t.Fatal(err)
	}
	if e.Widget != "paragraph" || e.Text != "Dear Ada,!" {
		t.Errorf("after the refusals the fixture logged %+v first, want the paragraph holding %q", e, "Dear Ada,!")
	}
}
