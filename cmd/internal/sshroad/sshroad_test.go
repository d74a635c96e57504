package sshroad

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

func TestParse(t *testing.T) {
	run := t.TempDir()
	env := func(k string) string {
		return map[string]string{"VIBESPACE_SSH_CONFIG": "/cfg", "VIBESPACE_REMOTE_DAEMON": "/opt/vs/vibespace-daemon"}[k]
	}
	for _, c := range []struct{ spec, name, dest, port string }{
		{"ssh://alice@box", "alice@box", "alice@box", ""},
		{"ssh://alice@box:2222", "alice@box:2222", "alice@box", "2222"},
		{"alice@10.0.0.2", "alice@10.0.0.2", "alice@10.0.0.2", ""},
		{"ssh://box/", "box", "box", ""},
	} {
		h, err := Parse(c.spec, env, run)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if h.Name != c.name || h.dest != c.dest || h.port != c.port || h.Config != "/cfg" || h.Daemon != "/opt/vs/vibespace-daemon" {
			t.Fatalf("%s: %+v", c.spec, h)
		}
		if filepath.Dir(h.Control) != run || len(h.Control) > len(run)+20 {
			t.Fatalf("%s: control socket %q is not a short name in %s", c.spec, h.Control, run)
		}
	}
	for _, bad := range []string{"http://box", "ssh://", "ssh://@box", "ssh://box:0", "ssh://box:http", "-oProxyCommand=x", "ssh://a b@box"} {
		if _, err := Parse(bad, env, run); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	a, _ := Parse("ssh://a@one", env, run)
	b, _ := Parse("ssh://a@two", env, run)
	if a.Control == b.Control {
		t.Fatal("two hosts share a control socket")
	}
}

// TestBridgeFailures runs Bridge with a stand-in for ssh that exits as ssh
// does when it cannot reach the host (255) and when the remote shell finds
// no program (127), and checks the codes and ssh's last stderr line.
func TestBridgeFailures(t *testing.T) {
	for _, c := range []struct {
		exit string
		code target.Code
		line string
	}{
		{"255", target.CodeHostUnreachable, "ssh: connect to host 127.0.0.1 port 9: Connection refused"},
		{"127", target.CodeNoRemoteDaemon, "sh: 1: /nowhere/vibespace-daemon: not found"},
		{"0", target.CodeNoRemoteDaemon, "bridge said nothing"},
	} {
		dir := t.TempDir()
		fake := filepath.Join(dir, "ssh")
		script := "#!/bin/sh\necho 'earlier line' >&2\necho '" + c.line + "' >&2\nexit " + c.exit + "\n"
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		h, err := Parse("ssh://u@h", func(string) string { return "" }, dir)
		if err != nil {
			t.Fatal(err)
		}
		h.SSH = fake
		cl, _, err := h.Bridge(context.Background())
		var f *Failure
		if cl != nil || !errors.As(err, &f) {
			t.Fatalf("exit %s: want a Failure, got %v %v", c.exit, cl, err)
		}
		if f.Code != c.code || f.Stderr != c.line || !strings.Contains(f.Message, "u@h") {
			t.Fatalf("exit %s: %+v", c.exit, f)
		}
		r := f.Response(h.Name)
		if r.Code != c.code || r.Facts["host"] != "u@h" || r.Facts["ssh_stderr"] != c.line || r.OK {
			t.Fatalf("exit %s: answer %+v", c.exit, r)
		}
	}
}

// TestListens finds a socket listening on 127.0.0.1:P among a process's
// descriptors (this test's own listener), and not once it is closed or for
// another port; masterPID reads ssh -O check's line.
func TestListens(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if !listens(os.Getpid(), port) {
		t.Fatalf("this process's listener on 127.0.0.1:%d not found", port)
	}
	// A connection to it is not a listener on another port.
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cport := c.LocalAddr().(*net.TCPAddr).Port
	if listens(os.Getpid(), cport) {
		t.Fatalf("a connected socket on port %d was taken for a listener", cport)
	}
	c.Close()
	ln.Close()
	if listens(os.Getpid(), port) {
		t.Fatalf("a closed listener on 127.0.0.1:%d still found", port)
	}
	if pid, ok := MasterPID("Master running (pid=4242)"); !ok || pid != 4242 {
		t.Fatalf("masterPID: %d %v", pid, ok)
	}
	for _, no := range []string{"Control socket connect(/x): No such file or directory", "(pid=)", "(pid=12", "(pid=1x)", "(pid=0)", "(pid=-3)"} {
		if pid, ok := MasterPID(no); ok {
			t.Fatalf("masterPID found pid %d in %q", pid, no)
		}
	}
	// The first "(pid=<digits>)", as the regular expression it replaced
	// (`\(pid=(\d+)\)`) found it.
	if pid, ok := MasterPID("(pid=x) Master running (pid=17) (pid=18)"); !ok || pid != 17 {
		t.Fatalf("masterPID: %d %v", pid, ok)
	}
}
