package firefox_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/testenv"
)

var shared struct {
	once sync.Once
	b    *bidi.Browser
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.b != nil {
		if err := shared.b.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "firefox_test: closing the browser: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func browser(t testing.TB) *bidi.Browser {
	t.Helper()
	testenv.NeedIntegration(t, "firefox-esr")
	shared.once.Do(func() {
		shared.b, shared.err = bidi.Launch(context.Background(), bidi.Options{Headless: true, StartTimeout: 2 * time.Minute})
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.b
}

// newTab opens a tab in a user context of the test's own.
func newTab(t testing.TB, ctx context.Context) *firefox.Tab {
	t.Helper()
	c := browser(t).Conn()
	uc, err := c.CreateUserContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c.RemoveUserContext(cctx, uc)
	})
	id, err := c.CreateTab(ctx, uc)
	if err != nil {
		t.Fatal(err)
	}
	return firefox.NewTab(c, id)
}

// site serves pages and logs every request: the oracle of what a page did.
type site struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
	hit chan struct{}
}

func newSite(t testing.TB, pages map[string]string) *site {
	s := &site{hit: make(chan struct{}, 100)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.Method+" "+r.URL.RequestURI())
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
	t.Cleanup(s.Close)
	return s
}

func (s *site) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *site) waitFor(t *testing.T, ctx context.Context, prefix string) {
	t.Helper()
	for {
		for _, l := range s.requests() {
			if strings.HasPrefix(l, prefix) {
				return
			}
		}
		select {
		case <-s.hit:
		case <-ctx.Done():
			t.Fatalf("no request %q came: the site saw %q", prefix, s.requests())
		}
	}
}
