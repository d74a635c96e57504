package effect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

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
