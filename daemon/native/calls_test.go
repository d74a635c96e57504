package native

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// actBudget is the D-Bus calls each acting verb on a window makes, through
// the whole daemon (its road decided, its node read, the verifier's looks,
// the act), on one toolkit's fixture, with the check (the default) and
// without it (--no-verify). A change that reads a node once more, or asks
// the application one more question, changes a number here: it is seen,
// and said in its commit.
type actBudget struct {
	clickNoVerify, click uint64
	// clickUnseen, where set, is click's budget when its check answers
	// no_visible_change though the toolkit shows a click for a moment (a
	// loaded machine can let the moment pass before the look).
	clickUnseen       uint64
	typeNoVerify, typ uint64
	// fill @ref on the entry holding text.
	fillNoVerify, fill uint64
	// select on a combo box; 0: the fixture has no control a window's
	// select takes.
	selectNoVerify, sel uint64
}

// The D-Bus calls of a node read (atspi's Bus.Node, asked all at once):
// GetRole, GetState, GetInterfaces, Name and Description (one GetAll of
// GTK, two Gets of Qt: QTBUG-107897), and by its
// interfaces GetActions, GetExtents (GTK 4 answers no Component extents
// on a button or entry: none), CharacterCount (and GetText of its first
// character where it holds text). The verifier's "before" is a click's or
// a type's or a select's own read; it looks again at once after acting
// and, when nothing changed yet, once more when its wait ends.
var (
	// The GTK 3 fixture (fixture.py --controls).
	gtk3Budget = actBudget{
		// click @ref on a push button, --no-verify: the node read once
		// for the road and the act (6 calls), its action's toolkit name
		// (GetName, 1), DoAction (1). Before the node was read once: 23;
		// before GTK's name and description came in one GetAll: 9.
		clickNoVerify: 8,
		// click @ref on a push button that does not change: also the
		// verifier's two looks after acting (6 each) and, once the
		// application is idle, the fence that every event it sent is in
		// (Peer.Ping, 1): the wait ends then, not at its deadline.
		// Before: 44, then 23, then 20 (no fence: the 500 ms wait).
		click: 21,
		// type @ref into an empty entry (EditableText), --no-verify: the
		// node read once (7 calls), InsertText (1). Before: 17, then 9.
		typeNoVerify: 8,
		// type @ref into the entry holding "ab", with the check: the node
		// read (7) and its first character (GetText, 1), InsertText (1),
		// the verifier's one look after acting (8), which sees the text
		// grow. Before GetAll: 19.
		typ: 17,
		// fill @ref into the entry holding "abcd", --no-verify: the node
		// read (7) and its first character (1), SetTextContents (1), the
		// text read back (GetText, 1).
		fillNoVerify: 10,
		// fill with the check: also the verifier's one look after acting
		// (8), which sees the text change; its look before is the read.
		fill: 18,
		// select "Blue" on the combo box, --no-verify: the core's node
		// read for the law (6); atspi's Select reads the node again (6),
		// walks the control two levels deep (the combo box again, its
		// menu, its three items: 27), SelectChild (1), and reads the
		// choice back (NSelectedChildren, GetSelectedChild: 2). Before
		// GetAll: 49.
		selectNoVerify: 42,
		// select with the check: also the verifier's look after acting
		// (6), which sees the combo box's name change; its look before
		// is the law's read (stage.Acting.Read), as for click and type.
		// Before the core's select handed it over: 63; then 56 before
		// GetAll.
		sel: 48,
	}
	// The GTK 4 fixture (gtk4.py).
	gtk4Budget = actBudget{
		// click @ref: the node read (5: no extents; name and description
		// in one GetAll), GetName (1), DoAction (1). Before GetAll: 8.
		clickNoVerify: 7,
		// click @ref on "Press me", which does not change to see: also
		// the verifier's two looks (5 each) and the fence once the
		// application is idle (1). Before GetAll: 20; before the fence 17.
		click: 18,
		// type @ref into the empty entry: the node read (6), InsertText
		// (1). Before GetAll: 8.
		typeNoVerify: 7,
		// type @ref into the entry holding "ab", with the check: the node
		// read (6) and its first character (1), InsertText (1), the
		// verifier's one look (7). Before GetAll: 17.
		typ: 15,
		// fill @ref into the entry holding "abcd": the node read (6) and
		// its first character (1), SetTextContents (1), GetText (1); with
		// the check, the verifier's one look (7).
		fillNoVerify: 9,
		fill:         16,
	}
	// The Qt 5 fixture (qt5.py).
	qt5Budget = actBudget{
		// click @ref: the node read (7), the toolkit names of its two
		// actions (Press, SetFocus: 2), DoAction (1).
		clickNoVerify: 10,
		// click @ref with the check: Qt shows the button pressed for a
		// moment (QAbstractButton.animateClick), and the verifier's look
		// at once after acting (7) sees it.
		click: 17,
		// The moment passed: the two looks after acting (7 each), and
		// the fence once the application is idle (1; never observed).
		clickUnseen: 25,
		// type @ref into the empty entry: the node read (8), InsertText
		// (1).
		typeNoVerify: 9,
		// type @ref into the entry holding "ab", with the check: the node
		// read (8) and its first character (1), InsertText (1), the
		// verifier's one look (9).
		typ: 19,
		// fill @ref into the entry holding "abcd": the node read (8) and
		// its first character (1), SetTextContents (1), GetText (1); with
		// the check, the verifier's one look (9).
		fillNoVerify: 11,
		fill:         20,
	}
)

// toolkitFixture is one toolkit's fixture app and the widgets its acts
// use, each with the event its own log writes when the act lands.
type toolkitFixture struct {
	name   string
	script string
	args   []string
	budget actBudget
	// button: a push button (role push button) whose name starts so, and
	// the widget name its click is logged with.
	button, buttonWidget string
	// entry: the text field named so, and the widget its text is logged
	// with.
	entry, entryWidget string
	// combo: a combo box showing this option first, another option it has,
	// and the widget its choice is logged with ("" when there is none).
	combo, comboOption, comboWidget string
}

var toolkitFixtures = []toolkitFixture{
	{
		name: "gtk3", script: fixturePy, args: []string{"--controls"}, budget: gtk3Budget,
		button: "Alpha", buttonWidget: "alpha", entry: "Name", entryWidget: "entry",
		combo: "Red", comboOption: "Blue", comboWidget: "colour",
	},
	{
		name: "gtk4", script: filepath.Join("..", "..", "testenv", "fixture", "gtk4.py"), budget: gtk4Budget,
		button: "Press me", buttonWidget: "press", entry: "Name", entryWidget: "name",
	},
	{
		name: "qt5", script: filepath.Join("..", "..", "testenv", "fixture", "qt5.py"), budget: qt5Budget,
		button: "Press me", buttonWidget: "press", entry: "Name", entryWidget: "name",
	},
}

// TestActRoundTrips counts the D-Bus calls of one click @ref, one type
// @ref, one fill @ref and one select on a window of our Xvfb, each with and without the
// check, on the GTK 3, GTK 4 and Qt 5 fixtures, driven through a served
// daemon as the CLI drives it, each effect seen in the fixture's own log,
// and holds them to the budgets above.
// actWait is TestActRoundTrips's daemon's wait for an effect.
const actWait = time.Second

func TestActRoundTrips(t *testing.T) {
	testenv.NeedIntegration(t)
	var calls atomic.Uint64
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{
		StateDir: dir, SocketPath: filepath.Join(dir, "run", "d.sock"),
		Displays:    []kind.DisplayProvider{Xvfb(Options{Logf: t.Logf, BusCalls: &calls})},
		VerbTimeout: 30 * time.Second, IdleHandback: -1,
		// The verifier looks once at once after acting and once more
		// when its wait ends, never in between: a node that does not
		// change is looked at exactly twice.
		VerifyWait: actWait, VerifyPoll: time.Minute,
	})
	for _, tk := range toolkitFixtures {
		t.Run(tk.name, func(t *testing.T) { actRoundTrips(t, sv, &calls, tk) })
	}
}

// openWindow opens the fixture script (a path from this package's
// folder) with extra arguments as session on sv, waits for its "ready"
// line, and answers its handle, its log and its first snapshot. A loaded
// machine can map the window before the application is on the
// accessibility bus, and open stops waiting for it after a grace: the
// snapshot waits for the tree (bounded by ctx).
func openWindow(t *testing.T, ctx context.Context, sv *daemontest.Served, session, script string, extra ...string) (id string, flog *testenv.FixtureLog, snap *target.Snapshot) {
	t.Helper()
	script, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "fixture.jsonl")
	open := sv.OK(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{App: testenv.FixturePython, Args: append([]string{script, "--log", logPath}, extra...)}))
	flog = testenv.OpenFixtureLog(logPath)
	if _, err := flog.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	id = string(open.Target.ID)
	for snap == nil {
		resp := sv.Call(t, daemon.Request{Verb: "snapshot", Session: session, Target: id, JSON: true})
		switch {
		case resp.OK:
			snap = resp.Snapshot
		case resp.Code != target.CodeNoTree:
			t.Fatalf("snapshot: refused %s: %s", resp.Code, resp.Message)
		default:
			select {
			case <-ctx.Done():
				t.Fatalf("snapshot: still %s: %s", resp.Code, resp.Message)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return id, flog, snap
}

func actRoundTrips(t *testing.T, sv *daemontest.Served, calls *atomic.Uint64, tk toolkitFixture) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	session := "budget-" + tk.name
	id, flog, snap := openWindow(t, ctx, sv, session, tk.script, tk.args...)
	ref := func(role string, name func(string) bool) string {
		n := snap.Root.Find(func(n *target.Node) bool { return n.Role == role && name(n.Name) && n.Ref != "" })
		if n == nil {
			t.Fatalf("no %s with a ref in:\n%s", role, snap.Text())
		}
		return n.Ref
	}
	// GTK 4.8 names a button with a mnemonic twice over ("_Press me Press me").
	button := ref("push button", func(s string) bool { return strings.HasPrefix(strings.TrimPrefix(s, "_"), tk.button) })
	entry := ref("text", func(s string) bool { return s == tk.entry })

	// count acts and holds the calls to budget; to unseen instead, where
	// set, when the check answered no_visible_change.
	count := func(what string, req daemon.Request, budget, unseen uint64, done func(testenv.Event) bool) {
		t.Helper()
		req.Session, req.Target = session, id
		from := flog.Len()
		before := calls.Load()
		resp := sv.OK(t, req)
		got := calls.Load() - before
		t.Logf("%s: %d D-Bus calls (%s)", what, got, resp.Did)
		if _, err := flog.WaitFrom(ctx, from, done); err != nil {
			t.Fatalf("%s: the fixture never reported it: %v", what, err)
		}
		if unseen != 0 && resp.Effect != nil && resp.Effect.Word == target.EffectNoVisibleChange {
			budget = unseen
		}
		if resp.Effect != nil && resp.Effect.Word == target.EffectNoVisibleChange && resp.Effect.WaitedMS >= int(actWait/time.Millisecond) {
			// The wait ran to its deadline before the application was
			// idle (a loaded machine): no fence was asked (changes.go).
			t.Logf("%s: its wait reached the deadline (%d ms): no fence", what, resp.Effect.WaitedMS)
			budget--
		}
		if got != budget {
			t.Errorf("%s made %d D-Bus calls, its budget is %d: a change of the budget is said where it is set", what, got, budget)
		}
	}
	b := tk.budget
	clicked := func(e testenv.Event) bool { return e.Type == "click" && e.Widget == tk.buttonWidget }
	count("click @ref --no-verify", daemon.Request{Verb: "click"}.With(args.Click{Ref: button, NoVerify: true}), b.clickNoVerify, 0, clicked)
	count("click @ref", daemon.Request{Verb: "click"}.With(args.Click{Ref: button}), b.click, b.clickUnseen, clicked)
	typed := func(want string) func(testenv.Event) bool {
		return func(e testenv.Event) bool { return e.Type == "text" && e.Widget == tk.entryWidget && e.Text == want }
	}
	count("type @ref --no-verify", daemon.Request{Verb: "type"}.With(args.Type{Ref: entry, Text: "ab", NoVerify: true}), b.typeNoVerify, 0, typed("ab"))
	count("type @ref", daemon.Request{Verb: "type"}.With(args.Type{Ref: entry, Text: "cd"}), b.typ, 0, typed("abcd"))
	// fill replaces the whole text the entry holds ("abcd").
	count("fill @ref --no-verify", daemon.Request{Verb: "fill"}.With(args.Fill{Ref: entry, Text: "xyz", NoVerify: true}), b.fillNoVerify, 0, typed("xyz"))
	count("fill @ref", daemon.Request{Verb: "fill"}.With(args.Fill{Ref: entry, Text: "wörld"}), b.fill, 0, typed("wörld"))

	if tk.combo == "" {
		return
	}
	combo := ref("combo box", func(s string) bool { return s == tk.combo })
	chose := func(want string) func(testenv.Event) bool {
		return func(e testenv.Event) bool { return e.Type == "select" && e.Widget == tk.comboWidget && e.Text == want }
	}
	count("select --no-verify", daemon.Request{Verb: "select"}.With(args.Select{Ref: combo, Options: []string{tk.comboOption}, NoVerify: true}), b.selectNoVerify, 0, chose(tk.comboOption))
	count("select", daemon.Request{Verb: "select"}.With(args.Select{Ref: combo, Options: []string{tk.combo}}), b.sel, 0, chose(tk.combo))
}
