package cdp_test

import (
	"context"
	"errors"
	"strings"
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
