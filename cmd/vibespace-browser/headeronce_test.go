package main_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Two pages: a link on the first loads the second, whose own script
// reports the title it shows.
const (
	headerPageA = `<!doctype html><html><head><title>Page A</title></head><body>
<h1>Page A</h1><a href="/b">Go on</a></body></html>`
	headerPageB = `<!doctype html><html><head><title>Page B</title></head><body>
<h1>Page B</h1><p>You went on.</p>
<script>fetch('/report', {method: 'POST', body: JSON.stringify({event: 'shown', shown: document.title})})</script>
</body></html>`
)

// TestHeaderSaidOnce: the header line (tab, title, lease, profile) is on
// an answer when it says something the session's previous answer did not
// — the first answer, a new title after a click that navigated (the new
// title, as the page reports it, not the old one) — and left out when it
// is unchanged; a --json answer keeps the target's fields, and the text
// answer after it says its header again.
func TestHeaderSaidOnce(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	var reports inbox[signupReport]
	mux := http.NewServeMux()
	servePage(mux, "/a", headerPageA)
	servePage(mux, "/b", headerPageB)
	mux.HandleFunc("POST /report", reports.Posted)
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	header := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " · lease: ") {
				return l
			}
		}
		return ""
	}
	out := e.OK("s1", "open", site.URL+"/a")
	if h := header(out); !strings.HasPrefix(h, `tab:1 "Page A" · lease: yours · profile: own ephemeral`) {
		t.Fatalf("open's answer: want its header line first:\n%s", out)
	}
	snap := e.OK("s1", "snapshot", "-i")
	if h := header(snap); h != "" || !strings.HasPrefix(snap, "# ") {
		t.Fatalf("snapshot -i after the open: the header line again:\n%s", snap)
	}
	from := reports.N()
	out = e.OK("s1", "click", textRef(t, snap, "link", "Go on"))
	shown := reports.Wait(t, from, "page B shown", func(r signupReport) bool { return r.Event == "shown" }).Shown
	// The click's header names the title its effect's last look read: the
	// new page's, or none yet when that look came before the new document
	// had its title — never the old page's. When it named the new one, the
	// next answer leaves the line out; else the next says it with the
	// title the page shows.
	h := header(out)
	if !strings.HasPrefix(h, `tab:1 "`+shown+`" · lease: yours`) && !strings.HasPrefix(h, `tab:1 "" · lease: yours`) {
		t.Fatalf("a click that navigated: want the header with the new page's title (%q), never the old one:\n%s", shown, out)
	}
	got := e.OK("s1", "get", "title")
	if strings.HasPrefix(h, `tab:1 "`+shown+`"`) != (header(got) == "") || !strings.HasSuffix(got, shown+"\n") {
		t.Fatalf("get title after the click (whose header was %q): want %q, its header line said only if the click's lacked the title:\n%s", h, shown, got)
	}
	if h := header(got); h != "" && !strings.HasPrefix(h, `tab:1 "`+shown+`"`) {
		t.Fatalf("get title's header: %q", h)
	}
	if a := e.OKJSON("s1", "get", "title"); a.Target == nil || a.Target.Title != shown || a.Profile == nil || a.Said {
		t.Fatalf("--json keeps the target's fields: %+v", a)
	}
	if out := e.OK("s1", "get", "url"); !strings.HasPrefix(header(out), `tab:1 "`+shown+`"`) {
		t.Fatalf("the text answer after a --json one says its header:\n%s", out)
	}
}
