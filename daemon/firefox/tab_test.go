package firefox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/bidi"
	"github.com/vibespace/vibespace/daemon/firefox"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

const formPage = `<!doctype html><title>Form page</title>
<h1>Sign in</h1>
<label>Name <input id=name></label>
<button id=go onclick="fetch('/clicked?trusted=' + event.isTrusted + '&name=' + encodeURIComponent(document.getElementById('name').value))">Go</button>
<button disabled>Off</button>
<div style="position:relative;display:inline-block"><button>Under</button><div style="position:absolute;left:0;top:0;right:0;bottom:0;background:red"></div></div>`

func refusal(err error) target.Code {
	var r *target.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// find is the snapshot's node of role and name, as a kind.Node.
func find(t *testing.T, s *target.Snapshot, refs *target.RefTable, role, name string) kind.Node {
	t.Helper()
	n := s.Root.Find(func(n *target.Node) bool { return n.Role == role && n.Name == name })
	if n == nil || n.Key == "" {
		t.Fatalf("no %s %q with a key in:\n%s", role, name, s.Text())
	}
	return kind.Node{Ref: refs.Ref(n.Key), Key: n.Key}
}

// TestTabVerbs drives a page through the tab's verbs: snapshot, fill and
// type into a field, click by ref (the page's own click handler tells the
// site what it saw, and that the click was a trusted event), the checks
// that refuse a disabled and a covered button and a stale ref, eval,
// info, screenshot, and the live view's frames.
func TestTabVerbs(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, tab, snap, refs := loaded(t, ctx, "/form", formPage)
	if snap.Title != "Form page" {
		t.Errorf("title %q", snap.Title)
	}
	name := find(t, snap, refs, "entry", "Name")
	goBtn := find(t, snap, refs, "push button", "Go")
	off := find(t, snap, refs, "push button", "Off")
	under := find(t, snap, refs, "push button", "Under")

	fillAndType(t, ctx, tab, name, "Ada Lovelace", " the second, née Byron")
	if err := tab.Act(ctx, goBtn); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /clicked?trusted=true&name=Ada%20Lovelace%20the%20second%2C%20n%C3%A9e%20Byron")

	if code := refusal(tab.Act(ctx, off)); code != target.CodeNotSensitive {
		t.Errorf("a click on a disabled button: %q, want not_sensitive", code)
	}
	if code := refusal(tab.Act(ctx, under)); code != target.CodeCovered {
		t.Errorf("a click on a covered button: %q, want covered", code)
	}
	if code := refusal(tab.ClickAt(ctx, kind.Point{X: 100000, Y: 5})); code != target.CodeOutsidePage {
		t.Errorf("a click outside the viewport: %q, want outside_page", code)
	}

	v, err := tab.Eval(ctx, "document.querySelectorAll('button').length + 40")
	if err != nil || string(v) != "43" {
		t.Errorf("eval: %s %v", v, err)
	}
	if _, err := tab.Eval(ctx, "throw new Error('boom')"); refusal(err) != target.CodeScriptError {
		t.Errorf("a throwing eval: %v, want script_error", err)
	}
	info, err := tab.Info(ctx)
	if err != nil || info.Title != "Form page" || info.App != s.URL+"/form" {
		t.Errorf("info: %+v %v", info, err)
	}
	shot, err := tab.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Errorf("the screenshot: %v", err)
	}
	// The live view's frames: the viewport's pictures, a new one when
	// the page changes (its colour, read in the frame's own pixels).
	src, err := tab.Frames(ctx, kind.FrameOptions{FPS: 10})
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w, h, _ := viewportOf(t, ctx, tab); f.Width != w || f.Height != h || f.Format != target.FormatRGBA {
		t.Errorf("a frame of %dx%d (format %v), the viewport is %dx%d", f.Width, f.Height, f.Format, w, h)
	}
	if _, err := tab.Eval(ctx, "document.body.style.background = 'rgb(0, 0, 255)'"); err != nil {
		t.Fatal(err)
	}
	f2, err := src.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if px := f2.Pix[(f2.Height-5)*f2.Stride+(f2.Width-5)*4:][:3]; f2.Seq != 2 || f2.Forced || px[2] < 200 || px[0] > 40 {
		t.Errorf("the frame after the page turned blue: seq %d forced %v, its corner %v", f2.Seq, f2.Forced, px)
	}
	src.Close()

	// A new document: the refs of the old one are stale.
	if err := tab.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if code := refusal(tab.Act(ctx, goBtn)); code != target.CodeStaleRef {
		t.Errorf("a ref of the document before the reload: %q, want stale_ref", code)
	}
	if err := tab.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Info(ctx); refusal(err) != target.CodeTabGone {
		t.Errorf("info of a closed tab: %v, want tab_gone", err)
	}
}

// TestScrollAndHistory: scroll turns the wheel and the page scrolls (its
// own scroll handler reports where it came to, to the site); a point
// outside the viewport is outside_page, a direction no direction
// bad_request, and neither moves the page; back and forward move through
// the tab's history (the URL the browser's tree gives).
func TestScrollAndHistory(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tall := `<title>Tall</title><div style="height:5000px;width:5000px">top</div>
<script>let last = ""; addEventListener("scroll", () => { const at = scrollX + "," + scrollY; if (at !== last) { last = at; fetch("/at?" + at); } });</script>`
	s := newSite(t, map[string]string{"/tall": tall, "/two": `<title>Two</title>`})
	tab := newTab(t, ctx)
	c := browser(t).Conn()
	if err := tab.Navigate(ctx, s.URL+"/tall"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Scroll(ctx, nil, "down", 3); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /at?0,300")
	if err := tab.Scroll(ctx, &kind.Point{X: 10, Y: 10}, "right", 2); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /at?200,300")
	if err := tab.Scroll(ctx, nil, "up", 3); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, ctx, "GET /at?200,0")
	if code := refusal(tab.Scroll(ctx, &kind.Point{X: -1, Y: 3}, "down", 1)); code != target.CodeOutsidePage {
		t.Errorf("a scroll outside the viewport: %q", code)
	}
	if code := refusal(tab.Scroll(ctx, nil, "sideways", 1)); code != target.CodeBadRequest {
		t.Errorf("a scroll sideways: %q", code)
	}
	v, err := c.Evaluate(ctx, bidi.Target{Context: tab.ID()}, `scrollX + "," + scrollY`)
	if err != nil {
		t.Fatal(err)
	}
	if at, _ := v.String(); at != "200,0" {
		t.Errorf("the page is at %s after the refused scrolls, want 200,0", at)
	}
	if err := tab.Navigate(ctx, s.URL+"/two"); err != nil {
		t.Fatal(err)
	}
	urlNow := func() string {
		tree, err := c.GetTree(ctx, tab.ID())
		if err != nil || len(tree) == 0 {
			t.Fatalf("the tree: %v", err)
		}
		return tree[0].URL
	}
	if err := tab.Back(ctx); err != nil {
		t.Fatal(err)
	}
	if u := urlNow(); u != s.URL+"/tall" {
		t.Errorf("after back: %s", u)
	}
	if err := tab.Forward(ctx); err != nil {
		t.Fatal(err)
	}
	if u := urlNow(); u != s.URL+"/two" {
		t.Errorf("after forward: %s", u)
	}
}

// TestWait: wait for a selector that a timer makes visible later, a text,
// a URL; a selector that never matches runs out of time (timeout, naming
// it), a bad selector is script_error at once.
func TestWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s := newSite(t, map[string]string{"/late": `<title>Late</title><div id=late hidden>Arrived at last</div>
<script>setTimeout(() => { document.getElementById("late").hidden = false; history.pushState(null, "", "/late#done"); }, 400)</script>`})
	tab := newTab(t, ctx)
	if err := tab.Navigate(ctx, s.URL+"/late"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Wait(ctx, kind.Wait{Selector: "#late"}); err != nil {
		t.Fatal(err)
	}
	v, err := tab.Eval(ctx, `getComputedStyle(document.getElementById("late")).display`)
	if err != nil || string(v) != `"block"` {
		t.Errorf("the awaited element: display %s %v", v, err)
	}
	if err := tab.Wait(ctx, kind.Wait{Text: "Arrived at last"}); err != nil {
		t.Error(err)
	}
	if err := tab.Wait(ctx, kind.Wait{URL: "#done"}); err != nil {
		t.Error(err)
	}
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	defer cancelShort()
	if err := tab.Wait(short, kind.Wait{Selector: "#never"}); refusal(err) != target.CodeTimeout {
		t.Errorf("a wait for what never comes: %v, want timeout", err)
	}
	if err := tab.Wait(ctx, kind.Wait{Selector: "##"}); refusal(err) != target.CodeScriptError {
		t.Errorf("a wait for a bad selector: %v, want script_error", err)
	}
	if err := tab.Wait(ctx, kind.Wait{}); refusal(err) != target.CodeBadRequest {
		t.Errorf("a wait for nothing: %v, want bad_request", err)
	}
}

const choicePage = `<!doctype html><title>Choices</title>
<label>Colour <select id=colour onchange="fetch('/chose?colour=' + this.value)">
<option value=r>Red</option><option value=g>Green</option><option value=b disabled>Blue</option></select></label>
<div role=listbox aria-label=Size id=size>
<div role=option aria-selected=true>Small</div><div role=option aria-selected=false>Large</div></div>
<script>
for (const o of document.querySelectorAll("[role=option]")) o.onclick = (e) => {
  for (const p of document.querySelectorAll("[role=option]")) p.setAttribute("aria-selected", p === o);
  fetch("/chose?size=" + o.textContent + "&trusted=" + e.isTrusted);
};
</script>`

// TestSelect: a <select> is set by its options' flags with the change
// event a pick fires (the page's handler tells the site), by label or by
// value; an ARIA list box's option is clicked with real input (its
// handler sees a trusted click); an option the control lacks is
// no_option naming what it has, a disabled one not_sensitive; the node's
// traits offer a selection, as the capability law asks.
func TestSelect(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, tab, snap, refs := loaded(t, ctx, "/choices", choicePage)
	colour := find(t, snap, refs, "combo box", "Colour")
	size := find(t, snap, refs, "list box", "Size")
	for _, n := range []kind.Node{colour, size} {
		if tr, err := tab.Node(ctx, n); err != nil || !tr.Has("Selection") {
			t.Errorf("the traits of %s: %+v %v, want a Selection", n.Ref, tr, err)
		}
	}
	held, err := tab.Select(ctx, colour, []string{"Green"})
	if err != nil || !slices.Equal(held, []string{"Green"}) {
		t.Fatalf("select Green: %q %v", held, err)
	}
	s.waitFor(t, ctx, "GET /chose?colour=g")
	if held, err = tab.Select(ctx, colour, []string{"r"}); err != nil || !slices.Equal(held, []string{"Red"}) {
		t.Errorf("select by the value r: %q %v", held, err)
	}
	if _, err := tab.Select(ctx, colour, []string{"Purple"}); refusal(err) != target.CodeNoOption || !strings.Contains(err.Error(), `"Green"`) {
		t.Errorf("select Purple: %v, want no_option naming the options", err)
	}
	if _, err := tab.Select(ctx, colour, []string{"Blue"}); refusal(err) != target.CodeNotSensitive {
		t.Errorf("select the disabled Blue: %v, want not_sensitive", err)
	}
	if held, err = tab.Select(ctx, size, []string{"Large"}); err != nil || !slices.Equal(held, []string{"Large"}) {
		t.Fatalf("select Large: %q %v", held, err)
	}
	s.waitFor(t, ctx, "GET /chose?size=Large&trusted=true")
}

// viewportOf is the tab's viewport in CSS pixels, as its page says.
func viewportOf(t *testing.T, ctx context.Context, tab *firefox.Tab) (w, h int, err error) {
	t.Helper()
	v, err := tab.Eval(ctx, "[innerWidth, innerHeight]")
	if err != nil {
		t.Fatal(err)
	}
	var wh []int
	if err := json.Unmarshal(v, &wh); err != nil || len(wh) != 2 {
		t.Fatalf("the viewport: %s %v", v, err)
	}
	return wh[0], wh[1], nil
}

// loaded is a new tab on a site serving body at path, loaded, and its
// first snapshot.
func loaded(t *testing.T, ctx context.Context, path, body string) (*site, *firefox.Tab, *target.Snapshot, *target.RefTable) {
	t.Helper()
	s := newSite(t, map[string]string{path: body})
	tab := newTab(t, ctx)
	if err := tab.Navigate(ctx, s.URL+path); err != nil {
		t.Fatal(err)
	}
	snap, refs := snapshot(t, ctx, tab)
	return s, tab, snap, refs
}

// snapshot is the tab's snapshot, with its refs.
func snapshot(t *testing.T, ctx context.Context, tab *firefox.Tab) (*target.Snapshot, *target.RefTable) {
	t.Helper()
	refs := target.NewRefTable()
	snap, err := tab.Snapshot(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot:\n%s", snap.Text())
	return snap, refs
}

// fillAndType fills a field with fill, then focuses it and types typed
// at its end, as keys.
func fillAndType(t *testing.T, ctx context.Context, tab *firefox.Tab, n kind.Node, fill, typed string) {
	t.Helper()
	if err := tab.Fill(ctx, n, fill); err != nil {
		t.Fatal(err)
	}
	if err := tab.Focus(ctx, n); err != nil {
		t.Fatal(err)
	}
	if err := tab.Key(ctx, target.Chord{Key: "End"}); err != nil {
		t.Fatal(err)
	}
	if err := tab.Type(ctx, typed); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotAfter: a page past the walk's budget is cut, and says where
// to read on (Snapshot.After); SnapshotAfter reads what follows, page by
// page, until the page's last row; a ref of a document the tab left is
// stale_ref.
func TestSnapshotAfter(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const rows = 12000 // three nodes a row: past the budget
	_, tab, snap, refs := loaded(t, ctx, "/rows", fmt.Sprintf(`<title>Rows</title><body><script>
for (let i = 1; i <= %d; i++) { const d = document.createElement("div"); d.innerHTML = "<button>Button " + i + "</button> <a href>link " + i + "</a> <span>text " + i + "</span>"; document.body.append(d); }
</script>`, rows))
	last := fmt.Sprintf("Button %d", rows)
	if !snap.Truncated || snap.After == "" || strings.Contains(snap.Text(), `"`+last+`"`) {
		t.Fatalf("the first page: truncated %v, after %q, holds the last row %v", snap.Truncated, snap.After, strings.Contains(snap.Text(), last))
	}
	first := find(t, snap, refs, "push button", "Button 1").Key
	readOn(t, ctx, tab, snap, refs, last)
	key := first
	if err := tab.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.SnapshotAfter(ctx, refs, key); refusal(err) != target.CodeStaleRef {
		t.Errorf("--after a ref of the document before the reload: %v, want stale_ref", err)
	}
}

// readOn reads a cut snapshot on, page after page (SnapshotAfter), until
// it is whole, and fails t unless the pages reach the row named last
// without starting again at the first.
func readOn(t *testing.T, ctx context.Context, tab *firefox.Tab, snap *target.Snapshot, refs *target.RefTable, last string) string {
	t.Helper()
	all := snap.Text()
	for page := 0; snap.Truncated; page++ {
		if page == 5 {
			t.Fatalf("5 pages and still cut")
		}
		key, err := refs.Key(snap.After)
		if err != nil {
			t.Fatal(err)
		}
		if snap, err = tab.SnapshotAfter(ctx, refs, key); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(snap.Text(), `"Button 1"`) {
			t.Fatalf("a page after %s starts again at the first row", key)
		}
		all += snap.Text()
	}
	if !strings.Contains(all, `"`+last+`"`) || !strings.Contains(all, `"text 6000"`) {
		t.Fatalf("the pages do not reach the last row; the last page:\n%.2000s", snap.Text())
	}
	return all
}
