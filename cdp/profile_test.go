package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cdp"
)

// A persistent cookie set in the default context of a browser with a
// user-data dir is there again after the browser restarts on that dir (the
// base of profiles), while a NewContext context starts empty.
func TestDefaultContextPersists(t *testing.T) {
	t.Parallel()
	needChromium(t)
	dir := t.TempDir()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret", Path: "/", MaxAge: 3600})
		}
		fmt.Fprintf(w, "cookies: %s", r.Header.Get("Cookie"))
	}))
	defer srv.Close()

	run := func(path string, check func(got string)) {
		t.Helper()
		ctx := ctxT(t)
		b, err := cdp.Launch(ctx, cdp.Options{Headless: true, UserDataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := b.Close(); err != nil {
				t.Error(err)
			}
		}()
		c, err := b.DefaultContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := c.NewTab(ctx, srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		check(text(t, tab))
		if path == "/echo" {
			other, err := b.NewContext(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ot, err := other.NewTab(ctx, srv.URL+"/echo")
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, ot); strings.Contains(got, "s3cret") {
				t.Errorf("a fresh context has the profile's cookie: %q", got)
			}
		}
	}
	run("/login", func(string) {})
	run("/echo", func(got string) {
		if !strings.Contains(got, "session=s3cret") {
			t.Fatalf("after a restart the profile sends %q", got)
		}
	})
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("Close removed the caller's user-data dir: %v", err)
	}
}
