package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/target"
)

// observePage has a check box, a table of people with an Edit link and a
// Delete button a row, and a list whose items go and come: every change
// is posted to the test's own server (the page's own DOM, read by its own
// script), the oracle the answers are checked against.
const observePage = `<!doctype html>
<html><head><title>Observe</title></head><body>
<h1>Observe</h1>
<label><input id="dark" type="checkbox"> Dark</label>
<table id="people"><thead><tr><th>Name</th><th>Actions</th></tr></thead><tbody>
<tr id="r1"><td>Ada Lovelace</td><td><a href="#edit1">Edit</a> <button>Delete</button></td></tr>
<tr id="r2"><td>Alan Turing</td><td><a href="#edit2">Edit</a> <button>Delete</button></td></tr>
</tbody></table>
<ul id="items">
<li id="apple">Apple <button onclick="drop('apple')">Remove apple</button></li>
<li id="pear">Pear <button onclick="drop('pear')">Remove pear</button></li>
</ul>
<button id="add" onclick="add()">Add item</button>
<script>
function tell(event) {
  fetch('/report', {method: 'POST', body: JSON.stringify({event,
    dark: document.getElementById('dark').checked,
    items: [...document.querySelectorAll('#items li')].map(li => li.id)})});
}
document.getElementById('dark').addEventListener('change', () => tell('dark'));
function drop(id) { document.getElementById(id).remove(); tell('removed'); }
let n = 0;
function add() {
  n++;
  const li = document.createElement('li');
  li.id = 'fresh' + n;
  li.innerHTML = 'Fresh ' + n + ' <button>Remove fresh ' + n + '</button>';
  document.getElementById('items').appendChild(li);
  tell('added');
}
</script></body></html>`

// pageReport is what observePage posts.
type pageReport struct {
	Event string   `json:"event"`
	Dark  bool     `json:"dark"`
	Items []string `json:"items"`
}

// observeSite serves observePage on 127.0.0.1 and collects its reports.
type observeSite struct {
	*httptest.Server
	reports inbox[pageReport]
}

func newObserveSite(t testing.TB, pages map[string]string) *observeSite {
	s := &observeSite{}
	mux := http.NewServeMux()
	for path, body := range pages {
		servePage(mux, path, body)
	}
	mux.HandleFunc("POST /report", s.reports.Posted)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *observeSite) n() int { return s.reports.N() }

// wait waits for the first report from index from of event.
func (s *observeSite) wait(t testing.TB, from int, event string) pageReport {
	t.Helper()
	return s.reports.Wait(t, from, event, func(r pageReport) bool { return r.Event == event })
}

// diffLines are the change lines of a text --diff answer (or "unchanged").
func diffLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l == "unchanged" || strings.HasPrefix(l, "~ ") || strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ") {
			ls = append(ls, l)
		}
	}
	return ls
}

// snapBody is a text snapshot answer from its header on.
func snapBody(t testing.TB, out string) string {
	t.Helper()
	// The header line is left out when the previous answer said it
	// (daemon/headers): the snapshot's own header may come first.
	i := strings.Index("\n"+out, "\n# ")
	if i < 0 {
		t.Fatalf("no snapshot header in:\n%s", out)
	}
	return out[i:]
}

var refNum = regexp.MustCompile(`@e(\d+)`)

// maxRef is the largest ref number in a text.
func maxRef(s string) int {
	m := 0
	for _, r := range refNum.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(r[1])
		m = max(m, n)
	}
	return m
}

// onlyFocus reports whether a diff line says nothing but that focus came
// or went (a click moves the focus: that is a change too).
func onlyFocus(l string) bool {
	_, what, ok := strings.Cut(l, ": ")
	return ok && (what == "+focused" || what == "-focused")
}

// TestObserveLessOnAPage: snapshot @ref is that subtree with the same refs;
// --depth cuts and says how many; --diff after a click is that change, then
// "unchanged"; a removed node's ref is stale_ref and never reused; find
// answers refs with their context; get text @ref is that node's text.
func TestObserveLessOnAPage(t *testing.T) {
	e := sharedEnv(t)
	site := newObserveSite(t, map[string]string{"/observe": observePage})
	e.OK("s1", "open", site.URL+"/observe")
	full := e.Snapshot("s1")

	// The header says the tab and title once: in the answer's target line.
	out := e.OK("s1", "snapshot")
	head, _, _ := strings.Cut(snapBody(t, out), "\n")
	if strings.Count(out, `"Observe"`) < 1 || strings.Contains(head, "Observe") || strings.Contains(head, "tab:") ||
		head != "# "+strconv.Itoa(full.Census.Nodes)+" nodes, "+strconv.Itoa(full.Census.Action)+" action, "+strconv.Itoa(full.Census.Editable)+" editable" {
		t.Fatalf("the header repeats the target or lost its counts: %q\n%s", head, out)
	}

	// snapshot @ref: the row's subtree, its refs those of the whole tree.
	row := full.Root.Find(func(n *target.Node) bool {
		return n.Role == "table row" && n.Find(func(c *target.Node) bool { return c.Name == "Ada Lovelace" }) != nil
	})
	if row == nil || row.Ref == "" {
		t.Fatalf("no row of Ada Lovelace with a ref:\n%s", full.Text())
	}
	edit1 := row.Find(func(n *target.Node) bool { return n.Role == "link" && n.Name == "Edit" })
	if edit1 == nil || edit1.Ref == "" {
		t.Fatalf("no Edit link with a ref in the row:\n%s", full.Text())
	}
	scoped := e.Snapshot("s1", row.Ref)
	if scoped.Root.Ref != row.Ref || scoped.Census.Nodes != row.Count().Nodes {
		t.Fatalf("snapshot %s answered root %s with %d nodes, want %d:\n%s", row.Ref, scoped.Root.Ref, scoped.Census.Nodes, row.Count().Nodes, scoped.Text())
	}
	byRef := map[string]*target.Node{}
	full.Root.Walk(func(n *target.Node, _ int) bool { byRef[n.Ref] = n; return true })
	scoped.Root.Walk(func(n *target.Node, _ int) bool {
		if f := byRef[n.Ref]; n.Ref != "" && (f == nil || f.Role != n.Role || f.Name != n.Name) {
			t.Errorf("%s is %s %q in the scope, %+v in the whole tree", n.Ref, n.Role, n.Name, f)
		}
		return true
	})
	text := snapBody(t, e.OK("s1", "snapshot", row.Ref))
	if !strings.HasPrefix(text, "# "+row.Ref+": ") || !strings.Contains(text, `link "Edit" `+edit1.Ref) ||
		strings.Contains(text, "Alan") || strings.Contains(text, "Dark") {
		t.Fatalf("snapshot %s:\n%s", row.Ref, text)
	}

	// --depth 1: the page's first level, and how many nodes were cut.
	text = snapBody(t, e.OK("s1", "snapshot", "--depth", "1"))
	m := regexp.MustCompile(`; depth 1: (\d+) nodes below not shown \(snapshot (@e\d+) shows what is below it\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("--depth 1 does not say what it cut:\n%s", text)
	}
	kept := strings.Count(text, "\n") - 1
	cut, _ := strconv.Atoi(m[1])
	if kept+cut+1 != full.Census.Nodes { // +1: the document, not printed
		t.Errorf("--depth 1 kept %d lines and cut %d of %d nodes:\n%s", kept, cut, full.Census.Nodes, text)
	}
	sum := 0
	for _, b := range regexp.MustCompile(`(?m) \+(\d+) below$`).FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(b[1])
		sum += n
	}
	if sum != cut || strings.Contains(text, "\n  ") {
		t.Errorf("the +N below marks add up to %d, the header says %d, or a line is nested:\n%s", sum, cut, text)
	}
	if !strings.Contains(snapBody(t, e.OK("s1", "snapshot", m[2])), "# "+m[2]+": ") {
		t.Errorf("the snapshot the cut names (%s) does not answer", m[2])
	}
	// With -i: the view's levels.
	if text := snapBody(t, e.OK("s1", "snapshot", "-i", "--depth", "1")); !strings.Contains(text, "; interactive") || strings.Contains(text, "\n  ") {
		t.Errorf("-i --depth 1:\n%s", text)
	}

	// --diff after a click is that click; again, unchanged.
	dark := ref(t, full, "check box", "Dark")
	e.OK("s1", "snapshot", "--diff")
	from := site.n()
	e.OK("s1", "click", dark)
	if rep := site.wait(t, from, "dark"); !rep.Dark {
		t.Fatalf("the page says the box is not checked: %+v", rep)
	}
	lines := diffLines(e.OK("s1", "snapshot", "--diff"))
	want := `~ check box "Dark" ` + dark + ": unchecked → checked"
	found := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, want):
			found = true
		case onlyFocus(l):
		default:
			t.Errorf("the diff after one click has %q", l)
		}
	}
	if !found {
		t.Fatalf("the diff after the click lacks %q: %q", want, lines)
	}
	if lines := diffLines(e.OK("s1", "snapshot", "--diff")); len(lines) != 1 || lines[0] != "unchanged" {
		t.Fatalf("a second --diff with nothing done: %q", lines)
	}
	// The same in JSON.
	if d := e.OKJSON("s1", "snapshot", "--diff").Diff; d == nil || !d.Unchanged() {
		t.Fatalf("--diff --json answered %+v", d)
	}

	// A removed node's ref is stale_ref, and never named again.
	before := e.Snapshot("s1")
	apple := ref(t, before, "push button", "Remove apple")
	from = site.n()
	e.OK("s1", "click", apple)
	if rep := site.wait(t, from, "removed"); strings.Join(rep.Items, ",") != "pear" {
		t.Fatalf("the page after the removal: %+v", rep)
	}
	from = site.n()
	e.OK("s1", "click", ref(t, before, "push button", "Add item"))
	site.wait(t, from, "added")
	out = e.OK("s1", "snapshot", "--diff")
	lines = diffLines(out)
	var gone, came bool
	for _, l := range lines {
		if strings.HasPrefix(l, "- list item @e") && strings.Contains(l, `="Apple"`) {
			gone = true
		}
		if strings.HasPrefix(l, "+ list item @e") && strings.Contains(l, `="Fresh 1"`) {
			came = true
		}
	}
	if !gone || !came {
		t.Fatalf("the diff after a removal and an addition: %q", lines)
	}
	after := e.Snapshot("s1")
	fresh := ref(t, after, "push button", "Remove fresh 1")
	if n, _ := strconv.Atoi(strings.TrimPrefix(fresh, "@e")); n <= maxRef(before.Text()) {
		t.Fatalf("the new button got %s, a ref of the tree before (up to @e%d)", fresh, maxRef(before.Text()))
	}
	after.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Ref == apple {
			t.Errorf("%s names %s %q now", apple, n.Role, n.Name)
		}
		return true
	})
	e.Refused("stale_ref", "s1", "click", apple)
	e.Refused("stale_ref", "s1", "snapshot", apple)
	e.Refused("bad_ref", "s1", "snapshot", "@e9999")

	// find: the refs, with their rows as context.
	out = e.OK("s1", "find", "edit")
	if !strings.Contains(out, `link "Edit" `+edit1.Ref+` in table row "Ada Lovelace" @e`) || strings.Count(out, `link "Edit" @e`) != 2 {
		t.Fatalf("find edit:\n%s", out)
	}
	if r := e.CLI("s1", "find", "zebra"); r.Code != 0 || !regexp.MustCompile(`no match for "zebra" among \d+ nodes`).MatchString(r.Out) {
		t.Fatalf("find zebra: exit %d\n%s%s", r.Code, r.Out, r.Errout)
	}
	if f := e.OKJSON("s1", "find", "Delete").Found; f == nil || len(f.Matches) != 2 || f.Matches[0].In == nil {
		t.Fatalf("find --json: %+v", f)
	}

	// get text @ref: that node's text, as the page's DOM has it.
	got := strings.TrimSpace(e.OK("s1", "get", "text", row.Ref))
	dom := e.OKJSON("s1", "eval", `document.getElementById('r1').innerText`)
	var domText string
	json.Unmarshal(dom.Value, &domText)
	if strings.Join(strings.Fields(clitest.LastLine(got)), " ") != strings.Join(strings.Fields(domText), " ") {
		t.Fatalf("get text %s = %q, the DOM says %q", row.Ref, got, domText)
	}
	if got := e.OK("s1", "get", "text"); !strings.Contains(got, "Alan Turing") || !strings.Contains(got, "Pear") {
		t.Fatalf("get text without a ref is not the page:\n%s", got)
	}
	e.Refused("bad_ref", "s1", "get", "text", "@e9999")
	e.Refused("stale_ref", "s1", "get", "text", apple)

	// Another session's first --diff has no earlier snapshot: the whole one.
	e.OK("s2", "open", site.URL+"/observe")
	out = e.OK("s2", "snapshot", "--diff")
	if !strings.Contains(out, "no earlier snapshot") || !strings.Contains(out, `check box "Dark"`) {
		t.Fatalf("a first --diff:\n%s", out)
	}
}
