package bridge

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/daemon/wire"
)

// TestBridgePipesToTheDaemon runs the bridge against a daemon that answers
// (clitest's fake, which records what reached it): the greeting comes
// first, then a request written to the bridge's input reaches the daemon
// whole and its answer comes back on the bridge's output.
func TestBridgePipesToTheDaemon(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"VIBESPACE_HOME": filepath.Join(dir, "home"), "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
	getenv := func(k string) string { return env[k] }
	got := clitest.FakeDaemon(t, getenv, func(r wire.Request) wire.Response {
		return wire.Response{V: wire.ProtocolVersion, OK: true, Did: "status of " + r.Session}
	})
	ours, theirs, err := wire.Socketpair()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), theirs, theirs, testWriter{t}, getenv, filepath.Join(dir, "nowhere", "vibespace-daemon"))
	}()
	cl := wire.FromFD(ours, nil)
	said, err := cl.Greeting(10 * time.Second)
	if err != nil || said != "v="+strconv.Itoa(wire.ProtocolVersion) {
		t.Fatalf("greeting: %q %v", said, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cl.Call(ctx, wire.Request{Verb: "status", Session: "s-remote"})
	if err != nil || !resp.OK || resp.Did != "status of s-remote" {
		t.Fatalf("answer through the bridge: %+v %v", resp, err)
	}
	select {
	case r := <-got:
		if r.Verb != "status" || r.Session != "s-remote" {
			t.Fatalf("the daemon got %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon got nothing")
	}
	cl.Close()
	theirs.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("bridge exit %d", code)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the bridge did not end when its input did")
	}
}

// TestBridgeWithoutADaemon: no daemon answers and none can be started
// (no program beside the bridge, none on PATH): exit 1, no greeting.
func TestBridgeWithoutADaemon(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	env := map[string]string{"VIBESPACE_HOME": filepath.Join(dir, "home"), "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
	ours, theirs, err := wire.Socketpair()
	if err != nil {
		t.Fatal(err)
	}
	code := Run(context.Background(), theirs, theirs, testWriter{t}, func(k string) string { return env[k] }, filepath.Join(dir, "vibespace-daemon"))
	theirs.Close()
	cl := wire.FromFD(ours, nil)
	defer cl.Close()
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if said, err := cl.Greeting(5 * time.Second); err == nil {
		t.Fatalf("a greeting with no daemon: %q", said)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Logf("bridge: %s", b); return len(b), nil }
