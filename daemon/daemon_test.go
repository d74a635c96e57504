package daemon

import (
	"bufio"
	"context"
	"errors"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon/args"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/kind/kindtest"
	"github.com/vibespace/vibespace/target"
)

type testDaemon struct {
	*Daemon
	sock string
	done chan struct{} // closed when Serve returned
}

// liveHands is the daemon as the live view sees it (what Config.Live is
// handed), for tests that act as the page.
func (td *testDaemon) liveHands() LiveHands { return LiveHandsOf(td.Daemon) }

// startDaemon runs a daemon on b with state in dir (a fresh one if "").
func startDaemon(t *testing.T, b *kindtest.Provider, dir string) *testDaemon {
	t.Helper()
	return startDaemonWith(t, b, dir, nil)
}

// startDaemonWith is startDaemon with the config adjusted by tune.
func startDaemonWith(t *testing.T, b *kindtest.Provider, dir string, tune func(*Config)) *testDaemon {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	sock := filepath.Join(dir, "run", "w.sock")
	cfg := Config{StateDir: dir, SocketPath: sock, Displays: []kind.DisplayProvider{b}, VerbTimeout: 5 * time.Second, Stages: stages.All()}
	if tune != nil {
		tune(&cfg)
	}
	d, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	td := &testDaemon{Daemon: d, sock: sock, done: make(chan struct{})}
	go func() {
		defer close(td.done)
		if err := d.Serve(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	t.Cleanup(func() { d.Close(); <-td.done })
	return td
}

func (td *testDaemon) call(t *testing.T, req Request) Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, td.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Call(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func wantCode(t *testing.T, resp Response, code target.Code) {
	t.Helper()
	if resp.Code != code || resp.OK != (code == "") {
		t.Fatalf("answer %+v, want code %q", resp, code)
	}
}

func (td *testDaemon) open(t *testing.T, session string) target.ID {
	t.Helper()
	resp := td.call(t, Request{Verb: "open", Session: session}.With(args.Open{App: "fake-app"}))
	wantCode(t, resp, "")
	if resp.Target == nil || resp.Target.Holder != session {
		t.Fatalf("open answer %+v", resp)
	}
	return resp.Target.ID
}

func TestSecondDaemonRefuses(t *testing.T) {
	dir := t.TempDir()
	startDaemon(t, &kindtest.Provider{}, dir)
	_, err := New(t.Context(), Config{StateDir: dir, SocketPath: filepath.Join(dir, "x.sock"), Displays: []kind.DisplayProvider{&kindtest.Provider{}}, Stages: stages.All()})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second daemon: %v", err)
	}
}

func TestSocketAndFilesArePrivate(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	td.open(t, "a")
	for _, p := range []string{td.sock, filepath.Join(td.cfg.StateDir, stateFile), filepath.Join(td.cfg.StateDir, auditFile)} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", filepath.Base(p), fi.Mode(), err)
		}
	}
}

func TestDisplayStartsLazily(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	wantCode(t, td.call(t, Request{Verb: "status", Session: "a"}), "")
	wantCode(t, td.call(t, Request{Verb: "list", Session: "a"}), "")
	if b.Started() != 0 {
		t.Fatal("status/list must not start the display")
	}
	td.open(t, "a")
	td.open(t, "a")
	if b.Started() != 1 {
		t.Fatalf("display started %d times", b.Started())
	}
}

func TestExposureAndLease(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := td.open(t, "a")
	if got := td.call(t, Request{Verb: "list", Session: "b"}); len(got.Targets) != 0 {
		t.Fatalf("b sees %+v", got.Targets)
	}
	resp := td.call(t, Request{Verb: "snapshot", Session: "b", Target: string(id)})
	wantCode(t, resp, target.CodeNotExposed)
	if resp.Target != nil {
		t.Fatal("a not_exposed answer must not describe the target")
	}
	wantCode(t, td.call(t, Request{Verb: "share", Session: "b", Target: string(id)}.With(args.Share{With: "b"})), target.CodeNotExposed)
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: string(id)}.With(args.Share{With: "b"})), "")
	resp = td.call(t, Request{Verb: "key", Session: "b", Target: string(id)}.With(args.Key{Chord: "ctrl+s"}))
	wantCode(t, resp, target.CodeHeld)
	if resp.Facts["holder"] != "a" || resp.Target.Holder != "a" {
		t.Fatalf("held answer %+v", resp)
	}
	wantCode(t, td.call(t, Request{Verb: "attach", Session: "b", Target: string(id)}), target.CodeHeld)
	wantCode(t, td.call(t, Request{Verb: "detach", Session: "a", Target: string(id)}), "")
	resp = td.call(t, Request{Verb: "key", Session: "b", Target: string(id)}.With(args.Key{Chord: "ctrl+s"}))
	wantCode(t, resp, "")
	if resp.Target.Holder != "b" || resp.By != target.RoadKeys {
		t.Fatalf("%+v", resp)
	}
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: string(id)}.With(args.Click{At: "1,1"})), target.CodeHeld)
}

func TestCapabilityLawThroughTheDaemon(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	snap := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id})
	wantCode(t, snap, "")
	if !strings.Contains(snap.Text, "@e2") || snap.By != target.RoadTree {
		t.Fatalf("snapshot text %q", snap.Text)
	}
	// @e1 root, @e2 button, @e3 label, @e4 entry.
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{Ref: "@e2"})), "")
	resp := td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{Ref: "@e3"}))
	wantCode(t, resp, target.CodeNoAction)
	for _, ev := range b.Display().Events() {
		if ev.Kind == "click" {
			t.Fatal("a no_action click must never become a coordinate click")
		}
	}
	wantCode(t, td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Ref: "@e4", Text: "hi"})), "")
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{Ref: "@e99"})), target.CodeBadRef)
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{Ref: "e-x"})), target.CodeBadRef)
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{At: "300,5"})), target.CodeOutsideWindow)
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{At: "-1,5"})), target.CodeOutsideWindow)
	resp = td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{At: "5,6"}))
	wantCode(t, resp, "")
	if resp.By != target.RoadPoint {
		t.Fatal(resp.By)
	}
	wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: id}.With(args.Key{Chord: "ctrl+nosuchkey"})), target.CodeBadChord)
	wantCode(t, td.call(t, Request{Verb: "scroll", Session: "a", Target: id}.With(args.Scroll{Direction: "down", By: 2})), "")
	wantCode(t, td.call(t, Request{Verb: "scroll", Session: "a", Target: id}.With(args.Scroll{Direction: "sideways"})), target.CodeBadRequest)
	var kinds []string
	for _, ev := range b.Display().Events() {
		if ev.Kind == "raise" {
			continue
		}
		kinds = append(kinds, ev.Kind)
		if ev.Kind == "click" && (ev.X != 15 || ev.Y != 26) {
			t.Fatalf("click --at 5,6 landed at %d,%d, want window origin + (5,6)", ev.X, ev.Y)
		}
	}
	if got := strings.Join(kinds, ","); got != "action,insert,click,scroll" {
		t.Fatalf("events %s", got)
	}
}

func TestNoInjectionBackend(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{NoInject: true}, "")
	id := string(td.open(t, "a"))
	for _, req := range []Request{
		Request{Verb: "key"}.With(args.Key{Chord: "ctrl+s"}), Request{Verb: "click"}.With(args.Click{At: "1,1"}), Request{Verb: "type"}.With(args.Type{Text: "x"}), Request{Verb: "scroll"}.With(args.Scroll{Direction: "up"}),
	} {
		req.Session, req.Target = "a", id
		resp := td.call(t, req)
		wantCode(t, resp, target.CodeNoInjectionBackend)
		if !strings.Contains(resp.Message, "XTEST absent") {
			t.Fatalf("%s: the refusal must carry the probe result: %q", req.Verb, resp.Message)
		}
	}
	td.call(t, Request{Verb: "snapshot", Session: "a", Target: id})
	wantCode(t, td.call(t, Request{Verb: "click", Session: "a", Target: id}.With(args.Click{Ref: "@e2"})), "")
}

func TestTextLimits(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	id := string(td.open(t, "a"))
	resp := td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Text: strings.Repeat("x", DefaultMaxKeysText+1)}))
	wantCode(t, resp, target.CodeTextTooLong)
	if !strings.Contains(resp.Message, "1500") {
		t.Fatal(resp.Message)
	}
	resp = td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Text: strings.Repeat("x", DefaultMaxText+1)}))
	wantCode(t, resp, target.CodeTextTooLong)
}

func TestTakeoverCutsTypingAndHandbackToldOnce(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	gate := b.Display().GateTyping()
	typed := make(chan Response, 1)
	go func() {
		typed <- td.call(t, Request{Verb: "type", Session: "a", Target: id}.With(args.Type{Text: strings.Repeat("secret-", 20)}))
	}()
	wantCode(t, td.call(t, Request{Verb: "share", Session: "a", Target: id}.With(args.Share{With: "operator"})), "")
	gate <- struct{}{} // the first chunk goes through: the type is in flight
	resp := td.call(t, Request{Verb: "takeover", Session: "operator", Target: id}.With(args.Operator{User: "alice"}))
	wantCode(t, resp, "")
	got := <-typed
	wantCode(t, got, target.CodeWindowPaused)
	if got.Facts["partial"] != true || got.Facts["user"] != "alice" {
		t.Fatalf("cut type answer %+v", got)
	}
	ev := b.Display().Events()
	if ev[len(ev)-1].Kind != "release" {
		t.Fatalf("takeover must release every key: %+v", ev)
	}
	close(gate)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), target.CodeWindowPaused)
	wantCode(t, td.call(t, Request{Verb: "handback", Session: "operator", Target: id}.With(args.Operator{User: "alice"})), "")
	first := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id})
	wantCode(t, first, "")
	if !strings.Contains(first.Note, "control came back") {
		t.Fatalf("first answer after handback: note %q", first.Note)
	}
	if again := td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}); again.Note != "" {
		t.Fatal("the handback note must be told once")
	}
	b2, _ := os.ReadFile(filepath.Join(td.cfg.StateDir, auditFile))
	if strings.Contains(string(b2), "secret") {
		t.Fatal("the audit log holds typed text")
	}
	if !strings.Contains(string(b2), `"verb":"type","by":"keys","ok":false,"code":"window_paused"`) {
		t.Fatalf("audit:\n%s", b2)
	}
}

func TestFrozenTargetDoesNotBlockAnother(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	frozen := string(td.open(t, "a"))
	other := string(td.open(t, "a"))
	b.Display().Freeze(b.Display().PID("0x400001"))
	snap := make(chan Response, 1)
	go func() { snap <- td.call(t, Request{Verb: "snapshot", Session: "a", Target: frozen}) }()
	// The frozen snapshot holds its target until the verb timeout; verbs on
	// the other window answer meanwhile.
	for range 3 {
		wantCode(t, td.call(t, Request{Verb: "key", Session: "a", Target: other}.With(args.Key{Chord: "Return"})), "")
		wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: other}), "")
	}
	select {
	case <-snap:
		t.Fatal("the frozen snapshot answered before its deadline")
	default:
	}
	got := <-snap
	wantCode(t, got, "")
	if !strings.Contains(got.Text, "unreadable") {
		t.Fatalf("frozen snapshot text %q", got.Text)
	}
}

func TestRestartReconciles(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	live := td.open(t, "a")
	dead := td.open(t, "a")
	td.call(t, Request{Verb: "share", Session: "a", Target: string(live)}.With(args.Share{With: "b"}))
	td.Detach() // as if killed: display and apps keep running
	<-td.done
	b.Display().Kill(b.Display().PID("0x400002"))

	td2 := startDaemon(t, b, dir)
	list := td2.call(t, Request{Verb: "list", Session: "a"})
	if len(list.Targets) != 1 || list.Targets[0].ID != live || list.Targets[0].Holder != "a" {
		t.Fatalf("after restart: %+v", list.Targets)
	}
	if got := td2.call(t, Request{Verb: "list", Session: "b"}); len(got.Targets) != 1 {
		t.Fatal("the share must survive a restart")
	}
	wantCode(t, td2.call(t, Request{Verb: "key", Session: "a", Target: string(dead)}.With(args.Key{Chord: "a"})), target.CodeUnknownTarget)
	if b.Started() != 1 {
		t.Fatal("the restarted daemon must re-attach, not start a second display")
	}
	if id := td2.open(t, "a"); id != "win:3" {
		t.Fatalf("numbers must not be reused: got %s", id)
	}
}

func TestRestartAfterDisplayDied(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	td := startDaemon(t, b, dir)
	td.open(t, "a")
	td.Detach()
	<-td.done
	b.Display().Close()
	td2 := startDaemon(t, b, dir)
	if got := td2.call(t, Request{Verb: "list", Session: "a"}); len(got.Targets) != 0 {
		t.Fatalf("%+v", got.Targets)
	}
}

func TestWindowGone(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	b.Display().Kill(1001)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), target.CodeWindowGone)
	wantCode(t, td.call(t, Request{Verb: "snapshot", Session: "a", Target: id}), target.CodeUnknownTarget)
}

func TestOpenUnknownApp(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	wantCode(t, td.call(t, Request{Verb: "open", Session: "a"}.With(args.Open{App: "no-such-app-xyz"})), target.CodeAppNotFound)
	wantCode(t, td.call(t, Request{Verb: "open", Session: "a"}), target.CodeBadRequest)
}

func TestBadRequestsKeepServingOthers(t *testing.T) {
	td := startDaemon(t, &kindtest.Provider{}, "")
	ctx := t.Context()
	// A client that stays connected and keeps asking.
	good, err := Dial(ctx, td.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	for _, bad := range []string{
		"{not json}\n",
		`{"verb":"status","session":"a","bogus":1}` + "\n",
		`{"verb":"status","session":"a"} {"x":1}` + "\n",
		strings.Repeat("x", DefaultMaxRequest+10) + "\n",
		`{"verb":"type","session":"a","args":{"text":"` + strings.Repeat("y", DefaultMaxRequest) + `"}}` + "\n",
	} {
		c, err := net.Dial("unix", td.sock)
		if err != nil {
			t.Fatal(err)
		}
		go c.Write([]byte(bad)) // the daemon may close before reading it all
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.Contains(line, `"code":"bad_request"`) {
			t.Fatalf("answer to a bad request: %q %v", line, err)
		}
		if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
			t.Fatal("the connection must be closed after a bad request")
		}
		c.Close()
		resp, err := good.Call(ctx, Request{Verb: "status", Session: "a"})
		if err != nil || !resp.OK {
			t.Fatalf("the other client: %+v %v", resp, err)
		}
	}
	resp, _ := good.Call(ctx, Request{Verb: "dance", Session: "a"})
	wantCode(t, resp, target.CodeBadRequest)
	resp, _ = good.Call(ctx, Request{Verb: "status"})
	wantCode(t, resp, target.CodeBadRequest)
}

func TestIdleHandbackInDaemon(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	var mu = make(chan struct{}, 1)
	clock := func() time.Time { mu <- struct{}{}; defer func() { <-mu }(); return now }
	d, err := New(t.Context(), Config{StateDir: dir, SocketPath: filepath.Join(dir, "s"), Displays: []kind.DisplayProvider{b}, IdleHandback: time.Minute, Now: clock, Stages: stages.All()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	id := string(d.Handle(t.Context(), Request{Verb: "open", Session: "a"}.With(args.Open{App: "fake-app"})).Target.ID)
	d.Handle(t.Context(), Request{Verb: "share", Session: "a", Target: id}.With(args.Share{With: "op"}))
	d.Handle(t.Context(), Request{Verb: "takeover", Session: "op", Target: id})
	wantCode(t, d.Handle(t.Context(), Request{Verb: "snapshot", Session: "a", Target: id}), target.CodeWindowPaused)
	mu <- struct{}{}
	now = now.Add(2 * time.Minute)
	<-mu
	resp := d.Handle(t.Context(), Request{Verb: "snapshot", Session: "a", Target: id})
	wantCode(t, resp, "")
	if !strings.Contains(resp.Note, "idle") {
		t.Fatalf("note %q", resp.Note)
	}
}

func TestPaths(t *testing.T) {
	env := map[string]string{"HOME": "/h"}
	get := func(k string) string { return env[k] }
	st, sock, err := Paths(get)
	if err != nil || st != "/h/.local/state/vibespace" || sock != "/h/.local/state/vibespace/run/window.sock" {
		t.Fatal(st, sock, err)
	}
	env["XDG_STATE_HOME"] = "/s"
	env["XDG_RUNTIME_DIR"] = "/r"
	st, sock, _ = Paths(get)
	if st != "/s/vibespace" || !strings.HasPrefix(sock, "/r/vibespace/window-") {
		t.Fatal(st, sock)
	}
	env["VIBESPACE_HOME"] = "/v"
	st2, sock2, _ := Paths(get)
	if st2 != "/v" || sock2 == sock {
		t.Fatal("a different VIBESPACE_HOME must get a different socket")
	}
	if _, _, err := Paths(func(string) string { return "" }); err == nil {
		t.Fatal("no env at all must be an error")
	}
}

func TestHangupCancelsVerb(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	id := string(td.open(t, "a"))
	gate := b.Display().GateTyping()
	c, err := net.Dial("unix", td.sock)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte(`{"verb":"type","session":"a","target":"` + id + `","args":{"text":"abcdefghijklmnop"}}` + "\n"))
	gate <- struct{}{} // the first chunk is typed: the verb is in flight
	c.Close()
	// The verb is cancelled: the lease is usable again at once, and the
	// second chunk never arrives.
	resp := td.call(t, Request{Verb: "key", Session: "a", Target: id}.With(args.Key{Chord: "Return"}))
	wantCode(t, resp, "")
	for _, ev := range b.Display().Events() {
		if ev.Kind == "type" && ev.Text == "ijklmnop" {
			t.Fatal("the rest of the text was typed after the client hung up")
		}
	}
}

func TestDisplayDiedUnderUs(t *testing.T) {
	b := &kindtest.Provider{}
	td := startDaemon(t, b, "")
	old := td.open(t, "a")
	b.Display().Close() // Xvfb died
	id := td.open(t, "a")
	if b.Started() != 2 || id == old {
		t.Fatalf("started %d displays, new id %s", b.Started(), id)
	}
	// Lost with its display, said so: never unknown_target for a handle
	// the daemon minted (issue 35).
	resp := td.call(t, Request{Verb: "snapshot", Session: "a", Target: string(old)})
	wantCode(t, resp, target.CodeWindowGone)
	if !strings.Contains(resp.Message, string(old)+" was lost at ") || !strings.Contains(resp.Message, "died") {
		t.Fatalf("the lost window's refusal: %s", resp.Message)
	}
}

// --for (the operator acting on another session's attachment set) is
// refused on every verb but the set's own words, before the verb runs.
func TestForOnlyOnTheSetsWords(t *testing.T) {
	b := &kindtest.Provider{}
	dir := t.TempDir()
	d, err := New(t.Context(), Config{StateDir: dir, SocketPath: filepath.Join(dir, "s"), Displays: []kind.DisplayProvider{b}, Stages: stages.All()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, verb := range []string{"open", "list", "browser.open", "browser.snapshot", "browser.new", "takeover"} {
		resp := d.Handle(t.Context(), Request{Verb: verb, Session: "op", For: "agent"}.With(taken(verb, map[string]any{"app": "fake-app"})))
		wantCode(t, resp, target.CodeBadRequest)
		if !strings.Contains(resp.Message, "--for") {
			t.Errorf("%s --for: %q", verb, resp.Message)
		}
	}
	if b.Started() != 0 {
		t.Errorf("a refused --for started the display (open ran)")
	}
	// The set's words take it, and act on the other session's set.
	resp := d.Handle(t.Context(), Request{Verb: "browser.attachments", Session: "op", For: "agent"})
	wantCode(t, resp, "")
	if !strings.Contains(resp.Did, "session agent") {
		t.Errorf("attachments --for: %q", resp.Did)
	}
}
