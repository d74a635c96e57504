package livebench

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/cdp/cdptest"
)

// assets are the pages the benchmark serves: the animated content (and a
// lighter one, light.html), the viewer, and the cells all of them use.
//
//go:embed testdata/cells.js testdata/content.html testdata/light.html testdata/viewer.html
var assets embed.FS

// blankPage loads only the cells, for the instrument's own test.
const blankPage = `<!doctype html><meta charset="utf-8"><title>cells</title><body style="margin:0;background:#fff"><script src="/cells.js"></script>`

// server serves the pages and whatever a benchmark row mounts, on
// 127.0.0.1.
type server struct {
	URL string
	mux *http.ServeMux
}

func newServer(tb testing.TB) *server {
	tb.Helper()
	sub, err := fs.Sub(assets, "testdata")
	if err != nil {
		tb.Fatal(err)
	}
	s := &server{mux: http.NewServeMux()}
	files := http.FileServerFS(sub)
	for _, p := range []string{"/cells.js", "/content.html", "/light.html", "/viewer.html"} {
		s.mux.Handle(p, noCache(files))
	}
	s.mux.HandleFunc("/blank.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(blankPage))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: s.mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = srv.Close()
	})
	s.URL = "http://" + ln.Addr().String()
	return s
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// viewerFlags are the headless viewer's flags (cdptest.ViewerFlags).
var viewerFlags = cdptest.ViewerFlags

// launchViewer starts the headless Chromium the viewer pages run in. It is
// closed (its process group killed and reaped) when tb ends.
func launchViewer(tb testing.TB, ctx context.Context) *cdp.Browser {
	tb.Helper()
	b, err := cdp.Launch(ctx, cdp.Options{Headless: true, UserDataDir: tb.TempDir(), ExtraFlags: viewerFlags, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatalf("viewer browser: %v", err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("viewer browser: %v", err)
		}
	})
	return b
}
