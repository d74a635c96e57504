package chromium

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/x11"
)

// TestBrowserHeadedProfile: a profile's browser asked for headed runs on
// the daemon's own display: the page is not headless, and its window is on
// that X display, owned by the browser's process.
func TestBrowserHeadedProfile(t *testing.T) {
	s := newSite(t)
	h := startHarness(t, "", Options{}, nil)
	req := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "kim"} }
	id := h.useNewProfile(t, "kim", "Seen")
	open := req("browser.open").With(args.OpenURL{URL: s.URL + "/page"})
	open.Headed = true
	h.ok(t, open)
	ev := req("browser.eval").With(args.Eval{Expr: "navigator.userAgent"})
	if ua := string(h.ok(t, ev).Value); strings.Contains(ua, "Headless") {
		t.Fatalf("the headed profile's page says %s", ua)
	}
	st := h.ok(t, req("status")).Status
	if st == nil || st.Display == "" {
		t.Fatalf("status names no display: %+v", st)
	}
	h.pool.mu.Lock()
	pid := h.pool.browsers[id].b.PID()
	h.pool.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	xd, err := x11.Open(ctx, st.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer xd.Close()
	for {
		ws, err := xd.WindowsOfPID(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no window of the browser (pid %d) on %s", pid, st.Display)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
