package reach

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFetchSignals: rung 1 on pages a test server serves, each its
// signals, by name; a page it serves has none.
func TestFetchSignals(t *testing.T) {
	pages := map[string]struct {
		status int
		ctype  string
		body   string
		want   string // the signals' names, in order
		text   string // a line the readable text holds
	}{
		"/article": {200, "text/html", `<title>News</title><nav><a href=/>Home</a></nav><article><h1>Rain</h1>
<p>It rained all day in the valley, and the river rose by a metre.</p><script>track()</script></article>`, "", "It rained all day in the valley"},
		"/plain":  {200, "text/plain; charset=utf-8", "just some words here, in plain text", "", "just some words"},
		"/app":    {200, "text/html", `<div id=root></div><noscript>You need to enable JavaScript</noscript><script src=a.js></script>`, "script_only", ""},
		"/blank":  {200, "text/html", `<html><body></body></html>`, "empty_content", ""},
		"/login":  {200, "text/html", `<title>Sign in</title><form><label>User <input name=u></label><label>Password <input type=password name=p></label><button>Sign in</button></form>`, "login_page", "Password"},
		"/authed": {401, "text/html", `<p>Authorization required.</p>`, "login_page", ""},
		"/turnstile": {403, "text/html", `<title>Just a moment</title><p>One more step before you go on.</p><div class="cf-turnstile" data-sitekey=x></div><script src=t.js></script>`,
			"bot_check", ""},
		"/chart": {200, "text/html", `<h2>Quarterly figures</h2><p>The chart below shows the year so far.</p><canvas id=c></canvas><script>draw()</script>`, "canvas", "Quarterly figures"},
		"/image": {200, "image/png", "\x89PNG\r\n", "not_text", ""},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.UserAgent() != UserAgent {
			t.Errorf("%s fetched as %q", r.URL.Path, r.UserAgent())
		}
		w.Header().Set("Content-Type", p.ctype)
		w.WriteHeader(p.status)
		fmt.Fprint(w, p.body)
	}))
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	for path, p := range pages {
		got, err := fetch(context.Background(), client, srv.URL+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if n := names(got.signals()); n != p.want {
			t.Errorf("%s: signals %q, want %q (%+v)", path, n, p.want, got.signals())
		}
		if !strings.Contains(got.text, p.text) {
			t.Errorf("%s: text %q lacks %q", path, got.text, p.text)
		}
		if strings.Contains(got.text, "track()") || strings.Contains(got.text, "enable JavaScript") {
			t.Errorf("%s: a script's or noscript's words in the readable text: %q", path, got.text)
		}
	}
}

// TestGoal: a goal is a click ("click <name>", "press <name>", any case)
// or words to find.
func TestGoal(t *testing.T) {
	for in, want := range map[string]goal{
		`click Upload`:       {click: "Upload"},
		`Press "Send now"`:   {click: "Send now"},
		`opening hours`:      {words: []string{"opening", "hours"}},
		`clicker game rules`: {words: []string{"clicker", "game", "rules"}},
	} {
		got := parseGoal(in)
		if got.click != want.click || strings.Join(got.words, " ") != strings.Join(want.words, " ") {
			t.Errorf("goal %q: %+v, want %+v", in, got, want)
		}
	}
}
