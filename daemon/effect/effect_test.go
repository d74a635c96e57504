package effect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// TestDigestIsKeyed: the digest of what a watch saw is no plain hash of
// the node's text: every 4-digit PIN digested without the daemon's key
// (as anyone reading a trace could) misses it, while a change of the text
// of the same length, or of a range control's value, still shows.
func TestDigestIsKeyed(t *testing.T) {
	obs := func(text string, v float64) Observation {
		return Observation{Node: &target.Node{Role: "password text", Name: "PIN", Text: text, TextLen: len(text),
			Value: &target.Value{Current: v, Max: 10}}}
	}
	got := obs("4711", 1).Digest()
	for pin := range 10000 {
		p := fmt.Sprintf("%04d", pin)
		for _, line := range []string{
			fmt.Sprintf("node %v %d %s %s\n", []string(nil), 4, p, "PIN"),
			fmt.Sprintf("node %q %d %q %q\n", []string(nil), 4, p, "PIN"),
		} {
			for _, tail := range []string{"gone \ninfo  \ncontent \n", "value 1 0 10\ngone \ninfo \"\" \"\"\ncontent \n"} {
				h := sha256.Sum256([]byte(line + tail))
				if s := hex.EncodeToString(h[:]); strings.HasPrefix(s, got) || strings.HasPrefix(got, s[:12]) {
					t.Fatalf("the digest %s is the unkeyed hash of PIN %s", got, p)
				}
			}
		}
	}
	if got == obs("4712", 1).Digest() {
		t.Error("a text changed at the same length reads as the same digest")
	}
	if got == obs("4711", 2).Digest() {
		t.Error("a value that moved reads as the same digest")
	}
	if got != obs("4711", 1).Digest() {
		t.Error("one observation digests two ways")
	}
}

// TestNodeChangesValue: a range control whose value moved (a slider, a
// spin button) is a change of the node, said by its values.
func TestNodeChangesValue(t *testing.T) {
	a := &target.Node{Role: "slider", Name: "Volume", Value: &target.Value{Current: 3, Max: 10}}
	b := &target.Node{Role: "slider", Name: "Volume", Value: &target.Value{Current: 5, Max: 10}}
	if got := NodeChanges(a, b, true); !slices.Equal(got, []string{"value: 3 → 5"}) {
		t.Fatalf("slider 3 → 5: %q", got)
	}
	if got := NodeChanges(a, a, true); len(got) != 0 {
		t.Fatalf("an unmoved slider changed: %q", got)
	}
}

// TestTold: told changes name their node (ref, role, name) and say a name
// or text before and after, a hidden text by its length; the acted node's
// own changes, and the focus where the verb moves it, are left out.
func TestTold(t *testing.T) {
	cs := []kind.Change{
		{Key: "a", Ref: "@e1", Role: "push button", Name: "1", What: "focused"},
		{Key: "d", Ref: "@e3", Role: "label", Name: "1", What: "name", From: "1", To: "11", Known: true},
		{Key: "p", Ref: "@e4", Role: "password text", Name: "PIN", What: "text", From: "12", To: "123", Known: true, Secret: true},
		{Key: "n", Ref: "@e5", Role: "text", Name: "Notes", What: "text", From: "ab", To: "abc", Known: true},
		{Key: "l", Ref: "@e6", Role: "list", What: "added"},
		{Key: "x", What: "name", To: "new", Known: false},
		{Key: "acted", Ref: "@e9", Role: "entry", What: "text", From: "", To: "hi", Known: true},
		{What: "navigated"},
	}
	got := Told(cs, "acted", true)
	want := []string{
		`@e3 label: "1" → "11"`,
		`@e4 password text "PIN": text 2 → 3 characters`,
		`@e5 text "Notes": text "ab" → "abc"`,
		`@e6 list: a node added`,
		`a node: now "new"`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("told %q\nwant  %q", got, want)
	}
	if got := Told(cs[:1], "", false); !slices.Equal(got, []string{`focus → @e1 push button "1"`}) {
		t.Fatalf("a focus the verb did not move: %q", got)
	}
}

// TestLeaving: a look is on the way to the next document only after the
// target told it left, while its address has not moved (and the acted
// node still reads) or shows about:blank between two documents.
func TestLeaving(t *testing.T) {
	before := Observation{HasInfo: true, URL: "http://x/a", Node: &target.Node{Role: "link"}}
	stale := string(target.CodeStaleRef)
	for _, c := range []struct {
		name string
		now  Observation
		want bool
	}{
		{"nothing told", Observation{HasInfo: true, URL: "http://x/a"}, false},
		{"told, address not moved, node reads", Observation{Left: true, HasInfo: true, URL: "http://x/a", Node: &target.Node{Role: "link"}}, true},
		{"told, address not moved, node gone: a new document there", Observation{Left: true, HasInfo: true, URL: "http://x/a", NodeErr: stale}, false},
		{"told, between two documents", Observation{Left: true, HasInfo: true, URL: "about:blank", NodeErr: stale}, true},
		{"told, the address moved", Observation{Left: true, HasInfo: true, URL: "http://x/b", NodeErr: stale}, false},
		{"told, the address unread", Observation{Left: true}, false},
	} {
		if got := Leaving(before, c.now); got != c.want {
			t.Errorf("%s: Leaving = %v, want %v", c.name, got, c.want)
		}
	}
	blank := Observation{HasInfo: true, URL: "about:blank"}
	if Leaving(blank, Observation{Left: true, HasInfo: true, URL: "about:blank", NodeErr: stale}) {
		t.Error("a blank page that went to a blank page is taken for one on its way")
	}
}
