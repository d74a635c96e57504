package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/testenv"
)

// The corpus: the pages the two snapshot roads (RoadPage, RoadAX) are held
// equal on (snapshot_roads_test.go). Real documentation from Debian
// packages, served from their installed html directories so their CSS and
// scripts load as a browser would load them; the bench page; a form and
// table page; frames, same-site and out of process, nested; shadow DOM.

// Documentation trees the corpus serves, each from the Debian package that
// installs it (the Makefile's DEB_PKGS lists both).
var corpusDocs = []struct {
	prefix, dir, pkg string
}{
	// python3-doc links its html to the versioned python3.X-doc's.
	{"/python/", "/usr/share/doc/python3/html", "python3-doc"},
	{"/valgrind/", "/usr/share/doc/valgrind/html", "valgrind"},
}

// corpusPage is one page of the corpus: where it is, what its snapshot
// must show before it is compared (its frames loaded, its scripts run),
// and how many nodes its full snapshot has at the least, so that a road
// that reads next to nothing cannot pass.
type corpusPage struct {
	name     string
	path     string   // on the corpus server
	ready    []string // substrings of the full snapshot's text
	minNodes int
	// oopif: the frames (substrings of their URLs) that must be out of
	// process, so that the roads are held equal across processes too.
	oopif []string
}

var corpusPages = []corpusPage{
	{name: "bench", path: "/bench", ready: []string{`push button "Act 39"`}, minNodes: 500},
	// The front page of the Python documentation: links and a table of
	// them, a search form, a theme <select>.
	{name: "python-index", path: "/python/index.html", ready: []string{`link "Library Reference"`}, minNodes: 100},
	// The library's contents: a long tree of nested lists of links.
	{name: "python-library", path: "/python/library/index.html", ready: []string{`link "Built-in Functions"`}, minNodes: 1000},
	// A reference page: tables, code blocks, definition lists, many links.
	{name: "python-stdtypes", path: "/python/library/stdtypes.html", ready: []string{`heading "Built-in Types"`}, minNodes: 3000},
	// The Valgrind manual's table of contents, and its Memcheck chapter
	// (tables, program listings, option lists).
	{name: "valgrind-manual", path: "/valgrind/manual.html", ready: []string{`Memcheck: a memory error detector"`}, minNodes: 100},
	{name: "valgrind-memcheck", path: "/valgrind/mc-manual.html", ready: []string{`heading "4.1.\u00a0Overview" h2`, `4.3.\u00a0Memcheck Command-Line Options`}, minNodes: 500},
	{name: "form", path: "/form", ready: []string{`push button "Settings"`, `table "Quarterly results"`}, minNodes: 150},
	// Both frames' trees, and the frame each holds, must be in.
	{name: "frames", path: "/frames", ready: []string{`push button "Press same"`, `push button "Press cross"`,
		`push button "Press same-cross"`, `push button "Press cross-same"`}, minNodes: 30,
		oopif: []string{"/frame?f=cross", "/frame?f=same-cross"}},
	{name: "shadow", path: "/shadow", ready: []string{`push button "Open inside"`, `push button "Closed inside"`, `push button "Increment"`}, minNodes: 20},
}

// needDocs stops t when a documentation tree of the corpus is not
// installed: a skip, or with VIBESPACE_INTEGRATION=1 a failure (CI installs
// DEB_PKGS, so there nothing may skip).
func needDocs(t *testing.T) {
	t.Helper()
	var miss []string
	for _, d := range corpusDocs {
		if _, err := os.Stat(d.dir); err != nil {
			miss = append(miss, fmt.Sprintf("%s (Debian package %s)", d.dir, d.pkg))
		}
	}
	if len(miss) == 0 {
		return
	}
	msg := "the corpus needs " + strings.Join(miss, ", ") + " (run `make deps`)"
	if os.Getenv(testenv.IntegrationEnv) == "1" {
		t.Fatalf("%s — %s=1, so this is a failure, not a skip", msg, testenv.IntegrationEnv)
	}
	t.Skipf("SKIP: %s", msg)
}

// corpusServer serves the corpus on 127.0.0.1; a frame of another site is
// asked of the same server as localhost (another site to Chromium, so it
// runs in a process of its own).
func corpusServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for _, d := range corpusDocs {
		mux.Handle(d.prefix, http.StripPrefix(d.prefix, http.FileServer(http.Dir(d.dir))))
	}
	var srv *httptest.Server
	html := func(f func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			f(w, r)
		}
	}
	bench := benchPage()
	mux.HandleFunc("/bench", html(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, bench) }))
	mux.HandleFunc("/form", html(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, corpusFormPage) }))
	mux.HandleFunc("/shadow", html(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, corpusShadowPage) }))
	mux.HandleFunc("/frames", html(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, corpusFramesPage, crossOrigin(srv))
	}))
	mux.HandleFunc("/frame", html(func(w http.ResponseWriter, r *http.Request) {
		f := r.URL.Query().Get("f")
		var inner string
		switch f {
		case "same": // a same-site frame holding a cross-site one
			inner = `<iframe title="Frame same-cross" src="` + crossOrigin(srv) + `/frame?f=same-cross" style="width:360px;height:90px"></iframe>`
		case "cross": // a cross-site frame holding one of its own site
			inner = `<iframe title="Frame cross-same" src="/frame?f=cross-same" style="width:360px;height:90px"></iframe>`
		}
		fmt.Fprintf(w, corpusFramePage, f, inner)
	}))
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// crossOrigin is srv's origin by the name localhost: the same server, to
// Chromium another site than 127.0.0.1.
func crossOrigin(srv *httptest.Server) string {
	return "http://localhost:" + srv.URL[strings.LastIndex(srv.URL, ":")+1:]
}

// corpusFormPage is a form and table page: every way a control gets its
// name (a label for it, a label around it, aria-label, aria-labelledby,
// title, a placeholder alone, a legend), its states (checked, unchecked,
// indeterminate, disabled, required, read-only, invalid, expanded,
// pressed), a data table and a layout table, a disclosure, headings,
// lists, an image, script-made controls, and content hidden each way.
const corpusFormPage = `<!doctype html>
<html lang="en"><head><title>Form and table corpus</title>
<style>
  .hidden-vis { visibility: hidden; }
  .icon { display: inline-block; width: 16px; height: 16px; background: #444; }
  table.data td, table.data th { border: 1px solid #999; padding: 2px 6px; }
</style></head>
<body>
<header><nav aria-label="Site"><ul><li><a href="#account">Account</a></li><li><a href="#results">Results</a></li><li><a href="#more">More</a></li></ul></nav></header>
<main>
<h1>Form and table corpus</h1>
<p>A page of <strong>forms</strong>, <em>tables</em> and widgets, with <a href="#help">a link in the text</a>.</p>

<form id="account" action="#" onsubmit="return false">
<h2>Account</h2>
<fieldset>
  <legend>Who you are</legend>
  <label for="first">First name</label> <input id="first" name="first" value="Ada" required>
  <label>Last name <input name="last" value="Lovelace"></label>
  <label for="email">Email</label> <input id="email" type="email" value="not-an-email" aria-invalid="true" aria-describedby="email-help">
  <span id="email-help">We never share your address.</span>
  <input type="search" placeholder="Search the site">
  <input type="text" aria-label="Promo code" readonly value="SPRING">
  <span id="phone-label">Phone</span> <input type="tel" aria-labelledby="phone-label" value="+44 20 7946 0000">
  <input type="text" title="Nickname, if any">
  <input type="password" aria-label="Password" required>
  <input type="number" aria-label="Age" value="36" min="0" max="130">
  <input type="text" aria-label="Disabled field" disabled value="fixed">
</fieldset>

<fieldset>
  <legend>Preferences</legend>
  <label for="country">Country</label>
  <select id="country"><option>France</option><option selected>United Kingdom</option><option disabled>Atlantis</option><optgroup label="Far"><option>New Zealand</option><option>Chile</option></optgroup></select>
  <label>Languages <select multiple size="3"><option selected>English</option><option>French</option><option selected>Italian</option></select></label>
  <div role="radiogroup" aria-labelledby="plan-label">
    <span id="plan-label">Plan</span>
    <label><input type="radio" name="plan" value="free"> Free</label>
    <label><input type="radio" name="plan" value="pro" checked> Pro</label>
    <label><input type="radio" name="plan" value="team" disabled> Team</label>
  </div>
  <label><input type="checkbox" checked> Newsletter</label>
  <label><input type="checkbox"> Offers</label>
  <label><input type="checkbox" id="partial"> Some of the above</label>
  <label><input type="checkbox" disabled checked> Terms accepted</label>
  <label for="bio">About you</label>
  <textarea id="bio" rows="3">I write programs
for an engine that does not exist yet.</textarea>
  <textarea aria-label="Empty notes" placeholder="Notes…"></textarea>
</fieldset>
<button type="submit">Save</button>
<button type="reset" disabled>Reset</button>
<button type="button" aria-label="Settings"><span class="icon"></span></button>
<input type="submit" value="Send it">
<input type="image" alt="Go" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
</form>

<h2 id="widgets">Widgets</h2>
<div onclick="window.hits = (window.hits || 0) + 1">Load more stories</div>
<div role="button" tabindex="0">Role button</div>
<button aria-expanded="false" aria-controls="menu">Menu</button>
<ul id="menu" hidden><li>Hidden item</li></ul>
<button aria-expanded="true" aria-controls="panel">Panel</button>
<div id="panel">The panel's content.</div>
<button aria-pressed="true">Bold</button>
<button aria-pressed="false">Italic</button>
<div role="checkbox" aria-checked="true" tabindex="0">Custom checked</div>
<div role="checkbox" aria-checked="mixed" tabindex="0">Custom mixed</div>
<div role="switch" aria-checked="false" tabindex="0" aria-label="Dark mode"></div>
<div role="tablist" aria-label="Views"><button role="tab" aria-selected="true">List</button><button role="tab" aria-selected="false">Grid</button></div>
<details><summary>Shipping details</summary><p>Ships within a week.</p></details>
<details open><summary>Returns</summary><p>Return within thirty days.</p></details>

<h2 id="results">Results</h2>
<table class="data">
  <caption>Quarterly results</caption>
  <thead><tr><th scope="col">Quarter</th><th scope="col">Revenue</th><th scope="col">Change</th></tr></thead>
  <tbody>
    <tr><th scope="row">Q1</th><td>1,200</td><td>+3%</td></tr>
    <tr><th scope="row">Q2</th><td>1,350</td><td>+12%</td></tr>
    <tr><th scope="row">Q3</th><td>990</td><td><a href="#why">−27%</a></td></tr>
  </tbody>
  <tfoot><tr><th scope="row">Total</th><td colspan="2">3,540</td></tr></tfoot>
</table>
<table role="presentation"><tr><td>Layout left</td><td>Layout right</td></tr></table>
<table><tr><td>Plain cell one</td><td>Plain cell two</td></tr><tr><td>Plain cell three</td><td>Plain cell four</td></tr></table>

<h3>Lists</h3>
<ul><li>Apples</li><li>Pears<ul><li>Conference</li><li>Comice</li></ul></li></ul>
<ol start="3"><li>Third</li><li>Fourth</li></ol>
<dl><dt>Term</dt><dd>Its definition.</dd></dl>
<h4 id="more">More</h4>
<img alt="A red square" src="data:image/gif;base64,R0lGODlhAQABAIAAAP8AAAAAACH5BAAAAAAALAAAAAABAAEAAAICRAEAOw==" width="20" height="20">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
<p id="help">Help text, <abbr title="HyperText Markup Language">HTML</abbr> and <code>code</code>.</p>
<div aria-hidden="true"><p>Invisible to assistive technology</p><button>Hidden button</button></div>
<div style="display:none"><p>Not displayed</p><button>Undisplayed button</button></div>
<div class="hidden-vis"><p>Not visible</p><button>Invisible button</button></div>
<p>Last paragraph.</p>
</main>
<footer><p>Footer text</p></footer>
<script>document.getElementById('partial').indeterminate = true</script>
</body></html>`

// corpusFramesPage holds a same-site frame and a cross-site one (%s: the
// other site's origin); each holds one frame more (corpusServer /frame).
const corpusFramesPage = `<!doctype html><title>Frames corpus</title>
<h1>Frames corpus</h1><button>Main button</button>
<iframe title="Frame same" src="/frame?f=same" style="width:420px;height:200px"></iframe>
<iframe title="Frame cross" src="%s/frame?f=cross" style="width:420px;height:200px"></iframe>
<p>After the frames</p>`

// corpusFramePage is a frame's page (%[1]s: which frame), with a frame of
// its own (%[2]s) or none.
const corpusFramePage = `<!doctype html><title>Frame %[1]s</title>
<h2>Frame %[1]s</h2>
<p>Text of frame %[1]s.</p>
<button>Press %[1]s</button>
<label>Field %[1]s <input value="%[1]s value"></label>
<label><input type="checkbox" checked> Check %[1]s</label>
%[2]s`

// corpusShadowPage has an open shadow root with slotted content and
// controls of its own, a custom element whose controls are in its shadow
// root, and a closed shadow root.
const corpusShadowPage = `<!doctype html><title>Shadow corpus</title>
<h1>Shadow corpus</h1>
<div id="open-host"><span slot="title">Slotted title</span><button slot="action">Slotted button</button><p>Default slot text</p></div>
<x-stepper label="Quantity" value="2"></x-stepper>
<div id="closed-host"><span>Light child of closed</span></div>
<p>After the shadows</p>
<script>
const open = document.getElementById('open-host').attachShadow({mode: 'open'});
open.innerHTML = '<section aria-label="Open card"><h2><slot name="title"></slot></h2>' +
  '<label>Inside field <input value="open"></label><button>Open inside</button>' +
  '<slot name="action"></slot><slot></slot><label><input type="checkbox" checked> Inside check</label></section>';
customElements.define('x-stepper', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<span id="l"></span> <button aria-label="Decrement">-</button>' +
      '<output aria-labelledby="l"></output><button aria-label="Increment">+</button>';
    root.getElementById('l').textContent = this.getAttribute('label');
    root.querySelector('output').textContent = this.getAttribute('value');
  }
});
const closed = document.getElementById('closed-host').attachShadow({mode: 'closed'});
closed.innerHTML = '<p>Closed text</p><button>Closed inside</button><slot></slot>';
</script>`
