package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/vibespace/vibespace/target"
)

// refSite serves a page with a same-origin and a cross-site frame (on
// 127.0.0.1, and as localhost: out of process) and records what its pages
// report to /hit?k=….
type refSite struct {
	*httptest.Server
	hits inbox[string]
}

const refClicksPage = `<!doctype html><title>Clickables</title>
<div data-k="onclick" onclick="report('onclick')">Load more</div>
<span id="l">Listener only</span>
<div style="cursor:pointer" data-k="pointer">Pointer target</div>
<div tabindex="0" data-k="tabindex">Focus me</div>
<p>
  text between
</p>
<label>Name <input value="Ada"></label>
<script>
function report(k) { fetch('/hit?k=' + k) }
document.getElementById('l').addEventListener('click', () => report('listener'));
document.addEventListener('click', e => { const t = e.target.closest('[data-k]'); if (t && t.dataset.k !== 'onclick') report(t.dataset.k) });
</script>`

const refInnerPage = `<!doctype html><title>Inner %[1]s</title>
<button onclick="fetch('/hit?k=%[1]s-click')">Button %[1]s</button>
<input aria-label="Field %[1]s" oninput="fetch('/hit?k=%[1]s-value-' + encodeURIComponent(this.value))">`

func newRefSite(t *testing.T) *refSite {
	return newFramesSite(t, "", refInnerPage, map[string]string{"/clicks": refClicksPage})
}

// newFramesSite serves /frames — main (HTML after the page's heading), then
// a same-origin frame and a cross-site one of inner, whose %[1]s is the
// frame's name (same, cross) — /inner, /hit, and pages by path.
func newFramesSite(t *testing.T, main, inner string, pages map[string]string) *refSite {
	t.Helper()
	s := &refSite{}
	mux := http.NewServeMux()
	for path, body := range pages {
		servePage(mux, path, body)
	}
	var port string // set before the server starts: the handler reads it
	mux.HandleFunc("GET /frames", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Frames</title><h1>Frames</h1>%s
<iframe src="/inner?f=same" title="Same frame"></iframe>
<iframe src="http://localhost:%s/inner?f=cross" title="Cross frame"></iframe>`, main, port)
	})
	mux.HandleFunc("GET /inner", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, inner, r.URL.Query().Get("f"))
	})
	mux.HandleFunc("GET /hit", func(w http.ResponseWriter, r *http.Request) { s.hits.Add(r.URL.Query().Get("k")) })
	s.Server = httptest.NewUnstartedServer(mux)
	addr := s.Listener.Addr().String()
	port = addr[strings.LastIndex(addr, ":")+1:]
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// framesShown takes -i snapshots of session s's tab until it shows every
// one of want (the frames' contents, which load after the page), and
// answers the last.
func (e *env) framesShown(s string, want ...string) string {
	e.T.Helper()
	ctx, cancel := waitCtx(e.T)
	defer cancel()
	for {
		text := e.OK(s, "snapshot", "-i")
		if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(text, w) }) {
			return text
		}
		select {
		case <-ctx.Done():
			e.T.Fatalf("the frames' contents never showed in -i:\n%s", text)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitHit waits for the page to report k.
func (s *refSite) waitHit(t *testing.T, k string) {
	t.Helper()
	s.hits.Wait(t, 0, fmt.Sprintf("%q", k), func(h string) bool { return h == k })
}

// Through vibespace-browser: elements only a script makes clickable have
// refs in -i and a click on each reaches the page; a same-origin and a
// cross-site (out-of-process) frame's button and field are clicked and
// filled by ref, as their pages report; no role prints as Chromium's
// CamelCase, no white-space text is a line with a ref, and -i prints a
// field's value once.
func TestPageRefs(t *testing.T) {
	e := sharedEnv(t)
	site := newRefSite(t)

	e.OK("p", "open", site.URL+"/clicks")
	text := e.OK("p", "snapshot", "-i")
	for name, k := range map[string]string{"Load more": "onclick", "Listener only": "listener", "Pointer target": "pointer", "Focus me": "tabindex"} {
		e.OK("p", "click", textRef(t, text, "section", name))
		site.waitHit(t, k)
	}
	if strings.Contains(text, `static "Ada"`) {
		t.Errorf("-i prints the field's value twice:\n%s", text)
	}
	checkTree(t, e.Snapshot("p"))

	e.OK("p", "open", site.URL+"/frames")
	text = e.framesShown("p", `"Button same"`, `"Button cross"`)
	for _, f := range []string{"same", "cross"} {
		e.OK("p", "click", textRef(t, text, "push button", "Button "+f))
		site.waitHit(t, f+"-click")
		e.OK("p", "fill", textRef(t, text, "entry", "Field "+f), "hi "+f)
		site.waitHit(t, f+"-value-hi "+f)
	}
	checkTree(t, e.Snapshot("p"))
}

// checkTree fails on a role in CamelCase and on a white-space text node.
func checkTree(t *testing.T, s *target.Snapshot) {
	t.Helper()
	s.Root.Walk(func(n *target.Node, _ int) bool {
		if strings.IndexFunc(n.Role, unicode.IsUpper) >= 0 {
			t.Errorf("role %q (node %q) is Chromium's, not mapped", n.Role, n.Name)
		}
		if n.Role == "static" && strings.TrimSpace(n.Name) == "" {
			t.Errorf("a white-space text line %q (ref %q)", n.Name, n.Ref)
		}
		return true
	})
}
