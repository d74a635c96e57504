package chromium

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/target"
)

// TestBrowserTakeoverCutsType: a takeover during a long type cancels it:
// the page's own field holds fewer characters than were sent, the agent's
// type and its next verb are browser_paused, and after the handback the
// note is told once.
func TestBrowserTakeoverCutsType(t *testing.T) {
	s := newSite(t)
	const n = 4000
	h := startHarness(t, "", Options{}, func(c *daemon.Config) { c.MaxKeysText = n })
	open := h.ok(t, daemon.Request{Verb: "browser.open", Session: "ivy"}.With(args.OpenURL{URL: s.URL + "/typing"}))
	id := open.Target.ID
	snap := h.ok(t, daemon.Request{Verb: "browser.snapshot", Session: "ivy"})
	field := findRef(t, snap.Text, "entry", "Long")

	// The page's field read through CDP directly, outside the daemon's
	// verbs (which the type holds).
	h.pool.mu.Lock()
	cctx := h.pool.contexts["ivy"]
	h.pool.mu.Unlock()
	tab, err := cctx.Tab(t.Context(), open.Target.CDPID)
	if err != nil {
		t.Fatal(err)
	}
	length := func() int {
		var l int
		if err := tab.EvalInto(t.Context(), "document.getElementById('t').value.length", &l); err != nil {
			t.Fatal(err)
		}
		return l
	}

	typed := make(chan daemon.Response, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 60*time.Second)
		defer cancel()
		c, err := daemon.Dial(ctx, h.sock)
		if err != nil {
			typed <- daemon.Response{Message: err.Error()}
			return
		}
		defer c.Close()
		r, err := c.Call(ctx, daemon.Request{Verb: "browser.type", Session: "ivy"}.With(args.Type{Ref: field, Text: strings.Repeat("x", n)}))
		if err != nil {
			r.Message = err.Error()
		}
		typed <- r
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for length() < 10 {
		select {
		case <-ctx.Done():
			t.Fatal("the type never started")
		case <-time.After(5 * time.Millisecond):
		}
	}
	to := daemon.LiveHandsOf(h.d).Takeover(t.Context(), id, "zoe") // the person at the live view: a tab is its opener's alone
	if !to.OK || !strings.Contains(to.Did, "cancelled") {
		t.Fatalf("takeover: %s", to.Did)
	}
	r := <-typed
	wantCode(t, r, target.CodeBrowserPaused)
	if r.Facts["partial"] != true {
		t.Fatalf("the cut type's facts: %v", r.Facts)
	}
	got := length()
	if got >= n || got == 0 {
		t.Fatalf("the field holds %d characters of %d sent: the type was not cut", got, n)
	}
	if tf, ok := r.Facts["typed"].(float64); !ok || int(tf) > got {
		t.Fatalf("the answer says %v typed; the field holds %d", r.Facts["typed"], got)
	}
	// Nothing more arrives, and the agent is paused.
	wantCode(t, h.call(t, daemon.Request{Verb: "browser.snapshot", Session: "ivy"}), target.CodeBrowserPaused)
	if l := length(); l != got {
		t.Fatalf("characters arrived after the takeover: %d then %d", got, l)
	}
	// The paused agent cannot hand back; the user does.
	wantCode(t, h.call(t, daemon.Request{Verb: "handback", Session: "ivy", Target: string(id)}), target.CodeBrowserPaused)
	if r := daemon.LiveHandsOf(h.d).Handback(t.Context(), id, "zoe"); !r.OK {
		t.Fatalf("handback: %+v", r)
	}
	first := h.ok(t, daemon.Request{Verb: "browser.get", Session: "ivy"}.With(args.Get{What: "title"}))
	if !strings.Contains(first.Note, "zoe") {
		t.Fatalf("the first verb after the handback has note %q", first.Note)
	}
	second := h.ok(t, daemon.Request{Verb: "browser.get", Session: "ivy"}.With(args.Get{What: "title"}))
	if second.Note != "" {
		t.Fatalf("the note was told twice: %q", second.Note)
	}
	// The audit holds the type's line, never its text.
	audit := readFile(t, h.dir, "audit.jsonl")
	if strings.Contains(audit, "xxxxxxxx") {
		t.Fatal("the audit carries the typed text")
	}
	var saw bool
	for _, line := range strings.Split(strings.TrimSpace(audit), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["verb"] == "browser.type" && e["code"] == string(target.CodeBrowserPaused) {
			saw = true
		}
	}
	if !saw {
		t.Fatalf("no audit line for the cut type:\n%s", audit)
	}
}
