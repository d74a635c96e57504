package atspi

import (
	"slices"
	"testing"

	"github.com/vibespace/vibespace/target"
)

func TestOnceNamed(t *testing.T) {
	for _, c := range []struct{ name, child, want string }{
		{"_Press me Press me", "Press me", "Press me"}, // a mnemonic label and its labelled-by child
		{"7 7", "7", "7"},                       // use-underline without a mnemonic
		{"__init__ _init_", "_init_", "_init_"}, // "__" is a literal underscore
		{"Row 11", "11", "Row 11"},              // a name that ends with its child's: not doubled
		{"Press me", "Press me", "Press me"},
		{"OK", "", "OK"},
	} {
		n := &target.Node{Name: c.name, Children: []*target.Node{{Name: c.child}}}
		if got := onceNamed(n); got != c.want {
			t.Errorf("%q with a child %q: %q, want %q", c.name, c.child, got, c.want)
		}
	}
}

func TestWithState(t *testing.T) {
	got := withState([]string{"focusable", "sensitive", "visible", "indeterminate"}, "showing")
	want := []string{"focusable", "sensitive", "showing", "visible", "indeterminate"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := withState(nil, "showing"); !slices.Equal(got, []string{"showing"}) {
		t.Errorf("got %v", got)
	}
}

func TestToolkitGTK4(t *testing.T) {
	for tk, want := range map[toolkit]bool{
		{"GTK", "4.8.3"}: true, {"GTK", "3.24.38"}: false, {"Qt", "5.15.8"}: false, {"gtk", "4.14.0"}: true, {}: false, {"GTK", ""}: false,
	} {
		if tk.gtk4() != want {
			t.Errorf("%+v: gtk4 %v", tk, !want)
		}
	}
}
