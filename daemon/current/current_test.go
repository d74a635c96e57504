package current

import (
	"testing"

	"github.com/vibespace/vibespace/daemon/kind"
)

// TestTabs: a current tab is a session's in one context, and forgetting a
// tab drops it wherever it was current.
func TestTabs(t *testing.T) {
	var tabs Tabs
	own := kind.BrowserKey{Session: "s1", Owner: "s1"}
	shop := kind.BrowserKey{Session: "s1", Profile: "bp-1"}
	if _, ok := tabs.Get("s1", own); ok {
		t.Fatal("a current tab in an empty table")
	}
	tabs.Set("s1", own, "tab:1")
	tabs.Set("s1", shop, "tab:2")
	tabs.Set("s2", shop, "tab:2")
	if id, ok := tabs.Get("s1", own); !ok || id != "tab:1" {
		t.Fatalf("s1's own: %q %v", id, ok)
	}
	if _, ok := tabs.Get("s2", own); ok {
		t.Fatal("s2 has s1's current tab")
	}
	tabs.Forget("tab:2")
	if _, ok := tabs.Get("s1", shop); ok {
		t.Fatal("a forgotten tab is current for s1")
	}
	if _, ok := tabs.Get("s2", shop); ok {
		t.Fatal("a forgotten tab is current for s2")
	}
	if id, _ := tabs.Get("s1", own); id != "tab:1" {
		t.Fatalf("forgetting another tab dropped %q", id)
	}
}
