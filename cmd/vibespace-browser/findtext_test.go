package main_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/target"
)

// docsPage is a function's entry as the Python docs write it: its
// signature in inline pieces with nothing between them (spans, an <em> a
// parameter, a link), then paragraphs and a table.
const docsPage = `<!doctype html>
<html><head><title>json</title></head><body>
<dl><dt id="sig"><span class="pre">json.</span><span class="pre">dumps</span><span>(</span><em>obj</em>, <em>*</em>, <em>skipkeys=False</em>, <em>ensure_ascii=True</em>, <em>check_circular=True</em>, <em>allow_nan=True</em>, <em>cls=None</em>, <em>indent=None</em>, <em>separators=None</em>, <em>default=None</em>, <em><a href="#sk">sort_keys</a>=False</em>, <em>**kw</em><span>)</span></dt>
<dd id="body"><p>Serialize <em>obj</em> to a JSON formatted <code>str</code>.</p><p>If <em>indent</em> is a non-negative integer, JSON array elements are pretty-printed.</p></dd></dl>
<table id="t"><tr><td>Ada</td><td>Lovelace</td></tr><tr><td>Alan</td><td>Turing</td></tr></table>
</body></html>`

// squashLines is a text's lines, their white space squashed, without
// empty lines: innerText's blank line between paragraphs and tab between
// cells are layout, as a line break and a space are.
func squashLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestFindSaysAndGetTextJoins: find answers with the text that matched,
// around the match, where the node's name would not show it (a
// signature's text past its first 80 characters); get text @ref joins a
// page's inline pieces as the page shows them ("json.dumps(obj, …", not
// "json. dumps ( obj ,") and breaks lines at its blocks. The oracle is
// the page's own innerText, read by eval.
func TestFindSaysAndGetTextJoins(t *testing.T) {
	e := sharedEnv(t)
	site := newObserveSite(t, map[string]string{"/docs": docsPage})
	e.OK("s1", "open", site.URL+"/docs")
	full := e.Snapshot("s1")
	inner := func(id string) string {
		t.Helper()
		var s string
		if err := json.Unmarshal(e.OKJSON("s1", "eval", `document.getElementById('`+id+`').innerText`).Value, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	sig := inner("sig")

	// The signature is named by its text, past 80 characters: its name
	// is shown around the match.
	out := strings.TrimSpace(clitest.LastLine(e.OK("s1", "find", "check_circular")))
	m := regexp.MustCompile(`^description term "(.*)" (@e\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("find check_circular:\n%s\n%s", out, full.Text())
	}
	said := strings.TrimSuffix(strings.TrimPrefix(m[1], "…"), "…")
	if !strings.HasPrefix(m[1], "…") || !strings.Contains(said, "check_circular=True") || !strings.Contains(sig, said) || len([]rune(m[1])) > target.FindLine+2 {
		t.Fatalf("find check_circular shows %q; the page shows %q", m[1], sig)
	}
	// The node find answered: its text is the signature as shown.
	ref := m[2]
	if got := clitest.LastLine(e.OK("s1", "get", "text", ref)); got != strings.TrimSpace(sig) {
		t.Fatalf("get text %s = %q, the page shows %q", ref, got, sig)
	}
	// A description: its paragraphs a line each, inline code and
	// emphasis in their line.
	var body string
	full.Root.Walk(func(n *target.Node, _ int) bool {
		if n.Role == "description value" && n.Ref != "" {
			body = n.Ref
		}
		return body == ""
	})
	if body == "" {
		t.Fatalf("no description value with a ref:\n%s", full.Text())
	}
	if got, want := e.OKJSON("s1", "get", "text", body).Text, squashLines(inner("body")); squashLines(got) != want || !strings.Contains(got, "\n") {
		t.Fatalf("get text %s = %q, the page shows %q", body, got, want)
	}
	// Text inside a node that has no name of its own: said, whole when
	// short, as the page shows it.
	out = strings.TrimSpace(clitest.LastLine(e.OK("s1", "find", "pretty-printed")))
	m = regexp.MustCompile(`^description value (@e\d+) says "(.*)"$`).FindStringSubmatch(out)
	if m == nil || m[1] != body || !strings.Contains(inner("body"), m[2]) || !strings.HasPrefix(m[2], "If indent is") {
		t.Fatalf("find pretty-printed:\n%s\n(the page shows %q)", out, inner("body"))
	}
}
