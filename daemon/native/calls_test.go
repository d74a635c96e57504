package native

import (
	"context"
	"path/filepath"
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

// The D-Bus calls one acting verb on a window makes, through the whole
// daemon (its road decided, its node read, the verifier's looks, the act),
// on the GTK fixture. A change that reads a node once more, or asks the
// application one more question, changes a number here: it is seen, and
// said in its commit.
const (
	// click @ref on a push button, --no-verify: the node read once for
	// the road and the act (6 calls: GTK answers its name and
	// description in one GetAll), its actions' toolkit names (1),
	// DoAction (1). Before the node was read once: 23; before GetAll: 9.
	clickCallsNoVerify = 8
	// click @ref on a push button that does not change: also the
	// verifier's two looks after acting (at once, and at the end of the
	// wait: 6 each); its look before is the read above. Before: 44;
	// before GetAll: 23.
	clickCalls = 20
	// type @ref into an entry (EditableText), --no-verify: the node read
	// once (7 calls), InsertText (1). Before: 17; before GetAll: 9.
	typeCallsNoVerify = 8
)

// TestActCallBudget counts the D-Bus calls of one click @ref and one type
// @ref on a window of our Xvfb, driven through a served daemon as the CLI
// drives it, and holds them to the budgets above.
func TestActCallBudget(t *testing.T) {
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var calls atomic.Uint64
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{
		StateDir: dir, SocketPath: filepath.Join(dir, "run", "d.sock"),
		Displays:    []kind.DisplayProvider{Xvfb(Options{Logf: t.Logf, BusCalls: &calls})},
		VerbTimeout: 30 * time.Second, IdleHandback: -1,
		// The verifier looks once at once after acting and once more
		// when its wait ends, never in between: a node that does not
		// change is looked at exactly twice.
		VerifyWait: time.Second, VerifyPoll: time.Minute,
	})
	script, err := filepath.Abs(fixturePy)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "fixture.jsonl")
	const session = "budget"
	open := sv.OK(t, daemon.Request{Verb: "open", Session: session}.With(args.Open{App: testenv.FixturePython, Args: []string{script, "--log", logPath}}))
	flog := testenv.OpenFixtureLog(logPath)
	if _, err := flog.WaitFrom(ctx, 0, func(e testenv.Event) bool { return e.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	id := string(open.Target.ID)
	snap := sv.OK(t, daemon.Request{Verb: "snapshot", Session: session, Target: id, JSON: true}).Snapshot
	ref := func(role, name string) string {
		n := snap.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name && n.Ref != "" })
		if n == nil {
			t.Fatalf("no %s %q with a ref in:\n%s", role, name, snap.Text())
		}
		return n.Ref
	}
	alpha, entry := ref("push button", "Alpha"), ref("text", "Name")

	count := func(what string, req daemon.Request, budget uint64, done func(testenv.Event) bool) {
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
		if got != budget {
			t.Errorf("%s made %d D-Bus calls, its budget is %d: a change of the budget is said where it is set", what, got, budget)
		}
	}
	clicked := func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }
	count("click @ref --no-verify", daemon.Request{Verb: "click"}.With(args.Click{Ref: alpha, NoVerify: true}), clickCallsNoVerify, clicked)
	count("click @ref", daemon.Request{Verb: "click"}.With(args.Click{Ref: alpha}), clickCalls, clicked)
	count("type @ref --no-verify", daemon.Request{Verb: "type"}.With(args.Type{Ref: entry, Text: "ab", NoVerify: true}), typeCallsNoVerify,
		func(e testenv.Event) bool { return e.Type == "text" && e.Widget == "entry" && e.Text == "ab" })
}
