package main_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pagingRows is how many rows the paged page has: three nodes a row,
// past the snapshot's budget several times over.
const pagingRows = 25000

// pagingPage is pagingRows rows of a button, a link and a text; a click on
// a button writes the button's text to the document's title, so a click
// is checked through the page's own DOM.
func pagingPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Rows</title></head><body>`)
	for i := range pagingRows {
		fmt.Fprintf(&b, `<div><button>Button %d</button> <a href="#%d">link %d</a> <span>text %d</span></div>`, i, i, i, i)
	}
	b.WriteString(`<script>
document.addEventListener('click', (e) => {
  if (e.target.localName === 'button') document.title = 'clicked ' + e.target.textContent;
});
</script></body></html>`)
	return b.String()
}

var (
	// readOn is where a snapshot cut at its budget says to read on.
	readOn = regexp.MustCompile(`(?m)^# .*truncated at budget.*read on with snapshot --after (@e\d+)`)
	// buttonLine is a row's button in a text snapshot.
	buttonLine = regexp.MustCompile(`(?m)^\s*push button "Button (\d+)" (@e\d+)`)
)

// TestSnapshotPagesThroughABigPage: a snapshot of a page past the budget
// says it was cut and names the ref to read on from; snapshot --after
// that ref, again and again until a page is not cut, sees every button of
// the page (none lost between pages); a button of the last page is clicked
// by its ref, and the page's own DOM says it was.
func TestSnapshotPagesThroughABigPage(t *testing.T) {
	e := sharedEnv(t)
	mux := http.NewServeMux()
	body := pagingPage()
	mux.HandleFunc("GET /rows", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	})
	site := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(site.Close)
	e.OK("s1", "open", site.URL+"/rows")

	seen := make([]bool, pagingRows)
	counted := 0
	var page map[int]string // the buttons of the page read last, by number: their refs
	// read takes in one page's buttons and answers where to read on ("":
	// the page was not cut).
	read := func(out string) string {
		t.Helper()
		snap := snapBody(t, out)
		page = map[int]string{}
		for _, m := range buttonLine.FindAllStringSubmatch(snap, -1) {
			i, _ := strconv.Atoi(m[1])
			if i < 0 || i >= pagingRows {
				t.Fatalf("a button the page does not have: %q", m[0])
			}
			seen[i] = true
			page[i] = m[2]
			counted++
		}
		head, _, _ := strings.Cut(snap, "\n")
		t.Logf("%d buttons: %s", len(page), head)
		if !strings.Contains(head, "truncated at budget") {
			return ""
		}
		m := readOn.FindStringSubmatch(head)
		if m == nil {
			t.Fatalf("a snapshot cut at its budget names no ref to read on from: %s", head)
		}
		return m[1]
	}

	// Each answer came back: e.OK fails on any refusal, a timeout's
	// included, and on a client that gave up.
	after := read(e.OK("s1", "snapshot"))
	if after == "" {
		t.Fatalf("a snapshot of %d rows is not cut at its budget", pagingRows)
	}
	// -i, --depth and --json take a page as they take a snapshot.
	first := e.OKJSON("s1", "snapshot", "--after", after, "-i", "--depth", "1")
	if s := first.Snapshot; s == nil || !s.Interactive || s.Root == nil || len(s.Root.Children) == 0 || !strings.HasPrefix(first.Did, "after "+after+": ") {
		t.Fatalf("snapshot --after %s -i --depth 1 --json is no interactive page (did %q)", after, first.Did)
	}
	// A page is not a part to scope or to diff.
	e.Refused("bad_request", "s1", "snapshot", "--after", after, "--diff")
	e.Refused("bad_request", "s1", "snapshot", after, "--after", after)
	pages := 1
	for after != "" {
		if pages++; pages > 20 {
			t.Fatalf("still cut after %d pages (%d buttons counted)", pages-1, counted)
		}
		out := e.OK("s1", "snapshot", "--after", after)
		if !strings.Contains(out, "after "+after+": ") {
			t.Fatalf("the page after %s does not say what it is:\n%.400s", after, out)
		}
		next := read(out)
		if next == after {
			t.Fatalf("the page after %s names itself to read on from", after)
		}
		after = next
	}
	var lost []int
	for i, ok := range seen {
		if !ok {
			lost = append(lost, i)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d buttons seen on no page of %d (first lost: Button %d)", len(lost), pagingRows, pages, lost[0])
	}
	if counted < pagingRows {
		t.Fatalf("the pages hold %d buttons, want at least %d", counted, pagingRows)
	}
	t.Logf("%d pages, %d button lines for %d buttons", pages, counted, pagingRows)

	// A button of the last page, clicked by the ref that page minted: the
	// page's own title says it was.
	n := -1
	for i := range page {
		n = max(n, i)
	}
	if n < 0 {
		t.Fatalf("the last of %d pages holds no button", pages)
	}
	e.OK("s1", "click", page[n])
	want := fmt.Sprintf("clicked Button %d", n)
	if got := e.EvalString("s1", "document.title"); got != want {
		t.Fatalf("click %s (Button %d): the page's title is %q, want %q", page[n], n, got, want)
	}
}
