package main_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// report is what a page posts about itself: its own DOM, read by its own
// script — the oracle the tests check the CLI's answers against.
type report struct {
	Event string `json:"event"`
	Name  string `json:"name"`
	Agree bool   `json:"agree"`
	Saves int    `json:"saves"`
	Value string `json:"value"`
	Title string `json:"title"`
	URL   string `json:"url"`
	Text  string `json:"text"`
	Items int    `json:"items"`
}

// visit is one request of /whoami: which tag asked, with which cookies.
type visit struct{ tag, cookie string }

// inbox collects what the test's pages send its server (each page's own
// reading of its DOM, the oracle the CLI's answers are checked against)
// and wakes whoever waits for an item. Its zero value is ready.
type inbox[T any] struct {
	mu      sync.Mutex
	got     []T
	changed chan struct{} // closed and replaced on every add
}

// wake is the channel the next add closes; b.mu is held.
func (b *inbox[T]) wake() chan struct{} {
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

func (b *inbox[T]) add(v T) {
	b.mu.Lock()
	b.got = append(b.got, v)
	close(b.wake())
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// n is how many items came so far: a later wait's from.
func (b *inbox[T]) n() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.got)
}

// all is a copy of the items so far.
func (b *inbox[T]) all() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.got)
}

// count is how many items so far match.
func (b *inbox[T]) count(match func(T) bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, v := range b.got {
		if match(v) {
			n++
		}
	}
	return n
}

// wait waits (bounded) for the first item from index from that matches;
// a page that never sends it fails the test, naming what, with the last
// items it did send.
func (b *inbox[T]) wait(t testing.TB, from int, what string, match func(T) bool) T {
	t.Helper()
	ctx, cancel := waitCtx(t)
	defer cancel()
	for {
		b.mu.Lock()
		since := b.got[min(from, len(b.got)):]
		for _, v := range since {
			if match(v) {
				b.mu.Unlock()
				return v
			}
		}
		ch := b.wake()
		last := fmt.Sprintf("%+v", since[max(0, len(since)-10):])
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("the page did not report %s (its last reports: %s): %v", what, last, ctx.Err())
		}
	}
}

// posted is a handler that adds the JSON body posted to it.
func (b *inbox[T]) posted(w http.ResponseWriter, r *http.Request) {
	var v T
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&v); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	b.add(v)
}

// servePage answers GET path with the HTML body.
func servePage(mux *http.ServeMux, path, body string) {
	mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	})
}

// site serves the test pages on 127.0.0.1 and records what they report.
type site struct {
	*httptest.Server
	reports inbox[report]
	visits  inbox[visit]
}

func newSite(t testing.TB) *site {
	s := &site{}
	mux := http.NewServeMux()
	servePage(mux, "/form", formPage)
	servePage(mux, "/list", listPage)
	servePage(mux, "/long", longPage)
	servePage(mux, "/big", bigPage())
	mux.HandleFunc("POST /report", s.reports.posted)
	mux.HandleFunc("GET /set-cookie", func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query().Get("v")
		http.SetCookie(w, &http.Cookie{Name: "who", Value: v, Path: "/", MaxAge: 86400})
		fmt.Fprintf(w, "<!doctype html><title>cookie set</title><p>cookie who=%s set</p>", html.EscapeString(v))
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		s.visits.add(visit{r.URL.Query().Get("tag"), r.Header.Get("Cookie")})
		fmt.Fprintf(w, "<!doctype html><title>whoami</title><p>%s</p>", html.EscapeString(r.Header.Get("Cookie")))
	})
	s.Server = httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(s.Close)
	return s
}

// waitReport waits for the first report from index from that matches.
func (s *site) waitReport(t testing.TB, from int, what string, match func(report) bool) report {
	t.Helper()
	return s.reports.wait(t, from, what, match)
}

func (s *site) nreports() int { return s.reports.n() }

// visitsTagged counts the visits of /whoami?tag=tag so far.
func (s *site) visitsTagged(tag string) int {
	return s.visits.count(func(v visit) bool { return v.tag == tag })
}

// cookieOf is the Cookie header /whoami?tag=tag was requested with.
func (s *site) cookieOf(t testing.TB, tag string) string {
	t.Helper()
	return s.visits.wait(t, 0, "a visit of /whoami?tag="+tag, func(v visit) bool { return v.tag == tag }).cookie
}

// reportJS posts the page's own view of itself to the test.
const reportJS = `
function report(event, extra) {
  const body = Object.assign({event, title: document.title, url: location.href,
    text: document.body.innerText}, extra || {});
  fetch('/report', {method: 'POST', body: JSON.stringify(body)});
}`

const formPage = `<!doctype html>
<html><head><title>Sign up</title></head><body>
<h1>Sign up</h1>
<label for="name">Name</label> <input id="name">
<label><input id="agree" type="checkbox"> I agree</label>
<button id="save">Save</button>
<p id="status">Not saved</p>
<script>` + reportJS + `
let saves = 0;
document.getElementById('save').addEventListener('click', () => {
  saves++;
  const n = document.getElementById('name').value;
  document.getElementById('status').textContent = 'Saved: ' + n;
  document.title = 'Saved ' + n;
  report('save', {name: n, agree: document.getElementById('agree').checked, saves});
});
</script></body></html>`

const listPage = `<!doctype html>
<html><head><title>List</title></head><body>
<h1>Items</h1>
<ul id="items">
<li id="i1">Apple <button onclick="removeItem(1)">Remove 1</button></li>
<li id="i2">Banana <button onclick="removeItem(2)">Remove 2</button></li>
<li id="i3">Cherry <button onclick="removeItem(3)">Remove 3</button></li>
</ul>
<script>` + reportJS + `
function removeItem(n) {
  document.getElementById('i' + n).remove();
  report('removed', {items: document.querySelectorAll('#items li').length});
}
</script></body></html>`

// longPage slows each keystroke a little (busy work in the input
// handler), so a long type is still in flight when the takeover lands.
const longPage = `<!doctype html>
<html><head><title>Long</title></head><body>
<label for="notes">Notes</label> <textarea id="notes" rows="8" cols="60"></textarea>
<button id="send">Send</button>
<script>` + reportJS + `
const notes = document.getElementById('notes');
let started = false;
notes.addEventListener('input', () => {
  const until = performance.now() + 4;
  while (performance.now() < until) {}
  if (!started) { started = true; report('typing', {value: notes.value}); }
});
document.getElementById('send').addEventListener('click', () => report('send', {value: notes.value}));
</script></body></html>`

// bigPage is the benchmark's page, of the size the measured agent-browser
// figures were taken on (notes/browser.md: its full snapshot ~630 lines,
// 34 refs), mixed as a real form-heavy page is.
func bigPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Bench page</title></head><body>
<h1>Bench page</h1><nav><a href="#a">Alpha</a> <a href="#b">Beta</a> <a href="#c">Gamma</a></nav>
<form onsubmit="return false">
<label for="name">Name</label> <input id="name">
<label for="email">Email</label> <input id="email" type="email">
<label><input type="checkbox" id="agree"> I agree</label>
<label for="size">Size</label> <select id="size"><option>Small</option><option>Large</option></select>
<button id="inc" onclick="document.getElementById('count').textContent = +document.getElementById('count').textContent + 1">Increment</button>
<span id="count">0</span>
</form>`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, `<section><h2>Section %d</h2>`, i)
		for j := 1; j <= 5; j++ {
			fmt.Fprintf(&b, `<p>Paragraph %d.%d with <em>some</em> text and <strong>more</strong> words to read.</p>`, i, j)
		}
		fmt.Fprintf(&b, `<ul><li>Item %d.1</li><li>Item %d.2</li><li>Item %d.3</li></ul>`, i, i, i)
		if i <= 10 {
			fmt.Fprintf(&b, `<button>Action %d</button>`, i)
		}
		if i <= 3 {
			fmt.Fprintf(&b, `<a href="#s%d">Link %d</a>`, i, i)
		}
		b.WriteString(`</section>`)
	}
	b.WriteString(`</body></html>`)
	return b.String()
}
