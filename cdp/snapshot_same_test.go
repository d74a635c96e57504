package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/cdp"
)

// widgetPage has a bit of every kind of node the snapshot maps: states,
// values, levels, hidden and ignored nodes, escapes and non-ASCII text.
const widgetPage = `<!doctype html><title>Widgets "quoted" \ é 😀</title>
<h3>Level three</h3>
<label>Pick <select><option>one</option><option selected>two</option></select></label>
<label><input type="checkbox" checked> Checked</label>
<input type="checkbox" id="mixed" aria-label="Mixed"><script>document.getElementById('mixed').indeterminate = true</script>
<label><input type="radio" name="r" checked> Radio A</label><label><input type="radio" name="r"> Radio B</label>
<button aria-pressed="true">Pressed</button><button aria-pressed="mixed">Half</button>
<button aria-expanded="false">Closed</button><button aria-expanded="true">Open</button>
<details open><summary>Sum</summary>inside</details>
<input type="range" min="0" max="10" value="3" aria-label="Range">
<progress value="0.25" aria-label="Progress"></progress>
<input aria-label="Required" required aria-invalid="true">
<input aria-label="Read only" readonly value="ro">
<textarea aria-label="Long">` + "line one\nline \"two\" \\ tab\there " + `</textarea>
<div contenteditable="true" aria-label="Rich">rich <b>text</b></div>
<div aria-hidden="true"><button>Hidden</button></div>
<div role="dialog" aria-modal="true" aria-label="Dialog"><p>in a dialog</p></div>
<ul role="listbox" aria-multiselectable="true" aria-label="Many"><li role="option" aria-selected="true">Sel</li></ul>
<button disabled>Off</button><a href="#x" title="Tip">Link</a>
<p>Text with <span>spans</span> and a <abbr title="t">TLA</abbr>.<br>After break</p>
<iframe srcdoc="<button>In frame</button>"></iframe>
<table><tr><th>Head</th></tr><tr><td>Cell</td></tr></table>`

// On real pages the reply decoded by hand builds exactly the snapshot the
// reference decoding builds (snapshot_ref_test.go): same nodes, roles,
// names, states, values and keys.
func TestSnapshotSameAsReference(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	pages := map[string]string{"/widgets": widgetPage, "/bench": benchPage(), "/page": testPage}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, pages[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	ctx := ctxT(t)
	for path := range pages {
		tab, err := c.NewTab(ctx, srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		var raw jsonv2.Value
		if err := tab.Session().Call(ctx, accessibility.CommandGetFullAXTree, &accessibility.GetFullAXTreeParams{}, &raw); err != nil {
			t.Fatal(err)
		}
		if err := cdp.SameSnapshot(raw, 1); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		s, err := tab.Snapshot(ctx, refsOf(tab), false)
		if err != nil {
			t.Fatal(err)
		}
		if path == "/widgets" {
			text := s.Text()
			t.Logf("widgets:\n%s", text)
			if want := `Widgets "quoted" \ é 😀`; s.Title != want {
				t.Errorf("title %q, want %q", s.Title, want)
			}
			for _, want := range []string{`check box "Mixed"`, `push button "Pressed" @`, " h3\n", `="0.25"`} {
				if !strings.Contains(text, want) {
					t.Errorf("no %q in the widgets snapshot", want)
				}
			}
		}
	}
}
