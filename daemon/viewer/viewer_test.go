package viewer

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestAssetsServedWithPolicy: every asset is served with the policy that
// forbids other origins, inline script and frames; anything else is 404.
func TestAssetsServedWithPolicy(t *testing.T) {
	h := Handler()
	for path, ctype := range map[string]string{"/": "text/html", "/app.js": "text/javascript", "/style.css": "text/css"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), ctype) {
			t.Errorf("%s: %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		csp := rec.Header().Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: policy %q allows unsafe sources", path, csp)
		}
	}
	for _, path := range []string{"/doc.go", "/../viewer_test.go", "/api/targets"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

// TestAssetsFetchNothingElsewhere: the page names no other origin, has no
// inline script or handler, and keeps its token out of what it stores.
func TestAssetsFetchNothingElsewhere(t *testing.T) {
	origin := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		s := string(b)
		if m := origin.FindString(s); m != "" {
			t.Errorf("%s names another origin: %q", name, m)
		}
		if strings.Contains(s, "localStorage") || strings.Contains(s, "document.cookie") {
			t.Errorf("%s stores something (the token must stay in the fragment)", name)
		}
		if strings.HasSuffix(name, ".html") {
			if regexp.MustCompile(`<script>|\son[a-z]+=`).MatchString(s) {
				t.Errorf("%s has inline script", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
