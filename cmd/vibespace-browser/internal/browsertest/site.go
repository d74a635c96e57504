package browsertest

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

// Report is what a page posts about itself: its own DOM, read by its own
// script — the oracle the tests check the CLI's answers against.
type Report struct {
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

// Visit is one request of /whoami: which tag asked, with which cookies.
type Visit struct{ tag, cookie string }

// Inbox collects what the test's pages send its server (each page's own
// reading of its DOM, the oracle the CLI's answers are checked against)
// and wakes whoever waits for an item. Its zero value is ready.
type Inbox[T any] struct {
	mu      sync.Mutex
	got     []T
	changed chan struct{} // closed and replaced on every add
}

// wake is the channel the next add closes; b.mu is held.
func (b *Inbox[T]) wake() chan struct{} {
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

func (b *Inbox[T]) Add(v T) {
	b.mu.Lock()
	b.got = append(b.got, v)
	close(b.wake())
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// N is how many items came so far: a later wait's from.
func (b *Inbox[T]) N() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.got)
}

// All is a copy of the items so far.
func (b *Inbox[T]) All() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.got)
}

// Count is how many items so far match.
func (b *Inbox[T]) Count(match func(T) bool) int {
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

// Wait waits (bounded) for the first item from index from that matches;
// a page that never sends it fails the test, naming what, with the last
// items it did send.
func (b *Inbox[T]) Wait(t testing.TB, from int, what string, match func(T) bool) T {
	t.Helper()
	ctx, cancel := WaitCtx(t)
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

// Posted is a handler that adds the JSON body posted to it.
func (b *Inbox[T]) Posted(w http.ResponseWriter, r *http.Request) {
	var v T
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&v); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	b.Add(v)
}

// ServePage answers GET path with the HTML body.
func ServePage(mux *http.ServeMux, path, body string) {
	mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, body)
	})
}

// Site serves the test pages on 127.0.0.1 and records what they report.
type Site struct {
	*httptest.Server
	reports Inbox[Report]
	visits  Inbox[Visit]
}

// NewSite serves the pages on 127.0.0.1 until the test ends.
func NewSite(t testing.TB) *Site {
	s := &Site{}
	mux := http.NewServeMux()
	ServePage(mux, "/form", formPage)
	ServePage(mux, "/list", listPage)
	ServePage(mux, "/long", longPage)
	ServePage(mux, "/big", bigPage())
	mux.HandleFunc("POST /report", s.reports.Posted)
	mux.HandleFunc("GET /set-cookie", func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query().Get("v")
		http.SetCookie(w, &http.Cookie{Name: "who", Value: v, Path: "/", MaxAge: 86400})
		fmt.Fprintf(w, "<!doctype html><title>cookie set</title><p>cookie who=%s set</p>", html.EscapeString(v))
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		s.visits.Add(Visit{r.URL.Query().Get("tag"), r.Header.Get("Cookie")})
		fmt.Fprintf(w, "<!doctype html><title>whoami</title><p>%s</p>", html.EscapeString(r.Header.Get("Cookie")))
	})
	s.Server = httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(s.Close)
	return s
}

// WaitReport waits for the first report from index from that matches.
func (s *Site) WaitReport(t testing.TB, from int, what string, match func(Report) bool) Report {
	t.Helper()
	return s.reports.Wait(t, from, what, match)
}

// NReports is how many reports came so far: a later wait's from.
func (s *Site) NReports() int { return s.reports.N() }

// VisitsTagged counts the visits of /whoami?tag=tag so far.
func (s *Site) VisitsTagged(tag string) int {
	return s.visits.Count(func(v Visit) bool { return v.tag == tag })
}

// CookieOf is the Cookie header /whoami?tag=tag was requested with.
func (s *Site) CookieOf(t testing.TB, tag string) string {
	t.Helper()
	return s.visits.Wait(t, 0, "a visit of /whoami?tag="+tag, func(v Visit) bool { return v.tag == tag }).cookie
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
