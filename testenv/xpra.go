package testenv

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/xpra"
)

// NewXpra starts a seamless Xpra display (package xpra) for t alone, with
// its buses, and closes it when t ends; Main's leak check covers it as it
// does a Desktop.
func NewXpra(t testing.TB, o xpra.Options) *xpra.Display {
	t.Helper()
	NeedIntegration(t, "xpra")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	d, err := xpra.Start(ctx, o)
	if err != nil {
		t.Fatalf("testenv: xpra: %v", err)
	}
	track(d.Desktop)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("testenv: close xpra: %v", err)
		}
	})
	return d
}

// AttachXpra runs the `xpra attach …` command line a person would (what
// watch --xpra prints) as a client on the person's display, with no
// sound, tray or OpenGL; detach stops it (SIGTERM, then SIGKILL) and reaps
// it, and runs at t's end if not before. Its output is logged when t
// fails.
func AttachXpra(t testing.TB, person *Desktop, cmdline string) (detach func()) {
	t.Helper()
	argv := strings.Fields(cmdline)
	if len(argv) < 3 || argv[0] != "xpra" || argv[1] != "attach" {
		t.Fatalf("testenv: not an xpra attach command: %q", cmdline)
	}
	argv = append(argv, "--opengl=no", "--speaker=off", "--microphone=off", "--webcam=no", "--tray=no", "--notifications=no")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = person.Env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: %s: %v", cmdline, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	var once sync.Once
	detach = func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			if t.Failed() {
				t.Logf("the person's xpra client said:\n%s", out.String())
			}
		})
	}
	t.Cleanup(detach)
	return detach
}
