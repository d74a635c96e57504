package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/vibespace/vibespace/testenv"
)

const firefoxPage = `<!doctype html><title>Fox page</title>
<label>Name <input id=name></label>
<button onclick="fetch('/clicked?name=' + encodeURIComponent(document.getElementById('name').value))">Send</button>`

// TestFirefoxProfile: vibespace-browser new work --browser firefox makes
// a profile whose tabs are Firefox's (the daemon the program runs, Firefox
// beside Chromium): open, snapshot, fill and click by ref go through the
// CLI, and the page's own click handler tells the test's site the name
// filled; eval reads Firefox's user agent in the tab.
func TestFirefoxProfile(t *testing.T) {
	testenv.NeedIntegration(t, "firefox-esr")
	e := newEnv(t)
	// A Firefox with a fresh profile takes 20-30 s to start on a loaded
	// machine, and open waits for it: more than the default verb bound.
	e.StartServe("--chromium", chromium, "--verb-timeout", "3m")
	var mu sync.Mutex
	var seen []string
	clicked := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		if r.URL.RequestURI() == "/clicked?name=Katherine%20Johnson" {
			close(clicked)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, firefoxPage)
	}))
	defer site.Close()

	prof := e.OKJSON("s1", "new", "work", "--browser", "firefox")
	if prof.Profile == nil || prof.Profile.Provider != "firefox" {
		t.Fatalf("new --browser firefox answered %+v", prof.Profile)
	}
	e.OKJSON("s1", "use", "work")
	e.OKJSON("s1", "open", site.URL+"/fox")
	snap := e.Snapshot("s1", "-i")
	e.OKJSON("s1", "fill", ref(t, snap, "entry", "Name"), "Katherine Johnson")
	e.OKJSON("s1", "click", ref(t, snap, "push button", "Send"))
	if ev := e.OKJSON("s1", "eval", "navigator.userAgent.includes('Firefox')"); string(ev.Value) != "true" {
		t.Errorf("eval in the tab: %s, want a Firefox", ev.Value)
	}
	select {
	case <-clicked:
	case <-t.Context().Done():
		mu.Lock()
		t.Fatalf("the click's report never came; the site saw %s", strings.Join(seen, " "))
	}
	if r := e.CLI("s1", "new", "x", "--browser", "opera"); r.Code == 0 {
		t.Errorf("--browser opera was taken: %s", r.Out)
	}
}
