package cdp

import (
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
)

var fruits = []choiceOption{
	{Label: "Apple", Value: "a"},
	{Label: "Banana", Value: "b", Selected: true},
	{Label: "Green  Tea", Value: "g"},
	{Label: "Off", Value: "o", Disabled: true},
}

func TestChoiceMatch(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    []string
		byValue bool
		want    []int
		missing []string
	}{
		{"by label", []string{"Banana"}, true, []int{1}, nil},
		{"by value, a page's option", []string{"a"}, true, []int{0}, nil},
		{"no value where there is none", []string{"a"}, false, nil, []string{"a"}},
		{"case and spacing", []string{"green tea"}, false, []int{2}, nil},
		{"in the control's order, once each", []string{"Banana", "Apple", "Banana"}, true, []int{0, 1}, nil},
		{"missing", []string{"Kiwi", "Apple"}, true, []int{0}, []string{"Kiwi"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, missing := choiceMatch(fruits, c.opts, c.byValue)
			if !slices.Equal(want, c.want) || !slices.Equal(missing, c.missing) {
				t.Fatalf("got %v missing %v, want %v missing %v", want, missing, c.want, c.missing)
			}
		})
	}
	// A loose spelling two options answer to is no guess.
	two := []choiceOption{{Label: "Red"}, {Label: "red"}}
	if want, missing := choiceMatch(two, []string{"RED"}, false); want != nil || len(missing) != 1 {
		t.Fatalf("ambiguous: %v %v", want, missing)
	}
}

func TestChoose(t *testing.T) {
	single := choiceControl{Kind: "select", Self: -1, Options: fruits}
	multi := single
	multi.Multiple = true
	option := single
	option.Self = 2
	for _, c := range []struct {
		name string
		c    choiceControl
		opts []string
		want []int
		code target.Code
	}{
		{"one of a single choice", single, []string{"Apple"}, []int{0}, ""},
		{"two of a single choice", single, []string{"Apple", "Banana"}, nil, target.CodeBadRequest},
		{"two of a multiple one", multi, []string{"Apple", "Banana"}, []int{0, 1}, ""},
		{"an unknown option", single, []string{"Kiwi"}, nil, target.CodeNoOption},
		{"a disabled option", single, []string{"Off"}, nil, target.CodeNotSensitive},
		{"an option's ref alone", option, nil, []int{2}, ""},
		{"a control alone", single, nil, nil, target.CodeBadRequest},
		{"not a control", choiceControl{Why: "a <input>"}, []string{"x"}, nil, target.CodeNoAction},
		{"a disabled control", choiceControl{Kind: "select", Disabled: true, Options: fruits}, []string{"Apple"}, nil, target.CodeNotSensitive},
		{"gone", choiceControl{Gone: true}, []string{"x"}, nil, target.CodeStaleRef},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := choose("@e1", c.c, c.opts)
			if target.CodeOf(err) != c.code || !slices.Equal(want, c.want) {
				t.Fatalf("got %v %v, want %v %q", want, err, c.want, c.code)
			}
		})
	}
	_, err := choose("@e1", single, []string{"Kiwi"})
	if !strings.Contains(err.Error(), `"Apple", "Banana", "Green  Tea", "Off"`) {
		t.Errorf("no_option names not the options: %v", err)
	}
}

func TestHeldAfter(t *testing.T) {
	c := choiceControl{Kind: "select", Options: []choiceOption{{Label: "A"}, {Label: "B", Selected: true}, {Label: "C", Selected: true}}}
	held, err := heldAfter("@e1", c, []int{1, 2})
	if err != nil || !slices.Equal(held, []string{"B", "C"}) {
		t.Fatalf("exactly as asked: %v %v", held, err)
	}
	// One more than asked (a pick that was added, not replaced) or one
	// fewer: value_not_set, saying what it holds.
	for _, want := range [][]int{{1}, {0, 1, 2}, {0}} {
		held, err := heldAfter("@e1", c, want)
		if target.CodeOf(err) != target.CodeValueNotSet || !slices.Equal(held, []string{"B", "C"}) || !strings.Contains(err.Error(), `holds "B", "C"`) {
			t.Errorf("asked %v: %v %v", want, held, err)
		}
	}
}

func TestToggles(t *testing.T) {
	opts := []choiceOption{{Label: "A", Selected: true}, {Label: "B"}, {Label: "C", Selected: true}}
	if got := toggles(choiceControl{Options: opts}, []int{1}); !slices.Equal(got, []int{1}) {
		t.Errorf("single: %v", got)
	}
	if got := toggles(choiceControl{Options: opts}, []int{0}); len(got) != 0 {
		t.Errorf("single, chosen already: %v", got)
	}
	if got := toggles(choiceControl{Multiple: true, Options: opts}, []int{1, 2}); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("multiple: %v", got)
	}
}

func TestValueTook(t *testing.T) {
	for _, c := range []struct {
		typ, want, would string
		took             bool
	}{
		{"date", "2026-12-02", "2026-12-02", true},
		{"date", "2026-02-30", "", false},
		{"date", "", "", true}, // clearing
		{"date", "", "2026-12-02", false},
		{"time", "14:30:00", "14:30", true},
		{"color", "#1E90FF", "#1e90ff", true},
		{"color", "red", "#000000", false},
		{"range", "8", "8", true},
		{"range", "5", "6", false},
		{"range", "40", "10", false},
		{"range", "8.0", "8", true},
		{"range", "x", "5", false},
	} {
		if got := valueTook(c.typ, c.want, c.would); got != c.took {
			t.Errorf("%s %q → %q: took %v, want %v", c.typ, c.want, c.would, got, c.took)
		}
	}
	if !textTook("textarea", "a\r\nb", "a\nb") || textTook("input", "a\nb", "ab") || textTook("input", "abcdef", "abcd") {
		t.Error("textTook")
	}
}

func TestNotSetSaysWhatItHolds(t *testing.T) {
	r := notSet("@e2", field{Tag: "input", Type: "text", MaxLen: 4}, "abcdef", "abcd", "", true)
	if r.Code != target.CodeValueNotSet || r.Facts["holds"] != "abcd" || r.Facts["maxlength"] != 4 || !strings.Contains(r.Message, "at most 4") {
		t.Errorf("maxlength: %v %v", r, r.Facts)
	}
	r = notSet("@e3", field{Tag: "input", Type: "range", Value: "4", Min: "0", Max: "10", Step: "2"}, "40", "4", "10", false)
	if r.Facts["clamped_to"] != "10" || r.Facts["holds"] != "4" || !strings.Contains(r.Message, "takes 10") {
		t.Errorf("range: %v %v", r, r.Facts)
	}
	r = notSet("@e4", field{Tag: "input", Type: "date", Value: "2026-12-02"}, "2026-02-30", "2026-12-02", "", false)
	if r.Facts["format"] == nil || !strings.Contains(r.Message, "2026-12-02") {
		t.Errorf("date: %v %v", r, r.Facts)
	}
	// A password's value is never in the answer.
	r = notSet("@e5", field{Tag: "input", Type: "password", Secret: true, MaxLen: 3}, "hunter2", "hun", "", true)
	if _, ok := r.Facts["holds"]; ok || strings.Contains(r.Message, "hun") {
		t.Errorf("a secret leaked: %v %v", r, r.Facts)
	}
}
