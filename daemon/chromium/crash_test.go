package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
)

// logCapture is a slog handler's output, safe to read while it is written.
type logCapture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logCapture) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records are the lines logged so far at level and with msg.
func (l *logCapture) records(level, msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(l.buf.String(), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil && r["level"] == level && r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// waitFor polls cond until it holds or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within 20 s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestBrowserCrashIsLoggedAndCleaned: a pool browser that dies without
// being asked (its whole group killed here) is logged at warn level with
// its pid, profile and how it ended; the shared browser's temporary
// profile is removed at once, a persistent profile's directory is kept,
// and nothing of either group is left.
func TestBrowserCrashIsLoggedAndCleaned(t *testing.T) {
	logs := &logCapture{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s := newSite(t)
	h := startHarness(t, "", Options{Logger: log, IdleStop: -1}, nil)
	id := h.useNewProfile(t, "ivy", "crashy")
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "ivy"}.With(args.OpenURL{URL: s.URL + "/page"}))
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "jack"}.With(args.OpenURL{URL: s.URL + "/page"}))
	h.pool.mu.Lock()
	shared, prof := h.pool.browsers[""], h.pool.browsers[id]
	h.pool.mu.Unlock()

	for _, br := range []*browser{shared, prof} {
		pid := br.b.PID()
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the crash's warn line", func() bool {
			for _, r := range logs.records("WARN", "browser exited unexpectedly") {
				if r["pid"] == float64(pid) && r["profile"] == br.profile && r["status"] == "signal: killed" {
					return true
				}
			}
			return false
		})
		waitFor(t, "the crashed browser's group gone", func() bool { return len(cdp.GroupProcesses(pid)) == 0 })
	}
	waitFor(t, "the shared browser's temporary profile removed", func() bool {
		_, err := os.Stat(shared.dir)
		return errors.Is(err, os.ErrNotExist)
	})
	if !shared.temp || prof.temp {
		t.Fatalf("temp: shared %v, profile %v", shared.temp, prof.temp)
	}
	if _, err := os.Stat(prof.dir); err != nil {
		t.Fatalf("the profile's own directory: %v", err)
	}
	if h.pool.Running("") || h.pool.Running(id) {
		t.Fatal("the pool still counts a crashed browser as running")
	}
	// A stop the pool asks for is no crash.
	h.ok(t, daemon.Request{Verb: "browser.open", Session: "jack"}.With(args.OpenURL{URL: s.URL + "/page"}))
	h.close()
	if n := len(logs.records("WARN", "browser exited unexpectedly")); n != 2 {
		t.Fatalf("%d crash lines, want the 2 of the kills", n)
	}
}
