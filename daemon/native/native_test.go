package native

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

// TestDisplayLifecycle drives the real backend without the daemon: start,
// launch the fixture, read and act on its tree, re-attach from the record
// as a restarted daemon would, stop the app by PID, close, and leave nothing.
func TestDisplayLifecycle(t *testing.T) {
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b := Xvfb(Options{WalkTimeout: 10 * time.Second, Logf: t.Logf})
	disp, err := b.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec := disp.Record()
	var st testenv.State
	closed := false
	defer func() {
		if !closed {
			disp.Close()
		}
	}()
	if p := disp.(*display).probe(ctx, 0); !p.Tree || p.Injection != "xtest" || !p.Capture {
		t.Fatalf("probe %+v", p)
	}
	w, log, _ := launchLogged(t, ctx, disp, fixturePy)
	if _, err := disp.Launch(ctx, []string{"no-such-app-vibespace"}); target.CodeOf(err) != target.CodeAppNotFound {
		t.Fatalf("missing app: %v", err)
	}
	// A path (open ./missing; the CLI makes it absolute) that does not
	// exist, and one that is not executable, are app_not_found too.
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), notExec} {
		if _, err := disp.Launch(ctx, []string{p}); target.CodeOf(err) != target.CodeAppNotFound {
			t.Fatalf("open %s: %v, want app_not_found", filepath.Base(p), err)
		}
	}

	wi, err := w.Info(ctx)
	if err != nil || wi.PID == 0 || wi.Key == "" {
		t.Fatalf("window info %+v %v", wi, err)
	}
	// A second provider re-attaches from the record, as after kill -9.
	disp2, err := Xvfb(Options{}).Reattach(ctx, rec)
	if err != nil {
		t.Fatalf("reattach: %v", err)
	}
	w2, err := disp2.Window(ctx, wi.Key, wi.PID)
	if err != nil {
		t.Fatalf("window after reattach: %v", err)
	}
	if i2, err := w2.Info(ctx); err != nil || i2.PID != wi.PID || i2.Key != wi.Key {
		t.Fatalf("window after reattach: %+v %v", i2, err)
	}
	if p := w2.Probe(ctx); !p.Tree || p.Injection != "xtest" || !p.Capture || p.NodeInput {
		t.Fatalf("the window's probe %+v", p)
	}
	snap, err := w2.Snapshot(ctx, target.NewRefTable())
	if err != nil {
		t.Fatal(err)
	}
	alpha := snap.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Alpha" })
	if alpha == nil {
		t.Fatalf("no Alpha in:\n%s", snap.Text())
	}
	tr, err := w2.Node(ctx, kind.Node{Ref: "@e1", Key: alpha.Key})
	if err != nil || !tr.Has("Action") || !tr.Sensitive {
		t.Fatalf("traits %+v %v", tr, err)
	}
	from := log.Len()
	if err := w2.Act(ctx, kind.Node{Ref: "@e1", Key: alpha.Key}); err != nil {
		t.Fatal(err)
	}
	if _, err := log.WaitFrom(ctx, from, func(e testenv.Event) bool { return e.Type == "click" && e.Widget == "alpha" }); err != nil {
		t.Fatal(err)
	}
	png, err := w2.Screenshot(ctx)
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("capture: %d bytes, %v", len(png), err)
	}
	var checks []kind.Check
	checks = append(checks, b.Doctor(ctx)...)
	checks = append(checks, disp2.Doctor(ctx)...)
	for _, c := range checks {
		if !c.OK && (c.Name == "XTEST" || c.Name == "AT-SPI" || c.Name == "display") {
			t.Errorf("doctor: %+v", c)
		}
	}
	// Stop by PID (disp2 did not launch it), then close everything.
	if err := w2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(wi.PID) {
		t.Fatal("the app outlived Close")
	}
	if _, err := w2.Info(ctx); target.CodeOf(err) != target.CodeWindowGone {
		t.Fatalf("a closed window's info: %v, want window_gone", err)
	}
	if err := jsonState(rec, &st); err != nil {
		t.Fatal(err)
	}
	disp.Close()
	closed = true
	disp2.Close()
	if leaks := testenv.Leaks([]*testenv.Desktop{{ID: st.ID, Dir: st.Dir}}); len(leaks) > 0 {
		t.Fatalf("left behind:\n%s", strings.Join(leaks, "\n"))
	}
	if _, err := Xvfb(Options{}).Reattach(ctx, rec); err == nil {
		t.Fatal("re-attaching to a closed display must fail")
	}
}

func jsonState(rec []byte, st *testenv.State) error { return json.Unmarshal(rec, st) }

// TestStopSparesUnmarkedProcess: a PID recorded by an earlier daemon that now
// belongs to a process without our desktop's marker (a reused PID) is never
// signalled; one that carries the marker is stopped.
func TestStopSparesUnmarkedProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("no sleep binary (coreutils): %v", err)
	}
	const id = "vs-native-stop-test"
	d := &display{host: ours{&xvfb.Desktop{ID: id}}, apps: map[int]*xvfb.App{}, onBus: map[int]bool{}}
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command(sleep, "60")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		// Start returns once the child has begun its exec, and the kernel
		// shows the new environment in /proc a moment later: until then
		// the process reads as one without the marker.
		want := []byte(env[0] + "\x00")
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
			if err == nil && bytes.Contains(b, want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("pid %d never showed its environment %q: %v", cmd.Process.Pid, env[0], err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return cmd
	}
	stranger := start("PATH=" + os.Getenv("PATH"))
	other := start(testenv.MarkerVar + "=some-other-desktop")
	ours := start(testenv.MarkerVar + "=" + id)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, c := range []*exec.Cmd{stranger, other} {
		if err := d.stop(ctx, c.Process.Pid); err != nil {
			t.Fatal(err)
		}
		if !alive(c.Process.Pid) {
			t.Fatalf("Stop killed pid %d, which does not carry the marker", c.Process.Pid)
		}
	}
	if err := d.stop(ctx, ours.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if alive(ours.Process.Pid) {
		t.Fatal("Stop spared a process of our desktop")
	}
}
