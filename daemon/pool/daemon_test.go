package pool_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/live"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/pool"
	"github.com/vibespace/vibespace/rtc"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// person is the test's stand-in for a person at the live view's page: it
// calls the page's own API with the viewer token watch handed out.
type person struct {
	base, token string
}

func (p person) post(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", p.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("POST %s answered %d %q", path, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// auditRows are the audit log's rows of verb, as the log on disk has them.
func auditRows(t *testing.T, dir, verb string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row map[string]any
		if json.Unmarshal(sc.Bytes(), &row) == nil && row["verb"] == verb {
			out = append(out, row)
		}
	}
	return out
}

func procRunning(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// TestBorrowThroughTheDaemon: a served daemon with a pool of two Xvfb
// desktops. Two agents borrow one each; a third queues; an open on
// another's desktop is refused held; the first opens an application on
// its own that leaves a file in HOME and a process. A person asks for a
// desktop from the live view's own API, after the third agent, and gets
// the first one returned — wiped: the file and the process are gone (the
// disk and /proc say). A person's takeover of the second desktop pauses
// its borrower's verbs on its window (taken_over) until the handback. The
// third agent gets the second desktop once its borrower's budget is spent
// (it goes back, wiped, said on the refused answer); a fourth past
// its wait is pool_busy with its place. The audit log has the borrows,
// the waits, the wipes and the takeover.
func TestBorrowThroughTheDaemon(t *testing.T) {
	testenv.NeedIntegration(t)
	if !rtc.VP8Available() {
		t.Fatal("this build has no VP8 encoder (cgo + libvpx): the live view cannot run")
	}
	bin, err := testenv.XClientBinary()
	if err != nil {
		t.Fatal(err)
	}
	no := native.Options{Logf: t.Logf}
	p := pool.New(pool.Config{Desks: 2, Kind: native.ProviderName, Inner: native.Xvfb(no), Logf: t.Logf,
		MemFree: func() (int64, error) { return 1 << 40, nil }})
	dir := t.TempDir()
	sv := daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
		Displays:    append([]kind.DisplayProvider{native.Xvfb(no)}, p.Desks()...),
		Stages:      stages.WithPool(p),
		VerbTimeout: 30 * time.Second,
		Live:        live.For(live.Options{Routes: p.Routes()}),
	})
	borrow := func(session, wait string) daemon.Response {
		return sv.Call(t, daemon.Request{Verb: "borrow", Session: session}.With(args.Borrow{Wait: wait}))
	}
	r1, r2 := borrow("s1", ""), borrow("s2", "")
	if !r1.OK || !r2.OK || r1.Facts["desk"] != "desk1" || r2.Facts["desk"] != "desk2" {
		t.Fatalf("borrows: %+v / %+v", r1, r2)
	}
	third := make(chan daemon.Response, 1)
	go func() { third <- borrow("s3", "25s") }()
	for p.Queued() != 1 {
		time.Sleep(5 * time.Millisecond)
	}

	// Another's desktop: held.
	if r := sv.Call(t, daemon.Request{Verb: "open", Session: "s2"}.With(args.Open{App: bin, Display: "desk1"})); r.OK || r.Code != target.CodeHeld {
		t.Fatalf("s2's open on s1's desk1: %+v", r)
	}
	// s1 leaves a file and a process on its own.
	out := t.TempDir()
	pidFile := filepath.Join(out, "sleep.pid")
	script := fmt.Sprintf(`echo secret > "$HOME/left.txt"; echo $HOME > %s/home; sleep 100000 & echo $! > %s; exec %s --log %s`,
		out, pidFile, bin, filepath.Join(out, "x.jsonl"))
	if r := sv.OK(t, daemon.Request{Verb: "open", Session: "s1"}.With(args.Open{App: "/bin/sh", Args: []string{"-c", script}, Display: "desk1"})); !strings.Contains(r.Did, "desk1") {
		t.Fatalf("open on desk1 says %q", r.Did)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	left, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	home, _ := os.ReadFile(filepath.Join(out, "home"))
	file := filepath.Join(strings.TrimSpace(string(home)), "left.txt")
	if _, err := os.Stat(file); err != nil || !procRunning(left) {
		t.Fatalf("what s1 left: %v, process %d running %v", err, left, procRunning(left))
	}

	// s2 opens a window on desk2.
	w2 := sv.OK(t, daemon.Request{Verb: "open", Session: "s2"}.With(args.Open{App: bin, Args: []string{"--log", filepath.Join(out, "y.jsonl")}, Display: "desk2"}))

	// The person, at the live view's page.
	wr := sv.OK(t, daemon.Request{Verb: "watch", Session: "s1"})
	u, err := url.Parse(wr.URL)
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	pp := person{base: "http://" + u.Host, token: frag.Get("token")}
	type answer struct {
		code int
		body map[string]any
	}
	personGot := make(chan answer, 1)
	go func() {
		c, b := pp.post(t, "/api/pool/borrow?wait=25s")
		personGot <- answer{c, b}
	}()
	for p.Queued() != 2 {
		time.Sleep(5 * time.Millisecond)
	}

	// s1 returns desk1: the person, second to come, gets it first.
	ret := sv.OK(t, daemon.Request{Verb: "return", Session: "s1"})
	pa := <-personGot
	if pa.code != http.StatusOK || pa.body["facts"].(map[string]any)["desk"] != "desk1" {
		t.Fatalf("the person's borrow: %d %v (return said %q)", pa.code, pa.body, ret.Did)
	}
	if procRunning(left) {
		t.Errorf("s1's process %d still runs after its return", left)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("s1's file is still there after its return: %v", err)
	}
	if p.Queued() != 1 {
		t.Fatalf("s3 no longer waits (%d queued)", p.Queued())
	}
	// An agent's open on the person's desktop is refused.
	if r := sv.Call(t, daemon.Request{Verb: "open", Session: "s3"}.With(args.Open{App: bin, Display: "desk1"})); r.OK || r.Code != target.CodeTakenOver {
		t.Fatalf("s3's open on the person's desk1: %+v", r)
	}

	// The person takes desk2 over: s2's verbs on its window there wait.
	if c, b := pp.post(t, "/api/pool/takeover/desk2"); c != http.StatusOK {
		t.Fatalf("takeover: %d %v", c, b)
	}
	if r := sv.Call(t, daemon.Request{Verb: "screenshot", Session: "s2", Target: string(w2.Target.ID)}); r.OK || r.Code != target.CodeTakenOver {
		t.Fatalf("s2's screenshot while desk2 is taken over: %+v", r)
	}
	if c, b := pp.post(t, "/api/pool/handback/desk2"); c != http.StatusOK {
		t.Fatalf("handback: %d %v", c, b)
	}
	sv.OK(t, daemon.Request{Verb: "screenshot", Session: "s2", Target: string(w2.Target.ID)})

	// s2's budget is spent: desk2 goes back, wiped, told on that
	// answer, and s3 gets it.
	sv.OK(t, daemon.Request{Verb: "budget", Session: "s2"}.With(args.Budget{Steps: 1}))
	sv.OK(t, daemon.Request{Verb: "key", Session: "s2", Target: string(w2.Target.ID)}.With(args.Key{Chord: "a"}))
	spent := sv.Call(t, daemon.Request{Verb: "key", Session: "s2", Target: string(w2.Target.ID)}.With(args.Key{Chord: "a"}))
	if spent.OK || spent.Code != target.CodeBudgetSpent || !strings.Contains(spent.Note, "desk2 went back to the pool") {
		t.Fatalf("s2's key past its budget: %+v", spent)
	}
	r3 := <-third
	if !r3.OK || r3.Facts["desk"] != "desk2" {
		t.Fatalf("s3's borrow: %+v", r3)
	}
	// Both lent, nobody queued: a fourth waits its 100 ms and is told its
	// place.
	if r := borrow("s4", "100ms"); r.OK || r.Code != target.CodePoolBusy || r.Facts["position"] != float64(1) {
		t.Fatalf("s4 past its wait: %+v", r)
	}
	if c, b := pp.post(t, "/api/pool/return"); c != http.StatusOK {
		t.Fatalf("the person's return: %d %v", c, b)
	}
	// The pool's own rows (the verbs' rows are the audit stage's): each
	// desktop lent (s1, s2, the person, s3), each wipe (s1's, s2's, the
	// person's), each wait (s3, the person, s4), s4's pool_busy.
	for verb, want := range map[string]int{"pool.lend": 4, "pool.wipe": 3, "pool.wait": 3, "pool.busy": 1, "pool.takeover": 1, "pool.handback": 1} {
		if n := len(auditRows(t, dir, verb)); n != want {
			t.Errorf("the audit log has %d rows of %s, want %d", n, verb, want)
		}
	}
}

// TestReattachedDesktopIsWiped: a daemon killed (detached, as kill -9
// leaves its displays) while a desktop is lent; the next daemon on the
// same state re-attaches the desktop's display and wipes it before anyone
// borrows it — the process and the file the borrower left are gone (/proc
// and the disk say) — and the display itself, kept by the earlier
// daemon's record, still opens applications.
func TestReattachedDesktopIsWiped(t *testing.T) {
	testenv.NeedIntegration(t)
	bin, err := testenv.XClientBinary()
	if err != nil {
		t.Fatal(err)
	}
	no := native.Options{Logf: t.Logf}
	dir := t.TempDir()
	start := func() *daemontest.Served {
		p := pool.New(pool.Config{Desks: 1, Kind: native.ProviderName, Inner: native.Xvfb(no), Logf: t.Logf,
			MemFree: func() (int64, error) { return 1 << 40, nil }})
		return daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: filepath.Join(dir, "run", "w.sock"),
			Displays: append([]kind.DisplayProvider{native.Xvfb(no)}, p.Desks()...), Stages: stages.WithPool(p), VerbTimeout: 30 * time.Second})
	}
	sv := start()
	sv.OK(t, daemon.Request{Verb: "borrow", Session: "s1"})
	out := t.TempDir()
	pidFile := filepath.Join(out, "sleep.pid")
	script := fmt.Sprintf(`echo secret > "$HOME/left.txt"; echo $HOME > %s/home; sleep 100000 & echo $! > %s; exec %s --log %s`,
		out, pidFile, bin, filepath.Join(out, "x.jsonl"))
	sv.OK(t, daemon.Request{Verb: "open", Session: "s1"}.With(args.Open{App: "/bin/sh", Args: []string{"-c", script}, Display: "desk1"}))
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	left, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	home, _ := os.ReadFile(filepath.Join(out, "home"))
	file := filepath.Join(strings.TrimSpace(string(home)), "left.txt")
	sv.Detach()
	if !procRunning(left) {
		t.Fatalf("the borrower's process %d did not outlive its daemon", left)
	}

	sv2 := start()
	if procRunning(left) {
		t.Errorf("the borrower's process %d runs on after the desktop was re-attached", left)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the borrower's file is still there after the re-attach: %v", err)
	}
	if r := sv2.OK(t, daemon.Request{Verb: "borrow", Session: "s2"}); r.Facts["desk"] != "desk1" {
		t.Fatalf("s2's borrow: %+v", r)
	}
	r := sv2.OK(t, daemon.Request{Verb: "open", Session: "s2"}.With(args.Open{App: bin, Args: []string{"--log", filepath.Join(out, "y.jsonl")}, Display: "desk1"}))
	if !strings.Contains(r.Did, "desk1") {
		t.Fatalf("open on the re-attached desk1: %q", r.Did)
	}
}
