package displays_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// remotePage is the tab's page on the remote host: its button writes into
// its own DOM, which the test reads back.
const remotePage = `<!doctype html><html><head><title>remote page</title></head><body>
<button onclick="document.getElementById('out').textContent = 'pressed on the remote host'">Press me</button>
<p id="out">not yet</p></body></html>`

// remoteEnv is a local command line's Env whose every call goes to the
// remote host h (VIBESPACE_HOST); its ssh masters are ended at cleanup.
func remoteEnv(t testing.TB) (*env, *clitest.SSHHost, string) {
	t.Helper()
	e := newEnv(t)
	browser, err := clitest.BuildInto(filepath.Dir(wintest.Bin), "vibespace-browser", "github.com/vibespace/vibespace/cmd/vibespace-browser")
	if err != nil {
		t.Fatal(err)
	}
	h := clitest.NewSSHHost(t, filepath.Join(filepath.Dir(wintest.Bin), "vibespace-daemon"), e.FixtureSrc, filepath.Join(filepath.Dir(e.FixtureSrc), "fixturelog.py"))
	e.Extra = append(e.Extra, h.Environ()...)
	t.Cleanup(func() { // before h's cleanup: the masters are ours
		clitest.StopMasters(e.Run)
		if t.Failed() {
			t.Logf("sshd:\n%s", h.Log())
			b, _ := os.ReadFile(filepath.Join(h.Dir, "home", ".local", "state", "vibespace", "daemon.log"))
			t.Logf("remote daemon.log:\n%s", b)
		}
	})
	return e, h, browser
}

// TestRemoteHost drives a GTK fixture window and a tab on "another host"
// (sshd in a network namespace of its own, another uid) through the
// command lines' ssh road: the remote daemon is started there by the
// bridge, answers name the host, a click by ref lands in the fixture's own
// log, a tab's button changes its page's DOM, the lease holds against
// another session, and the remote daemon's audit has the verbs.
func TestRemoteHost(t *testing.T) {
	testenv.NeedIntegration(t, "chromium")
	e, h, browser := remoteEnv(t)
	hostName := h.Name

	st := e.Answer("s1", "status")
	if !st.OK || st.Facts["host"] != hostName || st.Status == nil {
		t.Fatalf("status over ssh: %+v", st)
	}
	var pst syscall.Stat_t
	if err := syscall.Stat("/proc/"+itoa(st.Status.PID), &pst); err != nil || int(pst.Uid) != h.UID {
		t.Fatalf("the daemon that answered (pid %d) is not the remote user's: %v uid %d", st.Status.PID, err, pst.Uid)
	}
	if out := e.OK("s1", "status"); !strings.Contains(out, "host: "+hostName) {
		t.Fatalf("status's text does not name the host:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(e.Home, "state.json")); err == nil {
		t.Fatal("a local daemon started: the road did not go to the remote host")
	}

	// doctor lists the host's rows: ssh, the master, the remote daemon,
	// the live view.
	doc := e.OK("s1", "doctor")
	for _, row := range []string{"host " + hostName + ": ssh", "host " + hostName + ": master", "host " + hostName + ": remote daemon", "host " + hostName + ": live view"} {
		if !strings.Contains(doc, "yes  "+row) {
			t.Fatalf("doctor has no row %q that says yes:\n%s", row, doc)
		}
	}

	// The fixture window, on the remote display.
	logPath := filepath.Join(h.Logs, "fixture.jsonl")
	open := e.Answer("s1", "open", testenv.FixturePython, filepath.Join(h.Bin, "fixture.py"), "--log", logPath)
	if !open.OK || open.Facts["host"] != hostName {
		t.Fatalf("open over ssh: %+v", open)
	}
	id := string(open.Target.ID)
	log := testenv.OpenFixtureLog(logPath)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := log.WaitFrom(ctx, 0, func(ev testenv.Event) bool { return ev.Type == "ready" }); err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot("s1", id)
	alpha := node(t, snap, "push button", "Alpha")
	from := log.Len()
	if out := e.OK("s1", "click", id, alpha.Ref); !strings.Contains(out, "host: "+hostName) {
		t.Fatalf("click's answer does not name the host:\n%s", out)
	}
	wait(t, log, from, "the click on alpha", func(ev testenv.Event) bool { return ev.Type == "click" && ev.Widget == "alpha" })
	e.OK("s1", "share", id, "--with", "s2")
	r := e.Refused("held", "s2", "click", id, alpha.Ref)
	if !strings.Contains(r.Errout, "holder=s1") || !strings.Contains(r.Errout, "host="+hostName) {
		t.Fatalf("held over ssh:\n%s", r.Errout)
	}

	// The live view, through the tunnel: the same port here, forwarded
	// over the master, serves the remote viewer's page.
	var addr string
	for _, l := range strings.Split(e.OK("s1", "watch", id), "\n") {
		if strings.HasPrefix(l, "http://") {
			addr = l
		}
	}
	clitest.CheckWatch(t, addr, id)

	// A tab on the remote host's browser.
	page := filepath.Join(h.Bin, "page.html")
	if err := os.WriteFile(page, []byte(remotePage), 0o644); err != nil {
		t.Fatal(err)
	}
	be := *e.Env.Env // the clitest.Env: the browser command on the same daemon
	be.Bin = browser
	if out := be.OK("s1", "open", "file://"+page); !strings.Contains(out, "host: "+hostName) {
		t.Fatalf("browser open over ssh:\n%s", out)
	}
	bsnap := be.Answer("s1", "snapshot", "-i")
	if !bsnap.OK || bsnap.Snapshot == nil {
		t.Fatalf("tab snapshot: %+v", bsnap)
	}
	press := bsnap.Snapshot.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Press me" })
	if press == nil {
		t.Fatalf("no button in the tab's snapshot:\n%s", be.OK("s1", "snapshot"))
	}
	be.OK("s1", "click", press.Ref)
	if out := be.OK("s1", "eval", "document.getElementById('out').textContent"); !strings.Contains(out, "pressed on the remote host") {
		t.Fatalf("the page's DOM after the click:\n%s", out)
	}

	// The remote daemon's audit, in the remote user's state directory.
	b, err := os.ReadFile(filepath.Join(h.Dir, "home", ".local", "state", "vibespace", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var clicks, held int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if (row["verb"] == "click" || row["verb"] == "browser.click") && row["session"] == "s1" && row["ok"] == true {
			clicks++
		}
		if row["verb"] == "click" && row["session"] == "s2" && row["code"] == "held" {
			held++
		}
	}
	if clicks != 2 || held != 1 {
		t.Fatalf("the remote audit has %d clicks of s1, want the window's and the tab's:\n%s", clicks, b)
	}
}

// TestRemoteHostUnreachable: a port where no sshd listens is
// host_unreachable, and a remote program that is not there is
// no_remote_daemon, each with ssh's last stderr line among the facts.
func TestRemoteHostUnreachable(t *testing.T) {
	testenv.NeedIntegration(t)
	e, h, _ := remoteEnv(t)
	r := e.CLIEnv("s1", []string{"VIBESPACE_HOST=" + h.DeadSpec()}, "--json", "status")
	var resp struct {
		Code  string         `json:"code"`
		Facts map[string]any `json:"facts"`
	}
	if err := json.Unmarshal([]byte(r.Out), &resp); err != nil || r.Code != 1 || resp.Code != "host_unreachable" || resp.Facts["ssh_stderr"] == "" {
		t.Fatalf("dead port: exit %d %+v %v\n%s", r.Code, resp, err, r.Errout)
	}
	r = e.CLIEnv("s1", []string{"VIBESPACE_REMOTE_DAEMON=" + filepath.Join(h.Dir, "nowhere", "vibespace-daemon")}, "status")
	if r.Code != 1 || !strings.Contains(r.Errout, "[no_remote_daemon]") || !strings.Contains(r.Errout, "ssh_stderr=") {
		t.Fatalf("missing remote program: exit %d\n%s", r.Code, r.Errout)
	}
}

func itoa(n int) string { return string(jsonInt(n)) }

func jsonInt(n int) []byte { b, _ := json.Marshal(n); return b }
