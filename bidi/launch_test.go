package bidi_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
)

// firefoxOf is the browser's main process: the relay's child.
func firefoxOf(t *testing.T, b *bidi.Browser) int {
	t.Helper()
	for _, p := range descendants(b.PID()) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
		if strings.HasPrefix(strings.TrimSpace(string(comm)), "firefox") {
			return p
		}
	}
	t.Fatalf("no firefox among the relay %d's descendants %v", b.PID(), descendants(b.PID()))
	return 0
}

// TestKillMidCall: the browser killed while a call waits on it (a script
// that never ends) ends that call with ErrClosed, not a timeout; the
// connection says so; Close then leaves no process of it and no profile.
func TestKillMidCall(t *testing.T) {
	needFirefox(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b, err := bidi.Launch(ctx, bidi.Options{Headless: true, StartTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c := b.Conn()
	tab, err := c.CreateTab(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	procs := append(descendants(b.PID()), b.PID())
	fx := firefoxOf(t, b)
	// A call that would wait for ever: it is under way once the page has
	// run it (it tells the page's title), and only the browser's death
	// can end it before ctx.
	res := make(chan error, 1)
	go func() {
		_, err := c.CallFunction(ctx, bidi.Target{Context: tab}, `() => { document.title = "waiting"; return new Promise(() => {}) }`)
		res <- err
	}()
	for {
		v, err := c.Evaluate(ctx, bidi.Target{Context: tab}, "document.title")
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := v.String(); s == "waiting" {
			break
		}
		select {
		case err := <-res:
			t.Fatalf("the endless call returned: %v", err)
		case <-ctx.Done():
			t.Fatal("the endless call never ran")
		default:
		}
	}
	if err := syscall.Kill(fx, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-res:
		if !errors.Is(err, bidi.ErrClosed) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the call's error: %v, want ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("the call did not end with the browser")
	}
	<-c.Done()
	if !errors.Is(c.Err(), bidi.ErrClosed) {
		t.Errorf("the connection's error: %v", c.Err())
	}
	if _, err := c.GetTree(ctx, ""); !errors.Is(err, bidi.ErrClosed) {
		t.Errorf("a call after: %v, want ErrClosed", err)
	}
	dir := b.ProfileDir()
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if left := alive(procs); len(left) > 0 {
		t.Errorf("processes %v of the browser (of %v) outlived it", left, procs)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its profile: %v, want it removed", err)
	}
}

// TestStartTimeoutReaps: a browser that never starts its Remote Agent (a
// stand-in that sleeps) fails Launch at its deadline with an error that
// says so, and leaves no process behind.
func TestStartTimeoutReaps(t *testing.T) {
	needFirefox(t)
	dir := t.TempDir()
	mark := fmt.Sprintf("%d.%06d", 600+rand.IntN(100), rand.IntN(1000000))
	bin := filepath.Join(dir, "firefox-stand-in")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexec sleep "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := bidi.Launch(t.Context(), bidi.Options{Binary: bin, Headless: true, StartTimeout: 3 * time.Second})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Launch: %v, want a deadline exceeded", err)
	}
	if left := withCmdline("sleep\x00" + mark); len(left) > 0 {
		t.Errorf("the stand-in outlived the failed Launch: %v", left)
	}
}

// withCmdline is the live processes whose command line is line.
func withCmdline(line string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.TrimRight(string(data), "\x00") == line {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			pids = append(pids, pid)
		}
	}
	return alive(pids)
}
