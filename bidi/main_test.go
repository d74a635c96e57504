package bidi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/testenv"
)

// One headless Firefox per test binary; tests that kill theirs launch
// their own.
var shared struct {
	once  sync.Once
	b     *bidi.Browser
	procs []int
	err   error
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childLaunch())
	}
	code := m.Run()
	if b := shared.b; b != nil {
		procs := descendants(b.PID())
		if err := b.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "bidi_test: closing the shared browser: %v\n", err)
			code = 1
		}
		if left := alive(append(procs, b.PID())); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "bidi_test: the shared browser left processes %v\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

func needFirefox(t testing.TB) {
	t.Helper()
	testenv.NeedIntegration(t, "firefox-esr")
}

func sharedBrowser(t testing.TB) *bidi.Browser {
	t.Helper()
	needFirefox(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared.b, shared.err = bidi.Launch(context.WithoutCancel(ctx), bidi.Options{Headless: true, StartTimeout: 2 * time.Minute})
	})
	if shared.err != nil {
		t.Fatalf("launch: %v", shared.err)
	}
	return shared.b
}

// site serves the tests' pages on the launcher's 127.0.0.1 and logs
// every request: the oracle of what the browser did (the page's own
// requests), read apart from the BiDi connection.
type site struct {
	*httptest.Server
	mu  sync.Mutex
	log []string // "METHOD path?query cookie=…"
	hit chan struct{}
}

func newSite(t *testing.T, pages map[string]string) *site {
	s := &site{hit: make(chan struct{}, 100)}
	s.Server = newSiteServer(s, pages)
	t.Cleanup(s.Close)
	return s
}

func newSiteServer(s *site, pages map[string]string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.Method+" "+r.URL.RequestURI()+" cookie="+r.Header.Get("Cookie"))
		s.mu.Unlock()
		select {
		case s.hit <- struct{}{}:
		default:
		}
		if body, ok := pages[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
}

// requests is the log so far.
func (s *site) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// waitFor waits, until ctx ends, for a request whose line starts with prefix.
func (s *site) waitFor(t *testing.T, ctx context.Context, prefix string) string {
	t.Helper()
	for {
		for _, l := range s.requests() {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		select {
		case <-s.hit:
		case <-ctx.Done():
			t.Fatalf("no request %q came: the site saw %q", prefix, s.requests())
			return ""
		}
	}
}

// descendants lists pid's descendant processes, from /proc.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, task := range tasks {
			data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, task.Name()))
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// alive is which of pids live (not zombies).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if f := strings.Fields(s[i+1:]); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			out = append(out, p)
		}
	}
	return out
}
