package cdp_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
	srv := servePage(t, page)
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
	srv := servePage(t, `<!doctype html><title>Refs</title><button id="a">Alpha</button><button id="b">Beta</button>`)
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

// Paging reads every node of a page whose budget cut it, frames included:
// a frame cut inside is read on inside it, and a frame the budget reached
// before it was read is read from its <iframe> on. Nothing is lost (every
// button is seen on some page), and paging ends.
func TestPageRoadPagingFrames(t *testing.T) {
	t.Parallel()
	rows := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "<div><button>%s %d</button> <a href=\"#%d\">link %d</a> <span>text %d</span></div>\n", prefix, i, i, i, i)
		}
		return b.String()
	}
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><title>"+path+"</title>"+body)
		})
	}
	page("/inner-big", rows("Inner", 7000))
	page("/inner-small", rows("Early", 3))
	page("/cut-inside", `<button>Top</button><iframe src="/inner-big" style="width:400px;height:300px"></iframe>`+rows("After", 10)+`<button>Bottom</button>`)
	page("/frame-first", `<iframe src="/inner-small" style="width:400px;height:100px"></iframe>`+rows("Main", 7000)+`<button>End</button>`)
	page("/big-frame-first", `<iframe src="/inner-big" style="width:400px;height:100px"></iframe>`+rows("Main", 7000)+`<button>End</button>`)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := newContext(t)
	for _, tc := range []struct {
		path string
		want map[string]int // button name prefix: how many
	}{
		{"/cut-inside", map[string]int{"Top": 1, "Inner": 7000, "After": 10, "Bottom": 1}},
		{"/frame-first", map[string]int{"Early": 3, "Main": 7000, "End": 1}},
		{"/big-frame-first", map[string]int{"Inner": 7000, "Main": 7000, "End": 1}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			tab := openAt(t, c, srv.URL+tc.path)
			ctx := ctxT(t)
			refs := target.NewRefTable()
			// The frames load after the page: wait for the frame's first button.
			var s *target.Snapshot
			for try := 0; ; try++ {
				var err error
				if s, err = tab.Snapshot(ctx, refs, false); err != nil {
					t.Fatal(err)
				}
				if s.Root.Find(func(n *target.Node) bool { return strings.HasPrefix(n.Name, "Inner 0") || n.Name == "Early 0" }) != nil || try == 50 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			seen := map[string]bool{}
			pages := 0
			for {
				pages++
				s.Root.Walk(func(n *target.Node, _ int) bool {
					if n.Role == "push button" {
						seen[n.Name] = true
					}
					return true
				})
				if !s.Truncated {
					break
				}
				if s.After == "" || pages > 10 {
					t.Fatalf("page %d is cut but names no ref to read on from, or paging does not end: %q", pages, s.After)
				}
				k, err := refs.Key(s.After)
				if err != nil {
					t.Fatal(err)
				}
				if s, err = tab.SnapshotAfter(ctx, refs, false, k); err != nil {
					t.Fatal(err)
				}
			}
			for prefix, n := range tc.want {
				for i := range n {
					name := prefix
					if n > 1 || prefix == "Inner" || prefix == "Main" || prefix == "Early" || prefix == "After" {
						name = fmt.Sprintf("%s %d", prefix, i)
					}
					if !seen[name] {
						t.Fatalf("button %q is on none of the %d pages", name, pages)
					}
				}
			}
			t.Logf("%d pages, %d buttons", pages, len(seen))
		})
	}
}

// A frame that navigates gets a world of its own: the next snapshot reads
// its new document, and a ref of the old one is stale_ref, never a node of
// the new one (whose handles are numbered afresh). Snapshots of one tab
// at once each answer whole.
func TestPageRoadFrameNavigatesAndConcurrency(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	for _, f := range []string{"a", "b"} {
		mux.HandleFunc("/f"+f, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><title>%[1]s</title><button onclick="top.hit='%[1]s-first'">First %[1]s</button><button onclick="top.hit='%[1]s-second'">Second %[1]s</button>`, f)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Host</title><h1>Host</h1><iframe id="f" src="/fa" style="width:300px;height:100px"></iframe>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab := openAt(t, newContext(t), srv.URL)
	ctx := ctxT(t)
	refs := refsOf(tab)
	find := func(name string) *target.Node {
		t.Helper()
		for range 50 {
			s, err := tab.Snapshot(ctx, refs, false)
			if err != nil {
				t.Fatal(err)
			}
			if n := s.Root.Find(func(n *target.Node) bool { return n.Name == name }); n != nil {
				return n
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("no %q in the snapshots", name)
		return nil
	}
	oldSecond := find("Second a")
	if _, err := tab.Eval(ctx, `document.getElementById('f').src = '/fb'; 1`); err != nil {
		t.Fatal(err)
	}
	newSecond := find("Second b")
	if newSecond.Key == oldSecond.Key {
		t.Fatalf("the new frame's button has the old one's key %s", newSecond.Key)
	}
	var r *target.Refusal
	if err := tab.Click(ctx, nr(tab, oldSecond.Ref)); !errors.As(err, &r) || r.Code != target.CodeStaleRef {
		t.Fatalf("a click on a ref of the frame's old document: %v, want stale_ref", err)
	}
	var hit any
	if err := tab.EvalInto(ctx, `window.hit`, &hit); err != nil || hit != nil {
		t.Fatalf("the old ref clicked %v (%v)", hit, err)
	}
	if err := tab.Click(ctx, nr(tab, newSecond.Ref)); err != nil {
		t.Fatal(err)
	}
	if err := tab.EvalInto(ctx, `window.hit`, &hit); err != nil || hit != "b-second" {
		t.Fatalf("the new ref clicked %v (%v)", hit, err)
	}
	// Four snapshots at once, each with its own walk.
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for range 5 {
				s, err := tab.SnapshotRoad(ctx, target.NewRefTable(), false, cdp.RoadPage)
				if err == nil && s.Root.Find(func(n *target.Node) bool { return n.Name == "Second b" }) == nil {
					err = fmt.Errorf("a snapshot without the frame's button:\n%s", s.Text())
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// A page cut inside text that has no ref (a log in a <pre>) reads on from
// the last element read: every line is read, and paging ends.
func TestPageRoadPagingText(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<!doctype html><title>Log</title><h1>Log</h1><pre>")
	for i := range 30000 {
		fmt.Fprintf(&b, "<span>line %d</span>\n", i)
	}
	b.WriteString("</pre><button>End</button>")
	page := b.String()
	srv := servePage(t, page)
	tab := openAt(t, newContext(t), srv.URL)
	ctx := ctxT(t)
	refs := target.NewRefTable()
	s, err := tab.Snapshot(ctx, refs, false)
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		if err != nil {
			t.Fatal(err)
		}
		s.Root.Walk(func(n *target.Node, _ int) bool {
			seen[n.Name] = true
			return true
		})
		if !s.Truncated {
			break
		}
		if pages > 8 || s.After == "" {
			t.Fatalf("page %d: cut, read on from %q", pages, s.After)
		}
		k, kerr := refs.Key(s.After)
		if kerr != nil {
			t.Fatal(kerr)
		}
		s, err = tab.SnapshotAfter(ctx, refs, false, k)
	}
	for i := range 30000 {
		if !seen[fmt.Sprintf("line %d", i)] {
			t.Fatalf("line %d is on no page", i)
		}
	}
	if !seen["End"] {
		t.Fatal("the button after the log is on no page")
	}
}

// servePage serves one HTML page at every path of a server on 127.0.0.1.
func servePage(t *testing.T, page string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv
}
