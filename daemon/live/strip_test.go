package live_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/chromium"
	"github.com/vibespace/vibespace/target"
)

// stripTab is one tab of a strip as the page shows it (window.vibespace.strips).
type stripTab struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Context  string `json:"context"`
	Driver   string `json:"driver"`
	Watching bool   `json:"watching"`
	Frames   int    `json:"frames"`
	Decoded  int    `json:"decoded"`
	W        int    `json:"w"`
	H        int    `json:"h"`
}

// strip is one session's strip as the page shows it.
type strip struct {
	Session string     `json:"session"`
	Count   string     `json:"count"`
	Full    bool       `json:"full"`
	Idle    []string   `json:"idle"`
	Error   string     `json:"error"`
	Tabs    []stripTab `json:"tabs"`
}

func readStrips(t *testing.T, ctx context.Context, tab *cdp.Tab) map[string]strip {
	t.Helper()
	var ss []strip
	if err := tab.EvalInto(ctx, `window.vibespace ? window.vibespace.strips() : []`, &ss); err != nil {
		t.Fatalf("reading the strips: %v", err)
	}
	out := map[string]strip{}
	for _, s := range ss {
		out[s.Session] = s
	}
	return out
}

// waitStrips waits until the page's strips satisfy ok, which answers what
// it still misses ("" when satisfied).
func waitStrips(t *testing.T, ctx context.Context, tab *cdp.Tab, what string, ok func(map[string]strip) string) map[string]strip {
	t.Helper()
	var last string
	for {
		ss := readStrips(t, ctx, tab)
		if last = ok(ss); last == "" {
			return ss
		}
		select {
		case <-ctx.Done():
			b, _ := json.MarshalIndent(ss, "", " ")
			t.Fatalf("waiting for %s: %s; the strips:\n%s", what, last, b)
		case <-time.After(150 * time.Millisecond):
		}
	}
}

func (s strip) tab(id target.ID) (stripTab, bool) {
	for _, tb := range s.Tabs {
		if tb.ID == string(id) {
			return tb, true
		}
	}
	return stripTab{}, false
}

// chromiumWithDir is the PID of a Chromium browser process (not a child
// of it) started with --user-data-dir=dir, read from /proc: the oracle of
// whether a profile's browser runs, outside the pool that runs it.
func chromiumWithDir(dir string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if slices.Contains(args, "--user-data-dir="+dir) && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--type=") }) {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			return pid
		}
	}
	return 0
}

// auditLines are the audit's entries with verb, read from its file.
func auditLines(t *testing.T, stateDir, verb string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["verb"] == verb {
			out = append(out, m)
		}
	}
	return out
}

// postStop asks the live view to stop an idle browser, as the page does.
func postStop(t *testing.T, base, token, session, profile string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"session": session, "profile": profile})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/stop", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("stop answered %d %s", res.StatusCode, b)
	}
	return a
}

// TestLiveViewStrips: the page shows one strip per session with a tab for
// every target it drives — a window, its own context's tab, a named
// profile's tab, and two helpers' tabs named from their task or else
// "Helper 2" — each saying who drives it, every tab's thumbnail live at
// the thumb size; the count of browsers turns red at the ceiling and lists
// the session's idle browser, which one click stops (its Chromium process
// is gone, the audit says so, a browser with a tab open was refused
// browser_in_use); a new target adds a tab and does not take the pane
// being watched; a takeover from the page says "you"; a tab pops out into
// a page of its own that watches it alone; and the applications are alive
// after.
func TestLiveViewStrips(t *testing.T) {
	pool := chromium.New(chromium.Options{StartTimeout: 60 * time.Second, MaxBrowsers: 2})
	var stateDir string
	h := startLiveDaemon(t, func(c *daemon.Config) { c.Browser = pool; stateDir = c.StateDir })
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>%s</title><body style="margin:0;background:#363">%s</body>`, r.URL.Path[1:], r.URL.Path[1:])
	}))
	defer site.Close()

	win, _ := h.openFixture(t, ctx, "alice")
	own := h.ok(t, daemon.Request{Verb: "browser.open", Session: "alice"}.With(args.OpenURL{URL: site.URL + "/own-page"})).Target.ID
	shop := h.ok(t, daemon.Request{Verb: "browser.new", Session: "alice"}.With(args.New{Label: "shop"})).Profile.ID
	h.ok(t, daemon.Request{Verb: "browser.use", Session: "alice"}.With(args.Use{Label: shop}))
	shopTab := h.ok(t, daemon.Request{Verb: "browser.open", Session: "alice", Profile: shop}.With(args.OpenURL{URL: site.URL + "/shop-page"})).Target.ID
	c1 := h.ok(t, daemon.Request{Verb: "browser.new-child", Session: "alice", Profile: "own"}.With(args.Child{Task: "check the prices"})).Profile.Handle
	c2 := h.ok(t, daemon.Request{Verb: "browser.new-child", Session: "alice", Profile: "own"}).Profile.Handle
	help1 := h.ok(t, daemon.Request{Verb: "browser.open", Session: "alice", Profile: c1}.With(args.OpenURL{URL: site.URL + "/helper-one"})).Target.ID
	help2 := h.ok(t, daemon.Request{Verb: "browser.open", Session: "alice", Profile: c2}.With(args.OpenURL{URL: site.URL + "/helper-two"})).Target.ID
	bobWin, _ := h.openFixture(t, ctx, "bob")

	addr := h.ok(t, daemon.Request{Verb: "watch", Session: "alice"}).URL
	token := tokenOf(t, addr)
	base := strings.SplitN(addr, "/#", 2)[0]
	viewer := cdptest.LaunchViewer(t, ctx)
	page := openPage(t, ctx, viewer, addr)

	want := map[target.ID][2]string{ // context words, driver words
		win:     {"window", "the agent drives (alice)"},
		own:     {"own context", "the agent drives (alice)"},
		shopTab: {"profile shop", "the agent drives (alice)"},
		help1:   {"helper: check the prices", "the helper drives (check the prices)"},
		help2:   {"helper: Helper 2", "the helper drives (Helper 2)"},
	}
	ss := waitStrips(t, ctx, page, "alice's five tabs and bob's one, every thumbnail decoding", func(ss map[string]strip) string {
		a, b := ss["alice"], ss["bob"]
		if len(a.Tabs) != len(want) || len(b.Tabs) != 1 {
			return fmt.Sprintf("alice has %d tabs, bob %d", len(a.Tabs), len(b.Tabs))
		}
		for id, w := range want {
			tb, ok := a.tab(id)
			if !ok {
				return fmt.Sprintf("no tab %s in alice's strip", id)
			}
			if !strings.HasPrefix(tb.Context, w[0]) || tb.Driver != w[1] {
				return fmt.Sprintf("tab %s says %q / %q, want %q / %q", id, tb.Context, tb.Driver, w[0], w[1])
			}
		}
		for _, s := range []strip{a, b} {
			for _, tb := range s.Tabs {
				if tb.Decoded < 1 || tb.W == 0 {
					return fmt.Sprintf("the thumbnail of %s decoded %d frames (%dx%d)", tb.ID, tb.Decoded, tb.W, tb.H)
				}
			}
		}
		return ""
	})
	for _, s := range ss {
		for _, tb := range s.Tabs {
			if tb.W > 320 {
				t.Errorf("the thumbnail of %s is %dx%d: wider than the thumb tier's 320", tb.ID, tb.W, tb.H)
			}
		}
	}
	if tb, _ := ss["bob"].tab(bobWin); tb.Driver != "the agent drives (bob)" {
		t.Errorf("bob's window says %q", tb.Driver)
	}
	// Alice used both running browsers, the shared one and shop's: the
	// ceiling of 2 is reached and the count is red.
	if a := ss["alice"]; a.Count != "2/2 browsers (2 yours)" || !a.Full {
		t.Errorf("alice's count %q full=%v, want 2/2 red", a.Count, a.Full)
	}
	if b := ss["bob"]; b.Count != "2/2 browsers (0 yours)" || len(b.Idle) != 0 {
		t.Errorf("bob's count %q, idle %v", b.Count, b.Idle)
	}
	if a := ss["alice"]; len(a.Idle) != 0 {
		t.Errorf("alice's idle browsers %v while shop has a tab open", a.Idle)
	}
	// A browser with a tab open is not stopped.
	if a := postStop(t, base, token, "alice", shop); a["code"] != string(target.CodeBrowserInUse) {
		t.Errorf("stopping shop with a tab open answered %v", a)
	}
	h.ok(t, daemon.Request{Verb: "browser.snapshot", Session: "alice", Profile: shop, Target: string(shopTab)})
	if chromiumWithDir(filepath.Join(stateDir, "profiles", shop)) == 0 {
		t.Fatalf("shop's browser does not run after a refused stop")
	}

	// Watch alice's window; a new target then adds a tab to bob's strip
	// and the pane watched stays.
	if _, err := page.Eval(ctx, fmt.Sprintf("window.vibespace.open(%q) && true", string(win))); err != nil {
		t.Fatal(err)
	}
	watched := waitPane(t, ctx, page, win, "live", func(p paneState) bool { return p.State == "live" && p.Decoded > 0 })
	bobNew := h.ok(t, daemon.Request{Verb: "browser.open", Session: "bob"}.With(args.OpenURL{URL: site.URL + "/bob-page"})).Target.ID
	waitStrips(t, ctx, page, "bob's new tab", func(ss map[string]strip) string {
		if _, ok := ss["bob"].tab(bobNew); !ok {
			return "no tab " + string(bobNew)
		}
		if tb, _ := ss["alice"].tab(win); !tb.Watching {
			return "alice's window is not marked watched"
		}
		return ""
	})
	var watching []string
	if err := page.EvalInto(ctx, `window.vibespace.watching()`, &watching); err != nil || !slices.Equal(watching, []string{string(win)}) {
		t.Fatalf("after a new target the page watches %v (%v), want only %s", watching, err, win)
	}
	if p := pane(t, ctx, page, win); p.State != "live" || p.Viewer != watched.Viewer {
		t.Fatalf("after a new target the pane of %s is %s with viewer %s, was live with %s", win, p.State, p.Viewer, watched.Viewer)
	}

	// Take it over from the page: its tab says you drive.
	clickSelector(t, ctx, page, ".pane .takeover")
	waitStrips(t, ctx, page, "alice's window driven by you", func(ss map[string]strip) string {
		if tb, _ := ss["alice"].tab(win); tb.Driver != "you drive" {
			return "it says " + tb.Driver
		}
		return ""
	})
	clickSelector(t, ctx, page, ".pane .handback")

	// Close shop's tab: its browser is idle, the strip lists it, one click
	// stops it.
	h.ok(t, daemon.Request{Verb: "browser.tab", Session: "alice", Profile: shop, Target: string(shopTab)}.With(args.Tab{Action: "close"}))
	waitStrips(t, ctx, page, "shop listed idle in alice's strip", func(ss map[string]strip) string {
		if a := ss["alice"]; !slices.Equal(a.Idle, []string{shop}) {
			return fmt.Sprintf("alice's idle %v", a.Idle)
		}
		if b := ss["bob"]; len(b.Idle) != 0 {
			return fmt.Sprintf("bob's strip lists %v idle, which are not his", b.Idle)
		}
		return ""
	})
	clickSelector(t, ctx, page, fmt.Sprintf(`.strip[data-session="alice"] .idle li[data-profile=%q] .stop`, shop))
	waitFor(t, ctx, "shop's Chromium to exit", func() (bool, string) {
		pid := chromiumWithDir(filepath.Join(stateDir, "profiles", shop))
		return pid == 0, fmt.Sprintf("pid %d still runs", pid)
	})
	waitStrips(t, ctx, page, "alice's count back under the ceiling", func(ss map[string]strip) string {
		if a := ss["alice"]; a.Count != "1/2 browsers (1 yours)" || a.Full || len(a.Idle) != 0 || a.Error != "" {
			return fmt.Sprintf("alice's count %q full=%v idle %v error %q", a.Count, a.Full, a.Idle, a.Error)
		}
		return ""
	})
	// The stop is audited once the browser it stopped is gone, a moment
	// after the strip saw it go.
	var stops []map[string]any
	waitFor(t, ctx, "the audit's second stop", func() (bool, string) {
		stops = auditLines(t, stateDir, "stop")
		return len(stops) >= 2, fmt.Sprintf("%d stops audited", len(stops))
	})
	if len(stops) != 2 || stops[0]["ok"] != false || stops[0]["code"] != string(target.CodeBrowserInUse) ||
		stops[1]["ok"] != true || stops[1]["for"] != "alice" || !strings.Contains(fmt.Sprint(stops[1]["setting"]), shop) ||
		!strings.HasPrefix(fmt.Sprint(stops[1]["user"]), "viewer") {
		t.Errorf("the audit's stops: %v", stops)
	}

	// Pop out helper one: the button names the page that watches it alone,
	// and that page shows its pane and no strip.
	clickSelector(t, ctx, page, fmt.Sprintf(`.tab[data-id=%q] .popout`, string(help1)))
	var popURL string
	waitFor(t, ctx, "the pop-out's address", func() (bool, string) {
		_ = page.EvalInto(ctx, `window.vibespace.lastPopout || ''`, &popURL)
		return popURL != "", "none yet"
	})
	if !strings.Contains(popURL, "solo=1") || !strings.Contains(popURL, "target="+strings.ReplaceAll(string(help1), ":", "%3A")) {
		t.Fatalf("pop-out address %q", popURL)
	}
	solo := openPage(t, ctx, viewer, base+popURL)
	waitPane(t, ctx, solo, help1, "live in the popped-out page", func(p paneState) bool { return p.State == "live" && p.Decoded > 0 })
	var stripsShown bool
	if err := solo.EvalInto(ctx, `getComputedStyle(document.getElementById('strips-wrap')).display !== 'none'`, &stripsShown); err != nil || stripsShown {
		t.Errorf("the popped-out page shows the strips (%v)", err)
	}

	// Everything driven is still alive and answering.
	h.ok(t, daemon.Request{Verb: "snapshot", Session: "alice", Target: string(win)})
	h.ok(t, daemon.Request{Verb: "snapshot", Session: "bob", Target: string(bobWin)})
	h.ok(t, daemon.Request{Verb: "browser.snapshot", Session: "alice", Profile: c1, Target: string(help1)})
	h.ok(t, daemon.Request{Verb: "browser.snapshot", Session: "alice", Profile: c2, Target: string(help2)})
}
