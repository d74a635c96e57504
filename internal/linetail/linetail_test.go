package linetail

import "testing"

func TestKeepsTheLastLines(t *testing.T) {
	tl := New(2)
	if got := tl.String(); got != "" {
		t.Fatalf("empty tail says %q", got)
	}
	for _, l := range []string{"a", "b", "c"} {
		tl.Add(l)
	}
	if got := tl.String(); got != "b\nc" {
		t.Fatalf("the last 2 of a, b, c: %q", got)
	}
}
