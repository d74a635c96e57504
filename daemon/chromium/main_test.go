package chromium

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// harness is one daemon with a real browser pool, served on a socket in a
// temporary state directory.
type harness struct {
	*daemontest.Served
	dir  string
	pool *Pool
	d    *daemon.Daemon
	sock string
}

// needChromium skips (or, with VIBESPACE_INTEGRATION=1, fails) without
// Chromium.
func needChromium(t testing.TB) {
	t.Helper()
	testenv.NeedIntegration(t, "chromium")
}

// startHarness runs a daemon on dir (a fresh one if "") with a pool of o.
func startHarness(t *testing.T, dir string, o Options, tune func(*daemon.Config)) *harness {
	t.Helper()
	needChromium(t)
	if dir == "" {
		dir = t.TempDir()
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 60 * time.Second
	}
	pool := New(o)
	t.Cleanup(func() { pool.Close() }) // after the daemon's own Close: cleanups run last first
	sock := filepath.Join(dir, "run", "w.sock")
	cfg := daemon.Config{StateDir: dir, SocketPath: sock, Displays: []kind.DisplayProvider{native.Xvfb(native.Options{})}, Browser: pool,
		VerbTimeout: 30 * time.Second}
	if tune != nil {
		tune(&cfg)
	}
	sv := daemontest.Start(t, cfg)
	return &harness{Served: sv, dir: dir, pool: pool, d: sv.D, sock: sock}
}

// close stops the daemon (and its browsers) for good.
func (h *harness) close() {
	h.Close()
	h.pool.Close()
}

// detach stops serving and leaves the browsers running with their pipes
// open: browsers that outlived their daemon and did not quit (hung).
func (h *harness) detach() { h.Detach() }

// die stops serving and does to the browsers what the kernel does when the
// daemon is killed with -9: the shared browser is killed (its launch asked
// for that at the parent's death), and every profile browser's pipe is
// closed without a word (the dead daemon's file descriptors).
func (h *harness) die(t *testing.T) {
	t.Helper()
	h.Detach()
	h.pool.mu.Lock()
	var drop []*cdp.Browser
	for _, br := range h.pool.browsers {
		if br.profile == "" {
			syscall.Kill(-br.b.PID(), syscall.SIGKILL)
		} else {
			drop = append(drop, br.b)
		}
	}
	h.pool.mu.Unlock()
	for _, b := range drop {
		b.Conn().Close()
	}
}

func (h *harness) call(t *testing.T, req daemon.Request) daemon.Response { return h.Call(t, req) }
func (h *harness) ok(t *testing.T, req daemon.Request) daemon.Response   { return h.OK(t, req) }

// useNewProfile makes a profile labelled label for session and makes it
// the session's choice; it returns the profile's id.
func (h *harness) useNewProfile(t *testing.T, session, label string) string {
	t.Helper()
	id := h.ok(t, daemon.Request{Verb: "browser.new", Session: session}.With(args.New{Label: label})).Profile.ID
	h.ok(t, daemon.Request{Verb: "browser.use", Session: session}.With(args.Use{Label: id}))
	return id
}

func wantCode(t *testing.T, resp daemon.Response, code target.Code) {
	t.Helper()
	if resp.OK || resp.Code != code {
		t.Fatalf("answer ok=%v code=%q message=%q facts=%v, want code %q", resp.OK, resp.Code, resp.Message, resp.Facts, code)
	}
}

// site serves the test pages on 127.0.0.1 and records what the pages
// report back to it (the oracle outside the browser).
type site struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func (s *site) hit(v string) {
	s.mu.Lock()
	s.hits = append(s.hits, v)
	s.mu.Unlock()
}

func (s *site) seen(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.hits {
		if h == v {
			return true
		}
	}
	return false
}

// waitSeen waits until the page reported v (bounded by ctx).
func (s *site) waitSeen(t *testing.T, v string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for !s.seen(v) {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			t.Fatalf("the page never reported %q (reports: %q)", v, s.hits)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { html(w, testPage) })
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		s.hit(r.URL.Query().Get("v"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "login", Value: r.URL.Query().Get("who"), Path: "/", Expires: time.Now().Add(24 * time.Hour)})
		html(w, `<!doctype html><title>Logged in</title><p>welcome</p>`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Echo</title><p id="c">cookies: `+r.Header.Get("Cookie")+`</p>`)
	})
	mux.HandleFunc("/typing", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>Typing</title><input id="t" aria-label="Long">`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

const testPage = `<!doctype html>
<html><head><title>Daemon test page</title></head>
<body>
<h1>Daemon test page</h1>
<label>Name <input id="name" type="text" onchange="fetch('/report?v=name:' + encodeURIComponent(this.value))"></label>
<button id="inc" onclick="fetch('/report?v=clicked')">Increment</button>
<button id="doomed">Remove me</button>
<input id="keys" aria-label="Keys" onkeydown="if (event.key === 'Enter') fetch('/report?v=enter:' + encodeURIComponent(this.value))">
<div style="height: 3000px"></div>
</body></html>`

// findRef is the ref of the first node of role and name in a snapshot's
// text ("push button \"Increment\" @e3 …").
func findRef(t *testing.T, text, role, name string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		prefix := role + " " + fmt.Sprintf("%q", name) + " "
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		for _, f := range strings.Fields(line[len(prefix):]) {
			if strings.HasPrefix(f, "@e") {
				return f
			}
		}
	}
	t.Fatalf("no %s %q with a ref in:\n%s", role, name, text)
	return ""
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
