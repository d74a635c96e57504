package daemon

import (
	"context"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/stage/stagetest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/daemon/tracelog"
	"github.com/vibespace/vibespace/target"
)

// grepTree fails t when any file under dir holds s.
func grepTree(t *testing.T, dir, s string) {
	t.Helper()
	n := 0
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Mode()&os.ModeSocket != 0 {
			return nil
		}
		b, rerr := os.ReadFile(p)
		if rerr != nil {
			return nil
		}
		n++
		if strings.Contains(string(b), s) {
			t.Errorf("%s holds the text typed", p)
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no file under the state directory to look in")
	}
}

func stepVerbs(steps []TraceStep) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Verb)
	}
	return strings.Join(out, " ")
}

// TestTraceOfASession: every verb a session runs on a target is a step of
// its trace, in order, with the target, the ref, the road and a duration;
// a snapshot step carries a digest of the tree it read; a type step the
// text's length and never the text (nowhere under the state directory);
// another session reads it only with --for, and is refused not_exposed
// naming a target it does not see; the trace survives a restart.
func TestTraceOfASession(t *testing.T) {
	dir := t.TempDir()
	b := &kindtest.Provider{}
	td := startDaemon(t, b, dir)
	id := td.open(t, "a")
	const canary = "CANARY-7f3e-typed"
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(id)}), "")
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(id)}.With(args.Click{Ref: "@e2"})), "")
	wantCode(t, td.call(t, Request{Verb: "type", Session: "a", Target: string(id)}.With(args.Type{Ref: "@e4", Text: canary})), "")
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: string(id)}.With(args.Key{Chord: "ctrl+a"})), "")
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(id)}.With(args.Click{Ref: "@e99"})), target.CodeBadRef)

	resp := td.call(t, Request{Verb: "trace", Session: "a"})
	wantCode(t, resp, "")
	if got := stepVerbs(resp.Trace); got != "open snapshot click type key click" {
		t.Fatalf("trace: %q\n%+v", got, resp.Trace)
	}
	snap, click, typ, key, bad := resp.Trace[1], resp.Trace[2], resp.Trace[3], resp.Trace[4], resp.Trace[5]
	for _, s := range resp.Trace {
		if s.Target != id || s.Session != "a" || s.Time.IsZero() || s.MS < 0 {
			t.Errorf("a step without its target, session or time: %+v", s)
		}
	}
	if snap.By != target.RoadTree || len(snap.After) != 16 || !snap.OK {
		t.Errorf("snapshot step: %+v", snap)
	}
	if click.Ref != "@e2" || click.By != target.RoadTree || !click.OK {
		t.Errorf("click step: %+v", click)
	}
	if typ.Ref != "@e4" || typ.Chars != len(canary) || typ.By == "" {
		t.Errorf("type step: %+v", typ)
	}
	if key.Key != "ctrl+a" {
		t.Errorf("key step: %+v", key)
	}
	if bad.OK || bad.Code != target.CodeBadRef || bad.Ref != "@e99" {
		t.Errorf("a refused step: %+v", bad)
	}
	if line := click.Line(); !strings.Contains(line, "click "+string(id)+` @e2 push button "Alpha" by:tree → no_visible_change `) || !regexp.MustCompile(` \d+ms tree:[0-9a-f]+→[0-9a-f]+$`).MatchString(line) {
		t.Errorf("click's line: %q", line)
	}
	if line := bad.Line(); !strings.Contains(line, "→ refused bad_ref") {
		t.Errorf("a refused step's line: %q", line)
	}
	if last := td.call(t, Request{Verb: "trace", Session: "a"}.With(args.Trace{Last: 2})); stepVerbs(last.Trace) != "key click" {
		t.Errorf("--last 2: %q", stepVerbs(last.Trace))
	}

	// Another session: its own trace is empty, a's target is refused,
	// and --for reads a's.
	if other := td.call(t, Request{Verb: "trace", Session: "b"}); !other.OK || len(other.Trace) != 0 {
		t.Errorf("session b's own trace: %+v", other)
	}
	wantCode(t, td.call(t, Request{Verb: "trace", Session: "b", Target: string(id)}), target.CodeNotExposed)
	op := td.call(t, Request{Verb: "trace", Session: "b", For: "a", Target: string(id)})
	wantCode(t, op, "")
	if stepVerbs(op.Trace) != "open snapshot click type key click" {
		t.Errorf("trace --for a: %q", stepVerbs(op.Trace))
	}
	rows := auditRows(t, td, "trace")
	if len(rows) == 0 || rows[len(rows)-1].For != "a" {
		t.Errorf("the audit does not say whose trace the operator read: %+v", rows)
	}
	// The trace's own verb is no step of it.
	if again := td.call(t, Request{Verb: "trace", Session: "a"}); len(again.Trace) != 6 {
		t.Errorf("reading the trace added steps: %q", stepVerbs(again.Trace))
	}
	grepTree(t, dir, canary)

	// A restart reads it back.
	td.Close()
	<-td.done
	td2 := startDaemon(t, b, dir)
	if after := td2.call(t, Request{Verb: "trace", Session: "a", For: "a"}); stepVerbs(after.Trace) != "open snapshot click type key click" {
		t.Errorf("after a restart: %q", stepVerbs(after.Trace))
	}
}

// TestTraceNodeNamesNeverTheText: the node a verb names (call.acted) is in
// its step, but a name holding the text typed is not kept, nor is an
// effect's description; a key that types one character keeps its count.
func TestTraceNodeNamesNeverTheText(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := td.open(t, "a")
	e := td.entryOf(id)
	now := td.cfg.Now()
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Req: Request{Verb: "click", Session: "a"}.With(args.Click{Ref: "@e9"}), Started: now, Acted: &target.NodeTraits{Role: "check box", Name: "Dark mode"}, Before: "b1", After: "a1 hunter2 as text"}), e: e},
		Response{OK: true, By: target.RoadTree, Effect: &target.Effect{Word: target.EffectConfirmed, Seen: []string{"checked"}}}, nil)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Req: Request{Verb: "browser.fill", Session: "a"}.With(args.Fill{Ref: "@e3", Text: "hunter2"}), Started: now, Acted: &target.NodeTraits{Role: "combo box", Name: "hunter2"}}), e: e},
		Response{OK: true, By: target.RoadTree, Effect: &target.Effect{Word: target.EffectConfirmed, Seen: []string{"value: '' → 'hunter2'"}}}, nil)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Req: Request{Verb: "key", Session: "a"}.With(args.Key{Chord: "x"}), Started: now}), e: e}, Response{OK: true, By: target.RoadKeys}, nil)
	steps := td.call(t, Request{Verb: "trace", Session: "a"}).Trace
	if len(steps) != 4 {
		t.Fatalf("steps: %+v", steps)
	}
	click, fill, key := steps[1], steps[2], steps[3]
	if click.Role != "check box" || click.Name != "Dark mode" || click.Effect != target.EffectConfirmed || click.Before != "b1" || click.After == "" || click.After == click.Before || strings.Contains(click.After, "hunter2") {
		t.Errorf("click step: %+v", click)
	}
	if want := `click ` + string(id) + ` @e9 check box "Dark mode" by:tree → confirmed `; !strings.Contains(click.Line(), want) {
		t.Errorf("click's line %q, want it to hold %q", click.Line(), want)
	}
	if fill.Name != "" || fill.Role != "combo box" || fill.Chars != 7 {
		t.Errorf("fill step: %+v", fill)
	}
	if key.Key != "" || key.Chars != 1 {
		t.Errorf("a key that types: %+v", key)
	}
	grepTree(t, td.cfg.StateDir, "hunter2")
}

// TestTracePictures: off by default; the operator's trace --pictures on
// (audited, kept across a restart) makes acting steps keep a 0600 picture
// after the act, never of a window of the user's desktop without its
// pixels grant; steps and pictures past the retention period are swept
// (an injected clock).
func TestTracePictures(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	dir := t.TempDir()
	b := &kindtest.Provider{}
	td := startDaemonWith(t, b, dir, func(c *Config) { c.Now = clock; c.TraceRetention = time.Hour; c.IdleHandback = -1 })
	id := td.open(t, "a")
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(id)}), "")
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(id)}.With(args.Click{Ref: "@e2"})), "")
	pics := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, tracelog.Dir, tracelog.PicturesDir, "*"))
		return m
	}
	if p := pics(); len(p) != 0 {
		t.Fatalf("pictures kept while off: %v", p)
	}
	wantCode(t, td.call(t, Request{Verb: "trace", Session: "op", Target: string(id)}.With(args.Trace{Action: "pictures-on"})), target.CodeBadRequest)
	on := td.call(t, Request{Verb: "trace", Session: "op"}.With(args.Trace{Action: "pictures-on"}))
	wantCode(t, on, "")
	if rows := auditRows(t, td, "trace"); len(rows) == 0 || rows[len(rows)-1].Setting != "trace pictures on" || rows[len(rows)-1].Session != "op" {
		t.Errorf("the setting is not audited: %+v", rows)
	}
	advance(time.Second)
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(id)}.With(args.Click{Ref: "@e2"})), "")
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(id)}), "")
	steps := td.call(t, Request{Verb: "trace", Session: "a"}).Trace
	last, snap := steps[len(steps)-2], steps[len(steps)-1]
	if last.Picture == "" || snap.Picture != "" || steps[2].Picture != "" {
		t.Fatalf("pictures: after the click %q, of the snapshot %q, of the click before on %q", last.Picture, snap.Picture, steps[2].Picture)
	}
	fi, err := os.Stat(filepath.Join(dir, last.Picture))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the picture: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, last.Picture)); !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("the picture is not the screenshot: %q", b)
	}
	if live := td.liveHands().Trace(id, 20); len(live) == 0 || live[len(live)-2].Picture != "" {
		t.Errorf("the live view is shown pictures: %+v", live)
	}

	// A window of the user's desktop keeps none without the grant.
	e := td.entryOf(id)
	td.mu.Lock()
	e.rec.Desktop = true
	td.mu.Unlock()
	advance(time.Second)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Req: Request{Verb: "click", Session: "a"}.With(args.Click{Ref: "@e2"}), Facts: facts("click"), Started: clock()}), e: e}, Response{OK: true, By: target.RoadTree}, nil)
	td.mu.Lock()
	e.rec.Pixels = true
	td.mu.Unlock()
	advance(time.Second)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Req: Request{Verb: "click", Session: "a"}.With(args.Click{Ref: "@e2"}), Facts: facts("click"), Started: clock()}), e: e}, Response{OK: true, By: target.RoadTree}, nil)
	steps = td.call(t, Request{Verb: "trace", Session: "a"}).Trace
	if steps[len(steps)-2].Picture != "" || steps[len(steps)-1].Picture == "" {
		t.Errorf("your desktop: without the grant %q, with it %q", steps[len(steps)-2].Picture, steps[len(steps)-1].Picture)
	}
	td.mu.Lock()
	e.rec.Desktop, e.rec.Pixels = false, false
	td.mu.Unlock()

	// The setting lasts across a restart; the retention period sweeps.
	td.Close()
	<-td.done
	td = startDaemonWith(t, b, dir, func(c *Config) { c.Now = clock; c.TraceRetention = time.Hour; c.IdleHandback = -1 })
	if st, _ := td.traces(); !st.Setting().Pictures {
		t.Error("pictures went off with a restart")
	}
	if len(pics()) != 2 {
		t.Fatalf("pictures after a restart: %v", pics())
	}
	advance(2 * time.Hour)
	got := td.call(t, Request{Verb: "trace", Session: "a"})
	if len(got.Trace) != 0 || len(pics()) != 0 {
		t.Errorf("past the retention period: %d steps, pictures %v", len(got.Trace), pics())
	}
	off := td.call(t, Request{Verb: "trace", Session: "op"}.With(args.Trace{Action: "pictures-off"}))
	wantCode(t, off, "")
	if !strings.Contains(off.Did, "pictures off") {
		t.Errorf("off: %q", off.Did)
	}
}

// TestTraceDigestsSayAChange: a step's before and after digests are equal
// when nothing it looks at changed, and differ when something did (here a
// window the session sees opened while the keys were typed).
func TestTraceDigestsSayAChange(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := td.open(t, "a")
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: string(id)}.With(args.Key{Chord: "ctrl+a"})), "")
	gate := b.Display().GateTyping()
	done := make(chan Response, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		done <- td.Handle(ctx, Request{Verb: "type", Session: "a", Target: string(id)}.With(args.Type{Text: "hunter2"}))
	}()
	// The type holds its display's input only once it has looked: wait
	// for that, then open a window while it waits at the gate.
	disp := td.entryOf(id).disp
	for disp.InjectOwner() == "" {
		select {
		case r := <-done:
			t.Fatalf("the type answered before it typed: %+v", r)
		case <-time.After(time.Millisecond):
		}
	}
	td.open(t, "a")
	close(gate)
	wantCode(t, <-done, "")
	steps := td.call(t, Request{Verb: "trace", Session: "a", Target: string(id)}).Trace
	if len(steps) < 3 {
		t.Fatalf("steps: %+v", steps)
	}
	key, typ := steps[len(steps)-2], steps[len(steps)-1]
	if key.Verb != "key" || key.Before == "" || key.Before != key.After {
		t.Errorf("a key that changed nothing: before %q after %q", key.Before, key.After)
	}
	if typ.Verb != "type" || typ.Before == "" || typ.After == "" || typ.Before == typ.After {
		t.Errorf("a type while a window opened: before %q after %q", typ.Before, typ.After)
	}
	grepTree(t, td.cfg.StateDir, "hunter2")
}

// TestTraceKeepsNoTypedTextLater: text typed into an entry that names
// itself by its value does not reach the trace with a later click on it;
// a shifted key that types a letter is typing (its count, not its name),
// while a command chord keeps its name; no picture is kept after a step
// that types, even with pictures on.
func TestTraceKeepsNoTypedTextLater(t *testing.T) {
	const canary = "Zq9CANARY"
	dir := t.TempDir()
	td := startDaemonWith(t, &kindtest.Provider{}, dir, func(c *Config) { c.IdleHandback = -1 })
	id := td.open(t, "a")
	wantCode(t, td.call(t, Request{Verb: "trace", Session: "op"}.With(args.Trace{Action: "pictures-on"})), "")
	e := td.entryOf(id)
	now := td.cfg.Now()
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Facts: facts("type"), Req: Request{Verb: "type", Session: "a"}.With(args.Type{Ref: "@e4", Text: canary}), Started: now, Acted: &target.NodeTraits{Role: "combo box", Name: ""}}), e: e}, Response{OK: true, By: target.RoadTree}, nil)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Facts: facts("key"), Req: Request{Verb: "key", Session: "a"}.With(args.Key{Chord: "shift+z"}), Started: now}), e: e}, Response{OK: true, By: target.RoadKeys}, nil)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Facts: facts("key"), Req: Request{Verb: "key", Session: "a"}.With(args.Key{Chord: "ctrl+shift+t"}), Started: now}), e: e}, Response{OK: true, By: target.RoadKeys}, nil)
	// The entry now names itself by what it holds.
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Facts: facts("click"), Req: Request{Verb: "click", Session: "a"}.With(args.Click{Ref: "@e4"}), Started: now, Acted: &target.NodeTraits{Role: "combo box", Name: canary + "Z"}}), e: e}, Response{OK: true, By: target.RoadTree}, nil)
	td.trace(&call{Call: *stagetest.Decoded(&stage.Call{Facts: facts("click"), Req: Request{Verb: "click", Session: "a"}.With(args.Click{Ref: "@e5"}), Started: now, Acted: &target.NodeTraits{Role: "entry", Name: "Zq9", Editable: true}}), e: e}, Response{OK: true, By: target.RoadTree}, nil)
	steps := td.call(t, Request{Verb: "trace", Session: "a"}).Trace
	if len(steps) != 6 {
		t.Fatalf("steps: %q", stepVerbs(steps))
	}
	typ, shifted, cmd, click := steps[1], steps[2], steps[3], steps[4]
	if typ.Picture != "" || shifted.Picture != "" || cmd.Picture != "" {
		t.Errorf("a picture after typing: %q %q %q", typ.Picture, shifted.Picture, cmd.Picture)
	}
	if click.Picture == "" {
		t.Errorf("no picture after the click (pictures are on): %+v", click)
	}
	if shifted.Key != "" || shifted.Chars != 1 {
		t.Errorf("shift+z types a Z: %+v", shifted)
	}
	if cmd.Key != "ctrl+shift+t" {
		t.Errorf("a command chord: %+v", cmd)
	}
	if click.Role != "combo box" || click.Name != "" || steps[5].Name != "" {
		t.Errorf("an editable node's name is kept: %+v %+v", click, steps[5])
	}
	grepTree(t, dir, "Zq9")
	grepTree(t, dir, "shift+z")
}
