package cdp_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/target"
)

// harmPage watches itself: every mutation of its DOM, every global it did
// not make, and every event a script of its own would see. The page road
// must leave all three untouched.
const harmPage = `<!doctype html><title>Watched</title>
<h1>Watched page</h1>
<button id="b" onclick="window.clicks = (window.clicks || 0) + 1">Press</button>
<label>Name <input id="n" value="x"></label>
<div id="host"></div>
<ul>` + `%s` + `</ul>
<script>
window.records = 0;
window.events = 0;
new MutationObserver((rs) => { window.records += rs.length; }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
for (const type of ['focus', 'blur', 'click', 'mousedown', 'keydown', 'input', 'change', 'scroll']) {
  document.addEventListener(type, () => { window.events++; }, true);
}
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button>Inner</button>';
window.globalsBefore = Object.getOwnPropertyNames(window).length;
</script>`

// A snapshot by the page road changes nothing a page can see: no DOM
// mutation, no global, no event; the page's own counters (read in its own
// world) stay at zero over many snapshots, and then still count what a
// person's click does.
func TestPageRoadLeavesThePageAlone(t *testing.T) {
	t.Parallel()
	var items strings.Builder
	for i := range 200 {
		fmt.Fprintf(&items, "<li><a href=\"#%d\">item %d</a></li>", i, i)
	}
	page := fmt.Sprintf(harmPage, items.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	tab := openAt(t, newContext(t), srv.URL)
	ctx := ctxT(t)
	refs := refsOf(tab)
	var s *target.Snapshot
	for range 5 {
		var err error
		if s, err = tab.SnapshotRoad(ctx, refs, false, cdp.RoadPage); err != nil {
			t.Fatal(err)
		}
	}
	if s.Root.Find(func(n *target.Node) bool { return n.Name == "Inner" }) == nil {
		t.Fatalf("the snapshot does not read the shadow root:\n%s", s.Text())
	}
	var seen struct {
		Records, Events, Globals, Before int
		Clicks                           any
	}
	read := `({records: window.records, events: window.events, globals: Object.getOwnPropertyNames(window).length, before: window.globalsBefore, clicks: window.clicks})`
	if err := tab.EvalInto(ctx, read, &seen); err != nil {
		t.Fatal(err)
	}
	if seen.Records != 0 || seen.Events != 0 || seen.Globals != seen.Before || seen.Clicks != nil {
		t.Fatalf("the page saw the snapshots: %+v", seen)
	}
	// The refs of the page road act: a click by ref reaches the button,
	// as the page's own counter says.
	press := s.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == "Press" })
	if press == nil {
		t.Fatalf("no Press button:\n%s", s.Text())
	}
	if err := tab.Click(ctx, nr(tab, press.Ref)); err != nil {
		t.Fatal(err)
	}
	var clicks int
	if err := tab.EvalInto(ctx, `window.clicks`, &clicks); err != nil || clicks != 1 {
		t.Fatalf("clicks %d, %v", clicks, err)
	}
}

// A page-road ref names its node from snapshot to snapshot, and one whose
// element left the page is stale_ref, as is every ref after a navigation.
func TestPageRoadRefs(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Refs</title><button id="a">Alpha</button><button id="b">Beta</button>`)
	}))
	t.Cleanup(srv.Close)
	tab := openAt(t, newContext(t), srv.URL)
	ctx := ctxT(t)
	refs := refsOf(tab)
	snap := func() *target.Snapshot {
		t.Helper()
		s, err := tab.SnapshotRoad(ctx, refs, false, cdp.RoadPage)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	button := func(s *target.Snapshot, name string) *target.Node {
		return s.Root.Find(func(n *target.Node) bool { return n.Role == "push button" && n.Name == name })
	}
	s1 := snap()
	alpha, beta := button(s1, "Alpha"), button(s1, "Beta")
	if alpha == nil || beta == nil || !strings.Contains(alpha.Key, ":h") {
		t.Fatalf("want two buttons with handle keys:\n%s", s1.Text())
	}
	if _, err := tab.Eval(ctx, `document.getElementById('a').before(document.createElement('hr')); 1`); err != nil {
		t.Fatal(err)
	}
	s2 := snap()
	if a2 := button(s2, "Alpha"); a2 == nil || a2.Ref != alpha.Ref || a2.Key != alpha.Key {
		t.Fatalf("Alpha was %s (%s), is %+v", alpha.Ref, alpha.Key, a2)
	}
	if _, err := tab.Eval(ctx, `document.getElementById('b').remove(); 1`); err != nil {
		t.Fatal(err)
	}
	var r *target.Refusal
	if err := tab.Click(ctx, nr(tab, beta.Ref)); !errors.As(err, &r) || r.Code != target.CodeStaleRef {
		t.Fatalf("a click on the removed button: %v, want stale_ref", err)
	}
	if err := tab.Navigate(ctx, srv.URL+"/again"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Click(ctx, nr(tab, alpha.Ref)); !errors.As(err, &r) || r.Code != target.CodeStaleRef {
		t.Fatalf("a click on a ref of the page before: %v, want stale_ref", err)
	}
}
