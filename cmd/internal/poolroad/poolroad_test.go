package poolroad_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/cmd/internal/poolroad"
	"github.com/vibespace/vibespace/cmd/vibespace-daemon/stages"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/pool"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

func TestMain(m *testing.M) {
	clitest.RelayMain()
	os.Exit(m.Run())
}

// TestRemotePoolMember: a local daemon whose pool is one Xvfb desktop
// here and one desktop of another host's daemon's pool (the tests' own
// sshd in a network namespace, another uid), reached over the ssh road.
// Two sessions borrow: the second gets the remote one (desk2 here, desk1
// there). Through the command lines' own call (daemoncall.Call, which MCP
// uses too) the second opens the GTK fixture on desk2 — the local daemon
// refuses elsewhere and the call follows it to the host — and clicks and
// types by ref on the handle that answer carries (win:N@ssh://…); the
// effects are in the fixture's own log on the remote side. Its return
// here returns it there: the file it left in that desktop's HOME and its
// process are gone (the disk and /proc say). A member whose host does not
// answer (no sshd on the port) is refused no_display with the reason, and
// skipped with it in doctor.
func TestRemotePoolMember(t *testing.T) {
	h, dir, sock, env := remoteHost(t)
	road, err := poolroad.New(h.Spec, env, sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	no := native.Options{Logf: t.Logf}
	p := pool.New(pool.Config{Desks: 1, Kind: native.ProviderName, Inner: native.Xvfb(no), Logf: t.Logf,
		MemFree: func() (int64, error) { return 1 << 40, nil }, Remotes: []pool.Remote{road}})
	daemontest.Start(t, daemon.Config{StateDir: dir, SocketPath: sock,
		Displays:    append([]kind.DisplayProvider{native.Xvfb(no)}, p.Desks()...),
		Stages:      stages.WithPool(p),
		VerbTimeout: 90 * time.Second,
	})
	o := daemoncall.Options{Name: "test", Getenv: env}
	call := func(session string, req wire.Request) wire.Response {
		t.Helper()
		req.Session = session
		resp, err := daemoncall.Call(ctx, o, req, 90*time.Second)
		if err != nil {
			t.Fatalf("%s as %s: %v", req.Verb, session, err)
		}
		return resp
	}
	ok := func(session string, req wire.Request) wire.Response {
		t.Helper()
		resp := call(session, req)
		if !resp.OK {
			t.Fatalf("%s as %s: %+v", req.Verb, session, resp)
		}
		return resp
	}

	b1 := ok("s1", args.Request("borrow", "", args.Borrow{}))
	b2 := ok("s2", args.Request("borrow", "", args.Borrow{}))
	if b1.Facts["desk"] != "desk1" || b1.Facts["host"] != nil {
		t.Fatalf("s1's borrow: %+v", b1)
	}
	if b2.Facts["desk"] != "desk2" || b2.Facts["host"] != h.Spec || b2.Facts["there"] != "desk1" || !strings.Contains(b2.Did, "desk2 — on "+h.Spec+", desk1 there") {
		t.Fatalf("s2's borrow: %+v", b2)
	}
	// Another session's open on it is refused here, held.
	if r := call("s1", args.Request("open", "", args.Open{App: "/bin/true", Display: "desk2"})); r.OK || r.Code != target.CodeHeld {
		t.Fatalf("s1's open on s2's desk2: %+v", r)
	}

	// s2 opens the fixture on its remote desktop, leaving a file in that
	// desktop's HOME; the script's PID is the fixture's (exec).
	logPath := filepath.Join(h.Logs, "fixture.jsonl")
	script := fmt.Sprintf(`echo left > "$HOME/left.txt"; echo "$HOME" > %[1]s/home; echo $$ > %[1]s/pid; exec %[2]s %[3]s --log %[4]s`,
		h.Logs, testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), logPath)
	open := ok("s2", args.Request("open", "", args.Open{App: "/bin/sh", Args: []string{"-c", script}, Display: "desk2"}))
	id := string(open.Target.ID)
	if !strings.HasSuffix(id, "@"+h.Spec) || open.Facts["host"] != h.Name {
		t.Fatalf("the open on desk2 did not go to %s: %+v", h.Spec, open)
	}
	log := testenv.OpenFixtureLog(logPath)
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	sreq := args.Request("snapshot", id, args.Snapshot{})
	sreq.JSON = true
	snap := ok("s2", sreq)
	find := func(role, name string) *target.Node {
		n := snap.Snapshot.Root.Find(func(n *target.Node) bool { return strings.Contains(role, n.Role) && n.Name == name })
		if n == nil {
			t.Fatalf("no %s %q in the remote window's snapshot", role, name)
		}
		return n
	}
	alpha, entry := find("push button", "Alpha"), find("text entry", "Name")
	from := log.Len()
	ok("s2", args.Request("click", id, args.Click{Ref: alpha.Ref}))
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" }); err != nil {
		t.Fatalf("the click on alpha is not in the fixture's log: %v", err)
	}
	ok("s2", args.Request("type", id, args.Type{Ref: entry.Ref, Text: "over ssh"}))
	if _, err := log.WaitFrom(ctx, from, func(ev testenv.Event) bool { return ev.Widget == "entry" && ev.Text == "over ssh" }); err != nil {
		t.Fatalf("the typed text is not in the fixture's log: %v", err)
	}

	homeB, err := os.ReadFile(filepath.Join(h.Logs, "home"))
	if err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(strings.TrimSpace(string(homeB)), "left.txt")
	pidB, err := os.ReadFile(filepath.Join(h.Logs, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidB)))
	if _, err := os.Stat(left); err != nil || !slices.Contains(h.RemotePIDs(), pid) {
		t.Fatalf("before the return: %s %v, pid %d among the remote user's: %v", left, err, pid, slices.Contains(h.RemotePIDs(), pid))
	}

	// s2 returns it here: it is returned, and wiped, there.
	ret := ok("s2", args.Request("return", "", args.Empty{}))
	if ret.Facts["host"] != h.Spec || !strings.Contains(ret.Did, "returned desk2: returned on "+h.Spec+" (desk1 there)") {
		t.Fatalf("the return: %+v", ret)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Fatalf("%s is still there after the return: %v", left, err)
	}
	if !clitest.Exited(pid) {
		t.Fatalf("the fixture (pid %d) still runs on the remote host after the return", pid)
	}
	// The handle went with the desktop.
	if r := call("s2", args.Request("snapshot", id, args.Snapshot{})); r.OK {
		t.Fatalf("a snapshot of %s after the return: %+v", id, r)
	}
	ok("s1", args.Request("return", "", args.Empty{}))
	// s1 borrows again: it gets desk1 here, then desk2 there is s2's again.
	ok("s1", args.Request("borrow", "", args.Borrow{}))
	if b := ok("s2", args.Request("borrow", "", args.Borrow{})); b.Facts["desk"] != "desk2" {
		t.Fatalf("s2's second borrow: %+v", b)
	}
	ok("s2", args.Request("return", "", args.Empty{}))
	ok("s1", args.Request("return", "", args.Empty{}))

	// The local audit has the lend and the wipe with the host.
	audit, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"verb":"pool.lend"`, "desk2 (remote " + h.Spec + ")", `"verb":"pool.wipe"`, "returned on " + h.Spec} {
		if !strings.Contains(string(audit), want) {
			t.Fatalf("the local audit has no %q:\n%s", want, audit)
		}
	}

	// A member whose host does not answer: refused no_display with the
	// reason, within the road's bound (the call's deadline is ctx's), and
	// skipped by the next borrow with it; doctor says why.
	dead, err := poolroad.New(h.DeadSpec(), env, sock)
	if err != nil {
		t.Fatal(err)
	}
	dp := pool.New(pool.Config{Remotes: []pool.Remote{dead}, Logf: t.Logf})
	_, err = dp.Borrow(ctx, "s3", false, "", 0)
	r, isRefusal := target.AsRefusal(err)
	if !isRefusal || r.Code != target.CodeNoDisplay || r.Facts["reason"] != target.CodeHostUnreachable || r.Facts["host"] != dead.Host() {
		t.Fatalf("a borrow of the dead member: %v", err)
	}
	_, err = dp.Borrow(ctx, "s3", false, "", 0)
	if r, isRefusal := target.AsRefusal(err); !isRefusal || r.Code != target.CodeNoDisplay || !strings.Contains(r.Message, "unreachable") {
		t.Fatalf("a second borrow of the dead member: %v", err)
	}
	checks := dp.Desks()[0].Doctor(ctx)
	if len(checks) != 1 || checks[0].OK || !strings.Contains(checks[0].Detail, "unreachable") {
		t.Fatalf("doctor of the dead member: %+v", checks)
	}
	if ctx.Err() != nil {
		t.Fatal("the dead member's answers came after the test's bound")
	}
}

// remoteHost is the tests' other host (clitest.SSHHost) with our daemon
// there, running a pool of one desktop of its own, and the environment
// and socket of a daemon here (its state directory dir) that reaches it.
// Its ssh masters end before the host does.
func remoteHost(t testing.TB) (h *clitest.SSHHost, dir, sock string, env func(string) string) {
	t.Helper()
	testenv.NeedIntegration(t)
	bin := t.TempDir()
	daemonBin, err := clitest.BuildInto(bin, "vibespace-daemon", "github.com/vibespace/vibespace/cmd/vibespace-daemon")
	if err != nil {
		t.Fatal(err)
	}
	root := clitest.ModuleRoot(t)
	h = clitest.NewSSHHost(t, daemonBin, filepath.Join(root, "testenv", "fixture", "fixture.py"), filepath.Join(root, "testenv", "fixture", "fixturelog.py"))
	remoteDaemon := filepath.Join(h.Bin, "vibespace-daemon")

	dir = t.TempDir()
	sock = filepath.Join(dir, "run", "window.sock")
	env = func(k string) string {
		switch k {
		case "VIBESPACE_HOME":
			return dir
		case "VIBESPACE_SSH_CONFIG":
			return h.Config
		case "VIBESPACE_REMOTE_DAEMON":
			return remoteDaemon
		case "PATH", "HOME":
			return os.Getenv(k)
		}
		return ""
	}
	t.Cleanup(func() { // before h's: the masters are ours
		socks, _ := filepath.Glob(filepath.Join(dir, "run", "ssh-*"))
		for _, s := range socks {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			exec.CommandContext(ctx, "ssh", "-o", "ControlPath="+s, "-O", "exit", "x").Run()
			cancel()
		}
		if t.Failed() {
			t.Logf("sshd:\n%s", h.Log())
			b, _ := os.ReadFile(filepath.Join(h.Dir, "home", ".local", "state", "vibespace", "daemon.log"))
			t.Logf("remote daemon.log:\n%s", b)
		}
	})

	// The remote host's daemon, with a pool of one desktop of its own.
	h.StartDaemon("--pool-desks", "1", "--pool-idle", "0")
	return h, dir, sock, env
}

// BenchmarkRemoteBorrowReturn: a pool whose one member is a desktop of the
// other host, borrowed and returned over the ssh road (the master up after
// the first round): the road's cost on a borrow and a return, medians.
func BenchmarkRemoteBorrowReturn(b *testing.B) {
	h, _, sock, env := remoteHost(b)
	road, err := poolroad.New(h.Spec, env, sock)
	if err != nil {
		b.Fatal(err)
	}
	p := pool.New(pool.Config{Remotes: []pool.Remote{road}})
	var borrows, returns []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := p.Borrow(b.Context(), "m", false, "", 0); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := p.Return(b.Context(), "m", pool.ReturnAsked); err != nil {
			b.Fatal(err)
		}
		borrows, returns = append(borrows, t1.Sub(t0)), append(returns, time.Since(t1))
	}
	median := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(float64(median(borrows).Milliseconds()), "borrow-ms")
	b.ReportMetric(float64(median(returns).Milliseconds()), "return-ms")
}
