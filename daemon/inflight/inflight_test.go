package inflight

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/notice"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// daemon is one daemon's in-flight stage on dir: what it audited, owed
// and handed to the trace, and the targets it has.
type daemon struct {
	*Stage
	audit []lease.Entry
	owed  []string
	cut   []Flight
	alive map[target.ID]bool
}

func start(t *testing.T, dir string, alive ...target.ID) *daemon {
	t.Helper()
	d := &daemon{alive: map[target.ID]bool{}}
	for _, id := range alive {
		d.alive[id] = true
	}
	env := stage.Env{StateDir: dir, Now: time.Now, Logger: slog.New(slog.DiscardHandler),
		Owe:    func(n notice.Notice) { d.owed = append(d.owed, n.Text) },
		Wrote:  func(string, error) {},
		Record: func(e lease.Entry) { d.audit = append(d.audit, e) },
		Alive:  func(id target.ID) bool { return d.alive[id] },
	}
	s, err := New(func(f Flight) { d.cut = append(d.cut, f) })(env)
	if err != nil {
		t.Fatal(err)
	}
	d.Stage = s.(*Stage)
	d.Start(t.Context())
	return d
}

func call(v, session string, id target.ID) *stage.Call {
	f, _ := verb.Of(v)
	c := stagetest.Decoded(&stage.Call{Req: wire.Request{Verb: v, Session: session, Target: string(id)}, Facts: f})
	if id != "" {
		c.Target = stagetest.Of(id)
	}
	return c
}

func records(t *testing.T, dir string) []string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(dir, Dir))
	var out []string
	for _, en := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, Dir, en.Name()))
		out = append(out, string(b))
	}
	return out
}

func (d *daemon) note(c *stage.Call) string {
	a := &stage.Answer{Resp: wire.Response{OK: true}}
	d.Finish(c, a)
	return a.Resp.Note
}

// TestACutVerbIsTold: an acting verb on a target is recorded while it
// runs (a reading one, and one on no target, are not); the daemon that
// starts after a kill during it audits it outcome_unknown, hands it to
// the trace, and tells it once on the next answer on its target — or,
// its target gone, on its session's next answer of the same command line.
func TestACutVerbIsTold(t *testing.T) {
	dir := t.TempDir()
	d := start(t, dir, "win:1")
	for _, c := range []*stage.Call{call("snapshot", "a", "win:1"), call("type", "a", "")} {
		if leave, err := d.Enter(t.Context(), c); err != nil || leave != nil {
			t.Fatalf("%s recorded: %v", c.Req.Verb, err)
		}
	}
	leave, err := d.Enter(t.Context(), call("type", "a", "win:1"))
	if err != nil || leave == nil {
		t.Fatalf("type not recorded: %v", err)
	}
	recs := records(t, dir)
	if len(recs) != 1 || !strings.Contains(recs[0], `"verb":"type"`) {
		t.Fatalf("records: %q", recs)
	}
	leave()
	if recs := records(t, dir); len(recs) != 0 {
		t.Fatalf("the record outlived its answer: %q", recs)
	}
	// What a kill -9 during a type on win:1 and a browser.click on a tab
	// leaves.
	for name, f := range map[string]string{
		"1.json": `{"target":"win:1","verb":"type","session":"a","started":"2026-12-01T12:00:00Z"}`,
		"2.json": `{"target":"tab:4","verb":"browser.click","session":"a","started":"2026-12-01T12:00:01Z"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, Dir, name), []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d2 := start(t, dir, "win:1", "win:2")
	if len(d2.audit) != 2 || d2.audit[0].Code != target.CodeOutcomeUnknown || len(d2.cut) != 2 || len(records(t, dir)) != 0 {
		t.Fatalf("audited %+v, traced %+v, records left %q", d2.audit, d2.cut, records(t, dir))
	}
	if n := d2.note(call("key", "a", "win:2")); n != "" {
		t.Fatalf("told on another window: %q", n)
	}
	if n := d2.note(call("key", "a", "win:1")); !strings.Contains(n, "type by a at 2026-12-01T12:00:00Z was cut by a daemon restart; its effect is unknown") {
		t.Fatalf("the first answer on win:1: %q", n)
	}
	if n := d2.note(call("key", "a", "win:1")); n != "" {
		t.Fatalf("told twice: %q", n)
	}
	if n := d2.note(call("browser.tab", "b", "")); n != "" {
		t.Fatalf("told to another session: %q", n)
	}
	c := call("browser.open", "a", "")
	a := &stage.Answer{Resp: wire.Response{OK: true, Note: "earlier"}}
	d2.Finish(c, a)
	if !strings.HasPrefix(a.Resp.Note, "earlier; click on tab:4 (gone since) by a at ") {
		t.Fatalf("the gone tab's click, told its session: %q", a.Resp.Note)
	}
}

// TestAnUnreadableRecord: a record that cannot be read back is set aside,
// audited and told to everyone.
func TestAnUnreadableRecord(t *testing.T) {
	dir := t.TempDir()
	start(t, dir)
	if err := os.WriteFile(filepath.Join(dir, Dir, "7.json"), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := start(t, dir)
	if len(d.owed) != 1 || !strings.Contains(d.owed[0], "a verb in flight when the daemon was killed left a record that could not be read (inflight/7.json") {
		t.Fatalf("owed: %q", d.owed)
	}
	if len(d.audit) != 1 || d.audit[0].Verb != "inflight" || d.audit[0].Code != target.CodeOutcomeUnknown || len(d.cut) != 0 {
		t.Fatalf("audited %+v, traced %+v", d.audit, d.cut)
	}
}
