package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// clickPage has elements only a script makes clickable: an onclick
// attribute, a listener added by addEventListener, cursor: pointer with a
// delegating listener on the document, a tabindex; and a container whose
// listener delegates to a button inside it. Every click is recorded in
// window.hits by the element's data-k.
const clickPage = `<!doctype html><title>Clickables</title>
<div data-k="onclick" onclick="void 0">Load more</div>
<span data-k="listener" id="l">Listener only</span>
<div data-k="pointer" style="cursor:pointer"><span>Pointer target</span></div>
<div data-k="tabindex" tabindex="0">Focus me</div>
<div id="deleg"><button data-k="inside">Inside</button> around</div>
<script>
window.hits = [];
document.addEventListener('click', e => { const t = e.target.closest('[data-k]'); if (t) hits.push(t.dataset.k) });
document.getElementById('l').addEventListener('click', () => {});
document.getElementById('deleg').addEventListener('click', () => {});
</script>`

// framePage is a page with a frame of its own origin and one of another
// site (localhost against 127.0.0.1: Chromium runs it in a process of its
// own); each frame holds a button and a field that report to the server.
func framePage(crossOrigin string) string {
	return `<!doctype html><title>Frames</title><h1>Frames</h1>
<iframe src="/inner?f=same" title="Same frame" style="width:400px;height:120px"></iframe>
<iframe src="` + crossOrigin + `/inner?f=cross" title="Cross frame" style="width:400px;height:120px"></iframe>`
}

const innerPage = `<!doctype html><title>Inner %[1]s</title>
<button onclick="fetch('/hit?f=%[1]s&what=click')">Button %[1]s</button>
<input aria-label="Field %[1]s" oninput="fetch('/hit?f=%[1]s&what=value&v=' + encodeURIComponent(this.value))">`

// rolesPage has a bit of many HTML elements whose Chromium roles are not
// ARIA's: layout tables, a colour well, date and time fields, a details
// disclosure, a figure, a description list, a meter, SVG, ruby, a pre.
const rolesPage = `<!doctype html><title>Roles</title>
<table><tr><td>layout cell</td><td>two</td></tr><tr><td>three</td><td>four</td></tr></table>
<div style="display:table"><div style="display:table-row"><div style="display:table-cell">css cell</div></div></div>
<input type="color" aria-label="Colour"><input type="date" aria-label="Day"><input type="time" aria-label="Hour">
<input type="datetime-local" aria-label="When"><input type="month" aria-label="Month"><input type="week" aria-label="Week">
<input type="file" aria-label="File"><input type="range" aria-label="Level"><input type="search" aria-label="Find">
<details><summary>More</summary>hidden text</details>
<figure><img alt="pic" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><figcaption>Caption</figcaption></figure>
<dl><dt>Term</dt><dd>Definition</dd></dl><meter value="0.5" aria-label="Meter">half</meter>
<svg width="10" height="10" aria-label="Drawing"><circle cx="5" cy="5" r="4"/></svg>
<ruby>漢<rt>kan</rt></ruby><pre>pre text</pre><code>code</code><kbd>kbd</kbd><abbr title="abbr">AB</abbr>
<header>Top</header><footer>Bottom</footer><main><article><section aria-label="Part"><h2>Part</h2></section></article></main>
<nav>Nav</nav><aside>Aside</aside><address>Address</address><blockquote>Quote</blockquote><hr>
<audio controls aria-label="Sound"></audio><video controls aria-label="Film"></video><canvas aria-label="Canvas"></canvas>
<select multiple aria-label="Many"><option>a</option><option>b</option></select><output>out</output>
<progress aria-label="Busy"></progress><fieldset><legend>Legend</legend><input aria-label="In set"></fieldset>
<math><mfrac><mi>x</mi><mn>2</mn></mfrac></math><mark>marked</mark><del>gone</del><ins>new</ins><time>noon</time>
<dialog open>Dialog</dialog><menu><li>menu item</li></menu><sub>sub</sub><sup>sup</sup><q>quoted</q>`

// pageServer serves the pages of these tests on 127.0.0.1, and records the
// frames' reports (/hit).
type pageServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits []url.Values
}

func newPageServer(t *testing.T) *pageServer {
	t.Helper()
	ps := &pageServer{}
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/clicks":
			fmt.Fprint(w, clickPage)
		case "/roles":
			fmt.Fprint(w, rolesPage)
		case "/frames":
			fmt.Fprint(w, framePage("http://localhost:"+ps.port()))
		case "/inner":
			fmt.Fprintf(w, innerPage, r.URL.Query().Get("f"))
		case "/value":
			fmt.Fprint(w, `<!doctype html><title>Value</title><label>Name <input value="Ada"></label><textarea aria-label="Notes">one two</textarea>`)
		case "/hit":
			ps.mu.Lock()
			ps.hits = append(ps.hits, r.URL.Query())
			ps.mu.Unlock()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ps.Close)
	return ps
}

func (ps *pageServer) port() string { return ps.URL[strings.LastIndex(ps.URL, ":")+1:] }

// waitHit waits (bounded by the test's context) for a report of frame f
// matching what and, when v is set, that value.
func (ps *pageServer) waitHit(t *testing.T, f, what, v string) {
	t.Helper()
	ctx := ctxT(t)
	for {
		ps.mu.Lock()
		for _, h := range ps.hits {
			if h.Get("f") == f && h.Get("what") == what && (v == "" || h.Get("v") == v) {
				ps.mu.Unlock()
				return
			}
		}
		got := fmt.Sprint(ps.hits)
		ps.mu.Unlock()
		select {
		case <-ctx.Done():
			t.Fatalf("frame %s never reported %s %q; reports: %s", f, what, v, got)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func openAt(t *testing.T, c *cdp.Context, u string) *cdp.Tab {
	t.Helper()
	tab, err := c.NewTab(ctxT(t), u)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// Elements a script made clickable get a ref and the click action, show in
// the interactive view named by their text, and a click on the ref reaches
// them (the page's own record, read by eval, says so). A container whose
// listener only delegates to the button inside it is no control.
func TestSnapshotScriptClickable(t *testing.T) {
	t.Parallel()
	ps := newPageServer(t)
	tab := openAt(t, newContext(t), ps.URL+"/clicks")
	s := snapshot(t, tab, true)
	t.Logf("-i:\n%s", s.Text())
	want := map[string]string{"Load more": "onclick", "Listener only": "listener", "Pointer target": "pointer", "Focus me": "tabindex"}
	ctx := ctxT(t)
	for name, k := range want {
		n := s.Root.Find(func(n *target.Node) bool { return n.Name == name })
		if n == nil || n.Ref == "" || !n.Actionable() {
			t.Errorf("%q (%s) is not actionable with a ref in -i:\n%s", name, k, s.Text())
			continue
		}
		if err := tab.Click(ctx, nr(tab, n.Ref)); err != nil {
			t.Errorf("click %s (%q): %v", n.Ref, name, err)
			continue
		}
		var hits []string
		if err := tab.EvalInto(ctx, "window.hits", &hits); err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[len(hits)-1] != k {
			t.Errorf("clicking %s (%q) reached %v, want %s last", n.Ref, name, hits, k)
		}
	}
	full := snapshot(t, tab, false)
	full.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Actionable() && strings.Contains(n.Name, "around") {
			t.Errorf("the delegating container is a control: %s %q", n.Role, n.Name)
		}
		if n.Role == "static" && n.Name == "Pointer target" {
			t.Errorf("the pointer's text is a line of its own beside its name:\n%s", full.Text())
		}
		return true
	})
}

// The trees of a same-origin frame and of an out-of-process frame (a
// target of type iframe) hang under their iframe nodes, and click and fill
// by ref inside each reach that frame's page (its reports to the server).
func TestSnapshotFrames(t *testing.T) {
	t.Parallel()
	ps := newPageServer(t)
	tab := openAt(t, newContext(t), ps.URL+"/frames")
	ctx := ctxT(t)
	// Both frames loaded (their buttons are in the tree) before the tree
	// is read: a frame still loading has no tree yet.
	var s *target.Snapshot
	for {
		s = snapshot(t, tab, false)
		if strings.Contains(s.Text(), "Button same") && strings.Contains(s.Text(), "Button cross") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the frames' contents never showed:\n%s", s.Text())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Logf("snapshot:\n%s", s.Text())
	var targets struct {
		TargetInfos []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"targetInfos"`
	}
	var raw jsonv2.Value
	if err := tab.BrowserCall(ctx, "Target.getTargets", nil, &raw); err != nil {
		t.Fatal(err)
	}
	if err := jsonv2.Unmarshal(raw, &targets); err != nil {
		t.Fatal(err)
	}
	oopif := false
	for _, ti := range targets.TargetInfos {
		oopif = oopif || (ti.Type == "iframe" && strings.Contains(ti.URL, "localhost:"+ps.port()+"/inner"))
	}
	if !oopif {
		t.Fatalf("the cross-site frame is not out of process: %+v", targets.TargetInfos)
	}
	for _, f := range []string{"same", "cross"} {
		frame := find(t, s, "internal frame", map[string]string{"same": "Same frame", "cross": "Cross frame"}[f])
		button := frame.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Button "+f })
		field := frame.Find(func(n *target.Node) bool { return n.Role == "entry" && n.Name == "Field "+f })
		if button == nil || field == nil || button.Ref == "" || field.Ref == "" {
			t.Fatalf("frame %s: no button and field with refs under its iframe:\n%s", f, s.Text())
		}
		if !strings.Contains(button.Key, "@") {
			t.Errorf("frame %s: the button's key %q names no frame", f, button.Key)
		}
		if err := tab.Click(ctx, nr(tab, button.Ref)); err != nil {
			t.Fatalf("frame %s: click %s: %v", f, button.Ref, err)
		}
		ps.waitHit(t, f, "click", "")
		if err := tab.Fill(ctx, nr(tab, field.Ref), "hello "+f); err != nil {
			t.Fatalf("frame %s: fill %s: %v", f, field.Ref, err)
		}
		ps.waitHit(t, f, "value", "hello "+f)
	}
	// The interactive view keeps what is inside the frames.
	i := snapshot(t, tab, true).Text()
	for _, want := range []string{`push button "Button same"`, `entry "Field cross"`} {
		if !strings.Contains(i, want) {
			t.Errorf("no %s in -i:\n%s", want, i)
		}
	}
	// A frame removed from the page takes its refs with it: stale_ref,
	// and the tab goes on.
	for _, f := range []string{"Same", "Cross"} {
		button := find(t, s, "push button", "Button "+strings.ToLower(f))
		if _, err := tab.Eval(ctx, `document.querySelector('iframe[title="`+f+` frame"]').remove()`); err != nil {
			t.Fatal(err)
		}
		err := tab.Click(ctx, nr(tab, button.Ref))
		if code := target.CodeOf(err); code != target.CodeStaleRef {
			t.Errorf("click %s in the removed %s frame: %v (code %q), want stale_ref", button.Ref, f, err, code)
		}
		if _, err := tab.Title(ctx); err != nil {
			t.Fatalf("the tab after its frame went: %v", err)
		}
	}
}

// corpus opens every page these tests use and returns its snapshots, full
// and interactive.
func corpus(t *testing.T) map[string][2]*target.Snapshot {
	t.Helper()
	ps := newPageServer(t)
	c := newContext(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, map[string]string{"/widgets": widgetPage, "/bench": benchPage(), "/page": testPage}[r.URL.Path])
	}))
	t.Cleanup(other.Close)
	urls := []string{ps.URL + "/clicks", ps.URL + "/roles", ps.URL + "/frames", ps.URL + "/value",
		other.URL + "/widgets", other.URL + "/bench", other.URL + "/page"}
	out := map[string][2]*target.Snapshot{}
	for _, u := range urls {
		tab := openAt(t, c, u)
		out[u] = [2]*target.Snapshot{snapshot(t, tab, false), snapshot(t, tab, true)}
	}
	return out
}

// No role on the corpus pages prints as Chromium's CamelCase: every role
// is mapped to an AT-SPI-style name in lower case.
func TestSnapshotRolesMapped(t *testing.T) {
	t.Parallel()
	for u, ss := range corpus(t) {
		ss[0].Root.Walk(func(n *target.Node, _ int) bool {
			if strings.IndexFunc(n.Role, unicode.IsUpper) >= 0 {
				t.Errorf("%s: role %q is Chromium's, not mapped (node %q)", u, n.Role, n.Name)
			}
			return true
		})
	}
}

// In the full view no text of white space alone is a line, and no unnamed
// wrapper with nothing to act on carries a ref; in both views a text
// field's value is printed once, on the field's line.
func TestSnapshotNoNoise(t *testing.T) {
	t.Parallel()
	wrappers := map[string]bool{"section": true, "label": true, "panel": true, "paragraph": true, "static": true}
	for u, ss := range corpus(t) {
		for view, s := range ss {
			s.Root.Walk(func(n *target.Node, _ int) bool {
				if n.Role == "static" && strings.TrimSpace(n.Name) == "" {
					t.Errorf("%s (view %d): a white-space text line %q (ref %q)", u, view, n.Name, n.Ref)
				}
				if n.Ref != "" && n.Name == "" && wrappers[n.Role] && !n.Actionable() {
					t.Errorf("%s (view %d): unnamed %s wrapper carries ref %s", u, view, n.Role, n.Ref)
				}
				if n.Text != "" && n.Implements("EditableText") {
					for _, k := range n.Children {
						if k.Role == "static" && strings.Contains(n.Text, k.Name) {
							t.Errorf("%s (view %d): %s %q prints its value %q again as text %q", u, view, n.Role, n.Name, n.Text, k.Name)
						}
					}
				}
				return true
			})
			if strings.HasSuffix(u, "/value") && strings.Contains(s.Text(), `static "Ada"`) {
				t.Errorf("the value printed twice:\n%s", s.Text())
			}
		}
	}
}
