package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// navSite is a local site of two pages (/a, /b) whose own scripts report
// to it: each showing of a page (its pageshow, a load or a restore from
// the back/forward cache), what an evaluated script sent, and the one
// request whose answer the test holds until it opens the gate — the only
// way the page's text "gate opened" can appear. Its log, not our tools,
// is the oracle.
type navSite struct {
	*httptest.Server
	mu      sync.Mutex
	log     []string // "shown a", "said 42", "gate asked", in order
	changed chan struct{}
	gate    chan struct{} // closed by the test: /gate answers
}

const navPage = `<!doctype html><title>Nav %[1]s</title>
<p id="said">page %[1]s</p>
<button id="go" onclick="fetch('/gate').then(r => r.text()).then(t => { document.getElementById('said').textContent = t })">Go</button>
<script>addEventListener('pageshow', () => fetch('/shown?p=%[1]s'))</script>`

func newNavSite(t *testing.T) *navSite {
	s := &navSite{changed: make(chan struct{}, 1), gate: make(chan struct{})}
	note := func(line string) {
		s.mu.Lock()
		s.log = append(s.log, line)
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a", "/b":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprintf(w, navPage, strings.ToUpper(r.URL.Path[1:]))
		case "/shown":
			note("shown " + r.URL.Query().Get("p"))
		case "/said":
			note("said " + r.URL.Query().Get("v"))
		case "/gate":
			note("gate asked")
			select {
			case <-s.gate:
				fmt.Fprint(w, "gate opened")
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(func() {
		select {
		case <-s.gate:
		default:
			close(s.gate) // no handler left waiting
		}
		s.Close()
	})
	return s
}

// count is how many lines of the site's log are line.
func (s *navSite) count(line string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.log {
		if l == line {
			n++
		}
	}
	return n
}

// await waits (bounded) until the site's log has line n times.
func (s *navSite) await(t *testing.T, line string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for s.count(line) < n {
		select {
		case <-s.changed:
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("the site's log has %q fewer than %d times: %q", line, n, s.log)
		}
	}
}

// TestPageToolsOverStdio: the command line's page verbs an agent uses —
// eval, back, forward, reload (browser_navigate), wait — are tools of the
// real server, against
// a real Chromium, with the command line's refusals. Each effect is read
// in the site's own log, written by the page's scripts.
func TestPageToolsOverStdio(t *testing.T) {
	e := newEnv(t)
	e.serve()
	cs := e.client("s1")
	site := newNavSite(t)

	ok(t, cs, "browser_open", map[string]any{"url": site.URL + "/a"})
	site.await(t, "shown A", 1)

	// eval: its value as JSON; a script that runs in the page (the site
	// hears from it); a throw is script_error; no expression, bad_request.
	if got := ok(t, cs, "browser_eval", map[string]any{"expr": "document.title"}); !strings.HasSuffix(got, "\"Nav A\"\n") {
		t.Fatalf("browser_eval document.title: %s", got)
	}
	if got := ok(t, cs, "browser_eval", map[string]any{"expr": "fetch('/said?v=' + 6 * 7), 6 * 7"}); !strings.HasSuffix("\n"+got, "\n42\n") {
		t.Fatalf("browser_eval answers the value of the expression: %s", got)
	}
	site.await(t, "said 42", 1)
	refused(t, cs, "script_error", "browser_eval", map[string]any{"expr": "(() => { throw new Error('boom') })()"})
	refused(t, cs, "bad_request", "browser_eval", map[string]any{"expr": " "})

	// wait: the page's text appears only once the test opens the gate; a
	// wait asked before is answered only after.
	ok(t, cs, "browser_eval", map[string]any{"expr": "document.getElementById('go').click(), true"})
	site.await(t, "gate asked", 1)
	type result struct {
		text  string
		isErr bool
	}
	done := make(chan result, 1)
	go func() {
		res := call(t, cs, "browser_wait", map[string]any{"text": "gate opened"})
		done <- result{text(res), res.IsError}
	}()
	select {
	case r := <-done:
		t.Fatalf("browser_wait answered before the text could be there: %+v", r)
	default:
	}
	close(site.gate)
	if r := <-done; r.isErr || !strings.Contains(r.text, "the page shows what was awaited") {
		t.Fatalf("browser_wait after the gate opened: %+v", r)
	}
	refused(t, cs, "bad_request", "browser_wait", map[string]any{"text": "x", "url": "y"})
	refused(t, cs, "bad_request", "browser_wait", map[string]any{})
	refused(t, cs, "script_error", "browser_wait", map[string]any{"selector": "[["})
	if res := refused(t, cs, "timeout", "browser_wait", map[string]any{"text": "never shown"}); !strings.Contains(text(res), "never shown") {
		t.Fatalf("a wait in vain names what it waited for: %s", text(res))
	}

	// back, forward, reload: each shows the page again (its pageshow),
	// and the answer says where the tab is now.
	ok(t, cs, "browser_open", map[string]any{"url": site.URL + "/b"})
	site.await(t, "shown B", 1)
	if got := ok(t, cs, "browser_navigate", map[string]any{"to": "back"}); !strings.Contains(got, "went back: "+site.URL+"/a (\"Nav A\")") {
		t.Fatalf("browser_navigate back: %s", got)
	}
	site.await(t, "shown A", 2)
	if got := ok(t, cs, "browser_navigate", map[string]any{"to": "forward"}); !strings.Contains(got, "went forward: "+site.URL+"/b (\"Nav B\")") {
		t.Fatalf("browser_navigate forward: %s", got)
	}
	site.await(t, "shown B", 2)
	if got := ok(t, cs, "browser_navigate", map[string]any{"to": "reload", "no_verify": true}); !strings.Contains(got, "reloaded: "+site.URL+"/b") {
		t.Fatalf("browser_navigate reload: %s", got)
	}
	site.await(t, "shown B", 3)
	refused(t, cs, "bad_request", "browser_navigate", map[string]any{"to": "up"})
	if res := refused(t, cs, "bad_request", "browser_navigate", map[string]any{"to": "forward"}); !strings.Contains(text(res), "no page to go forward") {
		t.Fatalf("browser_navigate forward at the end of the history: %s", text(res))
	}
	if n := site.count("shown B"); n != 3 {
		t.Fatalf("a refused forward showed a page: page B shown %d times, want 3", n)
	}
}
