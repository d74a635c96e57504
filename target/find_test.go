package target

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// find answers with the text that matched: a long name shown around the
// match (not its first characters), a text run's words inside a node
// that has no name of its own, and the line that holds the match, bounded.
func TestFindSaysTheMatch(t *testing.T) {
	sig := "json.dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None, separators=None, default=None, sort_keys=False, **kw)"
	s := &Snapshot{Root: &Node{Role: "document web", Children: []*Node{
		{Role: "term", Key: "dt", Children: []*Node{{Role: "static", Name: sig}}},
		{Role: "heading", Key: "h", Name: strings.Repeat("A very long heading that goes on and on, ", 3) + "until the word zebra appears"},
		{Role: "paragraph", Key: "p", Children: []*Node{{Role: "static", Name: "First line of the text\nSecond line holds the needle here\nThird line"}}},
	}}}
	NewRefTable().Assign(s)

	f := s.FindText("sort_keys", 10)
	if len(f.Matches) != 1 {
		t.Fatalf("find sort_keys: %+v", f)
	}
	m := f.Matches[0]
	if !strings.Contains(m.Said, "sort_keys=False") || utf8.RuneCountInString(m.Said) > FindLine+2 || !strings.HasPrefix(m.Said, "…") {
		t.Fatalf("said %q", m.Said)
	}
	if line := f.Text(); !strings.HasPrefix(line, "term "+refOf(t, s, "dt")+` says "…`) || !strings.Contains(line, "sort_keys=False") {
		t.Fatalf("find sort_keys:\n%s", line)
	}
	// The start of a signature, whole when it fits.
	if f := s.FindText("json.dumps(", 10); !strings.HasPrefix(f.Matches[0].Said, "json.dumps(obj, *, skipkeys=False") {
		t.Fatalf("said %q", f.Matches[0].Said)
	}

	// A match past the first 80 characters of a name: the name around it.
	line := s.FindText("ZEBRA", 10).Text()
	if !strings.Contains(line, "until the word zebra appears") || strings.Contains(line, " says ") {
		t.Fatalf("find zebra:\n%s", line)
	}

	// A text of many lines: the line that holds the match.
	f = s.FindText("needle", 10)
	if got := f.Matches[0].Said; got != "Second line holds the needle here" {
		t.Fatalf("said %q", got)
	}
	if got := f.Text(); got != "paragraph "+refOf(t, s, "p")+` says "Second line holds the needle here"`+"\n" {
		t.Fatalf("find needle:\n%s", got)
	}
}

func TestAround(t *testing.T) {
	for _, c := range []struct{ s, q, want string }{
		{"short", "OR", "short"},
		{"a\nb needle c\nd", "needle", "b needle c"},
		{strings.Repeat("x", 200) + "needle", "needle", "…" + strings.Repeat("x", 114) + "needle"},
		{"needle" + strings.Repeat("y", 200), "needle", "needle" + strings.Repeat("y", 114) + "…"},
		{"Straße ist lang", "STRASSE", "Straße ist lang"}, // no match (ß lower-cases to itself): the line
	} {
		if got := around(c.s, c.q, FindLine); got != c.want {
			t.Errorf("around(%q, %q) = %q, want %q", c.s, c.q, got, c.want)
		}
	}
}
