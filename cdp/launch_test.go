package cdp_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	proto "github.com/chromedp/cdproto/cdp"

	"github.com/vibespace/vibespace/cdp"
)

// A browser of its own: launch, one call, close; nothing of its process
// group is left, and its temporary profile is gone.
func TestLaunchClose(t *testing.T) {
	t.Parallel()
	needChromium(t)
	ctx := ctxT(t)
	b, err := cdp.Launch(ctx, cdp.Options{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	pid := b.PID()
	if len(cdp.GroupProcesses(pid)) == 0 {
		t.Fatalf("no process in the browser's group %d after launch", pid)
	}
	v, err := proto.Call(ctx, b.Conn(), browser.GetVersion, proto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Product, "Chrome/") {
		t.Errorf("product %q", v.Product)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if left := cdp.GroupProcesses(pid); len(left) > 0 {
		t.Fatalf("after Close, processes %v of group %d remain", left, pid)
	}
	select {
	case <-b.Exited():
	default:
		t.Fatal("Exited not closed after Close")
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := proto.Call(ctx, b.Conn(), browser.GetVersion, proto.Empty{}); !errors.Is(err, cdp.ErrClosed) {
		t.Fatalf("call after Close: %v, want ErrClosed", err)
	}
}

// The browser lives as long as Launch's context: ending it kills and reaps
// the whole group.
func TestLaunchContextEnds(t *testing.T) {
	t.Parallel()
	needChromium(t)
	ctx, cancel := context.WithCancel(ctxT(t))
	b, err := cdp.Launch(ctx, cdp.Options{Headless: true})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	pid := b.PID()
	cancel()
	select {
	case <-b.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("browser still running 20 s after its context ended")
	}
	if err := b.Close(); err != nil { // waits for the group and returns the first close's result
		t.Fatal(err)
	}
	if left := cdp.GroupProcesses(pid); len(left) > 0 {
		t.Fatalf("processes %v of group %d remain", left, pid)
	}
}

// A launch that cannot become ready in time fails with the reason and
// leaves nothing running.
func TestLaunchTimeout(t *testing.T) {
	needChromium(t)
	ctx, cancel := context.WithTimeout(ctxT(t), time.Millisecond)
	defer cancel()
	_, err := cdp.Launch(ctx, cdp.Options{Headless: true})
	if err == nil {
		t.Fatal("launch within 1 ms succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
}

func TestLaunchNeedsDisplayWhenHeaded(t *testing.T) {
	_, err := cdp.Launch(t.Context(), cdp.Options{})
	if err == nil || !strings.Contains(err.Error(), "Display") {
		t.Fatalf("err = %v", err)
	}
}

// A browser we launch listens on no TCP port and writes no
// DevToolsActivePort: CDP runs over the pipe it inherited, and the flags
// that would open a port are refused.
func TestLaunchListensNowhere(t *testing.T) {
	t.Parallel()
	needChromium(t)
	ctx := ctxT(t)
	// The check itself sees a listener: one of this process's own.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := fmt.Sprintf(":%d", ln.Addr().(*net.TCPAddr).Port)
	if l := cdp.GroupListeners(syscall.Getpgrp()); !slices.ContainsFunc(l, func(s string) bool { return strings.HasSuffix(s, port) }) {
		t.Fatalf("GroupListeners of our own group %v misses our listener on %s", l, port)
	}

	dir := t.TempDir()
	b, err := cdp.Launch(ctx, cdp.Options{Headless: true, UserDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewTab(ctx, server(t).URL+"/page"); err != nil {
		t.Fatal(err)
	}
	if l := cdp.GroupListeners(b.PID()); len(l) > 0 {
		t.Fatalf("the browser listens on TCP: %v", l)
	}
	if _, err := os.Stat(filepath.Join(dir, "DevToolsActivePort")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("DevToolsActivePort: %v, want none", err)
	}

	for _, f := range []string{"--remote-debugging-port=9222", "--remote-debugging-address=0.0.0.0", "--remote-debugging-port"} {
		_, err := cdp.Launch(ctx, cdp.Options{Headless: true, ExtraFlags: []string{f}})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("launch with %s: %v, want refused", f, err)
		}
	}
}
