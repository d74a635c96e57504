package daemoncall

import (
	"slices"
	"testing"
)

// TestSplitLine: a batch line's words, as a shell splits them.
func TestSplitLine(t *testing.T) {
	for in, want := range map[string][]string{
		`click @e3`:                             {"click", "@e3"},
		`fill @e5 "two words" --expect changed`: {"fill", "@e5", "two words", "--expect", "changed"},
		`click @e1 --expect text:"Saved it"`:    {"click", "@e1", "--expect", "text:Saved it"},
		`type 'it''s' a\ b`:                     {"type", "its", "a b"},
		`type ""`:                               {"type", ""},
	} {
		got, err := SplitLine(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitLine(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := SplitLine(`fill @e1 "open`); err == nil {
		t.Error("an unclosed quote is taken")
	}
}
