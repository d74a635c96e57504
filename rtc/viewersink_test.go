package rtc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// pageReport is what a viewer page posts to /report of one of its peer
// connections: report (viewerPage) or codecReport (codecPage).
type pageReport interface {
	// key is the report's page/index.
	key() string
	// failure is the error the page met, or "".
	failure() string
}

func (r report) key() string          { return fmt.Sprintf("%s/%d", r.Page, r.Index) }
func (r report) failure() string      { return r.Error }
func (r codecReport) key() string     { return fmt.Sprintf("%s/%d", r.Page, r.Index) }
func (r codecReport) failure() string { return r.Error }

// reportSink keeps the last report of each page/index a viewer page posts.
type reportSink[R pageReport] struct {
	mu      sync.Mutex
	reports map[string]R // by page/index
	changed chan struct{}
}

func newReportSink[R pageReport]() *reportSink[R] {
	return &reportSink[R]{reports: map[string]R{}, changed: make(chan struct{}, 1)}
}

// ServeHTTP takes one report, POSTed as JSON.
func (s *reportSink[R]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rp R
	if err := json.NewDecoder(r.Body).Decode(&rp); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reports[rp.key()] = rp
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// wait waits until the report of page/index satisfies ok.
func (s *reportSink[R]) wait(ctx context.Context, page string, index int, ok func(R) bool) (R, error) {
	key := fmt.Sprintf("%s/%d", page, index)
	for {
		s.mu.Lock()
		rp, have := s.reports[key]
		s.mu.Unlock()
		if have && rp.failure() != "" {
			return rp, fmt.Errorf("viewer %s: %s", key, rp.failure())
		}
		if have && ok(rp) {
			return rp, nil
		}
		select {
		case <-ctx.Done():
			return rp, fmt.Errorf("viewer %s: last report %+v: %w", key, rp, ctx.Err())
		case <-s.changed:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// serveLoopback serves h on 127.0.0.1 until the test ends and returns its
// base URL.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}
