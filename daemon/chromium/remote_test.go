package chromium

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// remotePage is served inside the browser's namespace: a click records
// itself in the page's own DOM (the title and an element) and tells the
// test's server there.
const remotePage = `<!doctype html>
<html><head><title>Remote page</title></head>
<body>
<h1>Somebody else's browser</h1>
<button id="go" onclick="this.dataset.clicks = (+(this.dataset.clicks||0)) + 1; document.title = 'clicked ' + this.dataset.clicks; fetch('/report?v=clicked')">Press me</button>
</body></html>`

// TestCDPProvider: a profile of provider cdp is a Chromium the test
// started itself in a network namespace of its own with only loopback,
// reached by the daemon through its endpoint alone (a forward of one port
// into that namespace). open, snapshot and click by ref work on it, the
// click verified in the page's own DOM over a connection of the test's and
// by the page's report to a server inside the namespace; a second session
// is refused the tab (not_your_tab); --headed and close are refused not_on_this_provider;
// and neither stopping the profile's browser nor stopping the daemon kills
// the browser or touches its directory: it still answers, and the test
// kills it itself.
func TestCDPProvider(t *testing.T) {
	testenv.NeedIntegration(t, "chromium", "unshare", "ip")
	tb := startTheirBrowser(t)
	before, err := tb.version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Our namespace does not reach it: its port here is nobody's, or
	// another browser's.
	if resp, err := (&http.Client{Timeout: 2 * time.Second}).Get(fmt.Sprintf("http://127.0.0.1:%d/json/version", devtoolsPort)); err == nil {
		var v map[string]string
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if browserID(v["webSocketDebuggerUrl"]) == browserID(before["webSocketDebuggerUrl"]) {
			t.Fatal("the test's browser is reachable from the daemon's namespace: the namespace is not its own")
		}
	}

	// The pages, served by the test inside the browser's namespace.
	var mu sync.Mutex
	var hits []string
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, remotePage)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.Query().Get("v"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	pageURL := tb.serve(t, mux) + "/page"

	endpoint := "http://" + tb.forward(t)
	h := startHarness(t, "", Options{}, nil)
	a := func(verb string) daemon.Request { return daemon.Request{Verb: verb, Session: "alice"} }

	nr := a("browser.new").With(args.New{Label: "theirs", Provider: "cdp", Endpoint: endpoint})
	created := h.ok(t, nr)
	id := created.Profile.ID
	if created.Profile.Provider != "cdp" || created.Profile.Endpoint != endpoint {
		t.Fatalf("new --provider cdp answered %+v", created.Profile)
	}
	if _, err := os.Lstat(filepath.Join(h.dir, profile.DirName, id)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a cdp profile has a directory of ours: %v", err)
	}
	use := a("browser.use").With(args.Use{Label: id})
	h.ok(t, use)

	headed := a("browser.open").With(args.OpenURL{URL: pageURL})
	headed.Headed = true
	if r := h.call(t, headed); r.Code != target.CodeNotOnThisProvider || r.Facts["provider"] != "cdp" {
		t.Fatalf("open --headed on a cdp profile: %+v", r)
	}
	if h.pool.Running(id) {
		t.Fatal("a refused verb connected to the browser")
	}

	opened := openRemotePage(t, h, "alice", pageURL)
	tab := opened.Target.ID
	h.pool.mu.Lock()
	br := h.pool.browsers[id]
	h.pool.mu.Unlock()
	if br == nil || br.b.PID() != 0 || br.dir != "" || br.provider != "cdp" {
		t.Fatalf("the pool's browser of the cdp profile: %+v", br)
	}
	if len(h.pool.Record()) != 0 {
		t.Fatalf("the pool records somebody else's browser for a later Reap: %s", h.pool.Record())
	}

	snap := a("browser.snapshot").With(args.Snapshot{Observe: args.Observe{Interactive: true}})
	s := h.ok(t, snap)
	ref := findRef(t, s.Text, "push button", "Press me")
	click := a("browser.click").With(args.Click{Ref: ref})
	h.ok(t, click)

	// The page's own DOM, over the test's own connection to the browser.
	oracle, err := cdp.Connect(t.Context(), wsThrough(t, tb, endpoint), cdp.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer oracle.Close()
	waitFor(t, "the click in the page's DOM", func() bool {
		return pageEval(t, oracle, "document.title + '|' + document.getElementById('go').dataset.clicks") == "clicked 1|1"
	})
	waitFor(t, "the page's report", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(hits) == 1 && hits[0] == "clicked"
	})

	// The lease: a second session on the same profile (the same remote
	// browser) is refused alice's tab, and it is left as it was.
	h.ok(t, daemon.Request{Verb: "browser.use", Session: "bob"}.With(args.Use{Label: id}))
	for _, action := range []string{"select", "close"} {
		r := h.call(t, daemon.Request{Verb: "browser.tab", Session: "bob", Target: string(tab)}.With(args.Tab{Action: action}))
		if r.Code != target.CodeNotYourTab {
			t.Fatalf("bob's tab %s of alice's tab: %+v", action, r)
		}
	}
	if got := pageEval(t, oracle, "document.title"); got != "clicked 1" {
		t.Fatalf("alice's tab after bob's attempts: %q", got)
	}
	closeReq := a("browser.close").With(args.Close{Label: id})
	wantCode(t, h.call(t, closeReq), target.CodeNotOnThisProvider)

	// Stopping the profile's browser (the live view's Stop) disconnects:
	// the browser lives, and our context's tab is gone from it.
	tabClose := a("browser.tab").With(args.Tab{Action: "close"})
	tabClose.Target = string(tab)
	h.ok(t, tabClose)
	if err := h.pool.Stop(t.Context(), id); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !tb.alive() {
		t.Fatal("stopping the cdp profile's browser killed it")
	}
	// Again, and then the daemon itself stops.
	openRemotePage(t, h, "alice", pageURL)
	h.close()
	if !tb.alive() {
		t.Fatal("stopping the daemon killed a browser it did not start")
	}
	after, err := tb.version(t.Context())
	if err != nil || after["webSocketDebuggerUrl"] != before["webSocketDebuggerUrl"] {
		t.Fatalf("after the daemon stopped, the browser answers %v, %v (before: %v)", after, err, before)
	}
	if pages := pageTargets(t, oracle); pages[pageURL] != 0 {
		t.Fatalf("the daemon left its tabs in somebody else's browser: %v", pages)
	}
	if _, err := os.Stat(filepath.Join(tb.dir, "Default")); err != nil {
		t.Fatalf("the browser's own directory: %v", err)
	}
	tb.kill()
	if tb.alive() {
		t.Fatal("the test could not kill its own browser")
	}
}

// openRemotePage opens url, serving remotePage, in session's profile and
// answers the daemon's answer.
func openRemotePage(t *testing.T, h *harness, session, url string) daemon.Response {
	t.Helper()
	opened := h.ok(t, daemon.Request{Verb: "browser.open", Session: session}.With(args.OpenURL{URL: url}))
	if opened.Target == nil || opened.Target.Title != "Remote page" {
		t.Fatalf("open answered %+v", opened.Target)
	}
	return opened
}

// wsThrough is the browser-level WebSocket of the browser, through the
// forward (its /json/version asked through endpoint names the forward).
func wsThrough(t *testing.T, tb *theirBrowser, endpoint string) string {
	t.Helper()
	ws, err := cdp.ResolveEndpoint(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ws, tb.fwd.Addr().String()) {
		t.Fatalf("/json/version through the forward names %s", ws)
	}
	return ws
}

// pageEval evaluates expr in the first page of the browser showing the
// remote page, over the oracle's own connection ("" while there is none).
func pageEval(t *testing.T, b *cdp.Browser, expr string) string {
	t.Helper()
	got, err := cdptest.Eval(t.Context(), b, func(p cdptest.Page) bool { return strings.HasSuffix(p.URL, "/page") }, expr)
	if errors.Is(err, cdptest.ErrNoPage) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// pageTargets counts the browser's pages by URL.
func pageTargets(t *testing.T, b *cdp.Browser) map[string]int {
	t.Helper()
	pages, err := cdptest.Pages(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, p := range pages {
		out[p.URL]++
	}
	return out
}

// browserID is the last path element of a browser's WebSocket URL.
func browserID(ws string) string {
	if i := strings.LastIndexByte(ws, '/'); i >= 0 && ws != "" {
		return ws[i+1:]
	}
	return "none:" + ws
}
