package firefox_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// framedPages is a page with a same-origin frame, a frame of another
// origin (a second loopback server: another port is another origin)
// holding a frame of its own: each frame's button tells its own server what it saw. The frames'
// buttons are small and the frames stand off their page's corner (a
// margin, a border, beside each other): a click that missed a frame's
// offset would miss its button.
func framedPages(t *testing.T) (*site, *site) {
	other := newSite(t, map[string]string{
		"/cross": `<!doctype html><title>Cross</title><h2>Cross frame</h2>
<button id=cb style="width:36px;height:20px;padding:0;overflow:hidden" onclick="fetch('/cross-clicked?trusted=' + event.isTrusted)">Cross button</button>
<label>Code <input id=code></label>
<iframe src="/nested" style="width:300px;height:120px;border:0"></iframe>`,
		"/nested": `<!doctype html><title>Nested</title>
<button style="margin-left:50px;width:36px;height:20px;padding:0;overflow:hidden" onclick="fetch('/nested-clicked?trusted=' + event.isTrusted)">Nested button</button>`,
	})
	pages := map[string]string{
		"/framed": fmt.Sprintf(`<!doctype html><title>Framed</title><h1>Top page</h1>
<button onclick="fetch('/top-clicked')">Top button</button>
<iframe id=same src="/same" style="width:400px;height:150px;margin-left:37px;border:3px solid"></iframe>
<iframe id=cross src="%s/cross" style="width:400px;height:260px"></iframe>`, other.URL),
		"/same": `<!doctype html><title>Same</title><h2>Same frame</h2>
<label>Note <input id=note></label>
<button style="width:36px;height:20px;padding:0;overflow:hidden" onclick="fetch('/same-clicked?trusted=' + event.isTrusted + '&note=' + encodeURIComponent(document.getElementById('note').value))">Same button</button>`,
	}
	return newSite(t, pages), other
}

// frameDOM reads an expression in a frame's own document (its own realm:
// the oracle, not our sandbox), the frame found by its URL in the tab's
// context tree.
func frameDOM(t *testing.T, ctx context.Context, tab *firefox.Tab, urlSuffix, expr string) string {
	t.Helper()
	c := browser(t).Conn()
	tree, err := c.GetTree(ctx, tab.ID())
	if err != nil {
		t.Fatal(err)
	}
	var walk func([]bidi.ContextInfo) bidi.Context
	walk = func(cs []bidi.ContextInfo) bidi.Context {
		for _, ci := range cs {
			if strings.HasSuffix(ci.URL, urlSuffix) {
				return ci.Context
			}
			if f := walk(ci.Children); f != "" {
				return f
			}
		}
		return ""
	}
	fc := walk(tree)
	if fc == "" {
		t.Fatalf("no frame of %s in %+v", urlSuffix, tree)
	}
	v, err := c.Evaluate(ctx, bidi.Target{Context: fc}, expr)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := v.String()
	return s
}

// TestFramesSnapshotAndAct: a snapshot holds each frame's content under its
// <iframe> (same-origin, cross-origin, and one nested inside the
// cross-origin frame); a click on a button inside each frame reaches that
// frame's own page (its server logs what its handler saw: a trusted
// click), and a fill inside a frame is in that frame's own DOM.
func TestFramesSnapshotAndAct(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	main, other := framedPages(t)
	tab := newTab(t, ctx)
	if err := tab.Navigate(ctx, main.URL+"/framed"); err != nil {
		t.Fatal(err)
	}
	snap, refs := snapshot(t, ctx, tab)
	text := snap.Text()
	for _, want := range []string{"Top button", "Same frame", "Same button", "Cross frame", "Cross button", "Nested button"} {
		if !strings.Contains(text, want) {
			t.Errorf("the snapshot misses %q", want)
		}
	}
	// Each frame's lines are under its <iframe>'s node.
	under := func(frameName, button string) {
		t.Helper()
		var found bool
		snap.Root.Walk(func(n *target.Node, _ int) bool {
			if strings.Contains(n.Role, "frame") && n.Name == frameName {
				found = n.Find(func(c *target.Node) bool { return c.Name == button }) != nil
				return false
			}
			return true
		})
		if !found {
			t.Errorf("%q is not under the frame %q", button, frameName)
		}
	}
	under("Same", "Same button")
	under("Cross", "Cross button")
	under("Cross", "Nested button")
	under("Nested", "Nested button")

	// Text filled, then keys typed, into a field of each frame reach it:
	// the frame's field takes the focus, the keys go to the focused
	// element.
	note := find(t, snap, refs, "entry", "Note")
	fillAndType(t, ctx, tab, note, "framed text", "!")
	if got := frameDOM(t, ctx, tab, "/same", "document.getElementById('note').value"); got != "framed text!" {
		t.Errorf("the same-origin frame's field holds %q after the fill and the typing", got)
	}
	fillAndType(t, ctx, tab, find(t, snap, refs, "entry", "Code"), "x", "1")
	if got := frameDOM(t, ctx, tab, "/cross", "document.getElementById('code').value"); got != "x1" {
		t.Errorf("the cross-origin frame's field holds %q after typing", got)
	}
	if err := tab.Act(ctx, find(t, snap, refs, "push button", "Same button")); err != nil {
		t.Fatal(err)
	}
	main.waitFor(t, ctx, "GET /same-clicked?trusted=true&note=framed%20text!")
	if err := tab.Act(ctx, find(t, snap, refs, "push button", "Cross button")); err != nil {
		t.Fatal(err)
	}
	other.waitFor(t, ctx, "GET /cross-clicked?trusted=true")
	if err := tab.Act(ctx, find(t, snap, refs, "push button", "Nested button")); err != nil {
		t.Fatal(err)
	}
	other.waitFor(t, ctx, "GET /nested-clicked?trusted=true")
	for _, l := range main.requests() {
		if strings.HasPrefix(l, "GET /top-clicked") {
			t.Errorf("a click inside a frame reached the top page's button: %q", main.requests())
		}
	}

	// -i keeps the frames' buttons, with their refs.
	iv := snap.InteractiveView().Text()
	for _, want := range []string{"Same button", "Cross button", "Nested button", "Note"} {
		if !strings.Contains(iv, want) {
			t.Errorf("-i misses %q:\n%s", want, iv)
		}
	}

	// A frame that loads another document: its old refs are stale.
	if _, err := tab.Eval(ctx, "document.getElementById('same').src = '/same?again'; new Promise(r => document.getElementById('same').onload = r)"); err != nil {
		t.Fatal(err)
	}
	if code := refusal(tab.Act(ctx, note)); code != target.CodeStaleRef {
		t.Errorf("a ref of a frame's earlier document: %q, want stale_ref", code)
	}
}

// TestFrameUnreadable: a frame that is not read whole is said so on its
// <iframe>'s node, in words, and the snapshot's census counts it — never
// left out in silence: a frame whose server has not finished its
// document, and frames nested past the depth a snapshot reads.
func TestFrameUnreadable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	hold := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>Slow</title><p>the start")
		w.(http.Flusher).Flush()
		select { // the rest of the document never comes while the test runs
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hold)
	pages := map[string]string{"/page": fmt.Sprintf(`<!doctype html><title>Held</title><h1>Top</h1>
<iframe title=held src="%s/slow"></iframe><iframe title=n1 src="/n1"></iframe>`, slow.URL)}
	for i := 1; i <= 6; i++ {
		pages[fmt.Sprintf("/n%d", i)] = fmt.Sprintf(`<!doctype html><button>Level %d</button><iframe title=n%d src="/n%d"></iframe>`, i, i+1, i+1)
	}
	s := newSite(t, pages)
	tab := newTab(t, ctx)
	// The page's load never ends (its frame's does not): wait for its
	// parse, and for the nested frames' documents, in the page's DOM.
	if _, err := browser(t).Conn().Navigate(ctx, tab.ID(), s.URL+"/page", bidi.ReadyInteractive); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /n6")
	if err := tab.Wait(ctx, kind.Wait{Selector: "iframe[title=n1]"}); err != nil {
		t.Fatal(err)
	}
	snap, err := tab.Snapshot(ctx, target.NewRefTable())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot:\n%s", snap.Text())
	why := map[string]string{}
	snap.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Unreadable != "" {
			why[n.Name] = n.Unreadable
		}
		return true
	})
	if w := why["held"]; !strings.Contains(w, "loading") {
		t.Errorf("the frame still loading says %q", w)
	}
	if w := why["n5"]; !strings.Contains(w, "nested deeper") {
		t.Errorf("the frame past the depth bound says %q (unreadable: %q)", w, why)
	}
	if snap.Census.Unreadable != len(why) || len(why) != 2 {
		t.Errorf("census %+v, unreadable nodes %q", snap.Census, why)
	}
	for i := 1; i <= 4; i++ {
		if !strings.Contains(snap.Text(), fmt.Sprintf("Level %d", i)) {
			t.Errorf("level %d, within the depth bound, is not read", i)
		}
	}
}

// TestSnapshotAfterInFrame: a frame past the walk's budget is cut inside
// the frame, and the snapshot reads on there (SnapshotAfter in the
// frame's context) until the frame's last row.
func TestSnapshotAfterInFrame(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const rows = 12000 // three nodes a row: past the budget
	s := newSite(t, map[string]string{
		"/top": `<!doctype html><title>Top</title><h1>Rows in a frame</h1><iframe title=rows src="/rows"></iframe><p>After the frame</p>`,
		"/rows": fmt.Sprintf(`<title>Rows</title><body><script>
for (let i = 1; i <= %d; i++) { const d = document.createElement("div"); d.innerHTML = "<button>Button " + i + "</button> <a href>link " + i + "</a> <span>text " + i + "</span>"; document.body.append(d); }
</script>`, rows),
	})
	tab := newTab(t, ctx)
	if err := tab.Navigate(ctx, s.URL+"/top"); err != nil {
		t.Fatal(err)
	}
	snap, refs := snapshot(t, ctx, tab)
	if !snap.Truncated || !strings.Contains(snap.Text(), `"Button 1"`) {
		t.Fatalf("the first page: truncated %v:\n%.1500s", snap.Truncated, snap.Text())
	}
	if key, err := refs.Key(snap.After); err != nil || !strings.Contains(key, "@") {
		t.Fatalf("the first page reads on from %q (%v), not a node of the frame", key, err)
	}
	// The page that reaches the frame's end reads on after its <iframe> in
	// the tab's document, as a Chromium tab's does: the paragraph after it
	// is read there again (the first page held the whole top document,
	// cut in the frame), and would be read first there were the top
	// document cut after the frame too.
	all := readOn(t, ctx, tab, snap, refs, "After the frame")
	if !strings.Contains(all, fmt.Sprintf(`"Button %d"`, rows)) || strings.Count(all, `"After the frame"`) != 2 {
		t.Fatalf("the pages do not read the frame's last row, then on after the frame")
	}
}
