package mcpserver

import (
	"slices"
	"testing"

	"github.com/vibespace/vibespace/daemon/args"
)

// TestToolArgsAreTheVerbs: each tool's input schema lists exactly its
// verb's arguments (the JSON fields of its type of package daemon/args),
// with the envelope it takes (a window's handle, the profile a browser
// tool acts in, a tab, a target) and less only where the tool says so.
func TestToolArgsAreTheVerbs(t *testing.T) {
	tools := []struct {
		tool, verb string
		envelope   []string
		less       []string // the verb's arguments the tool does not take, and why
	}{
		{"status", "status", nil, nil},
		{"doctor", "doctor", nil, []string{"desktop"}}, // the server's own environment names it
		{"watch", "watch", []string{"target", "profile"}, nil},
		// desk is borrow's and return's (return takes nothing): the verb
		// is its word do. A pool's desktops are all of one kind: no kind.
		{"desk", "borrow", []string{"do"}, []string{"kind"}},
		{"window_list", "list", nil, nil},
		{"window_open", "open", nil, nil},
		{"window_snapshot", "snapshot", []string{"handle"}, []string{"after"}}, // a window's snapshot does not page
		{"window_find", "find", []string{"handle"}, nil},
		{"window_get_text", "get", []string{"handle"}, []string{"what"}}, // a window's get reads a node's text alone
		{"window_click", "click", []string{"handle"}, nil},
		{"window_type", "type", []string{"handle"}, nil},
		{"window_fill", "fill", []string{"handle"}, nil},
		{"window_key", "key", []string{"handle"}, nil},
		{"window_scroll", "scroll", []string{"handle"}, nil},
		{"window_select", "select", []string{"handle"}, nil},
		{"window_screenshot", "screenshot", []string{"handle"}, nil},
		{"window_detach", "detach", []string{"handle"}, nil},
		{"window_close", "close", []string{"handle"}, nil},
		{"browser_open", "browser.open", []string{"profile"}, nil},
		{"browser_reach", "browser.reach", []string{"profile"}, nil},
		{"browser_snapshot", "browser.snapshot", []string{"profile"}, nil},
		{"browser_find", "browser.find", []string{"profile"}, nil},
		{"browser_get", "browser.get", []string{"profile"}, nil},
		{"browser_click", "browser.click", []string{"profile"}, nil},
		{"browser_fill", "browser.fill", []string{"profile"}, nil},
		// batch is a window's (handle) or the current tab's (none).
		{"batch", "batch", []string{"handle", "profile"}, nil},
		{"handoff", "handoff", []string{"handle", "profile"}, nil},
		{"browser_type", "browser.type", []string{"profile"}, nil},
		{"browser_key", "browser.key", []string{"profile"}, nil},
		{"browser_scroll", "browser.scroll", []string{"profile"}, nil},
		{"browser_select", "browser.select", []string{"profile"}, nil},
		{"browser_screenshot", "browser.screenshot", []string{"profile"}, nil},
		{"browser_eval", "browser.eval", []string{"profile"}, nil},
		// browser_navigate is back's, forward's and reload's (one type,
		// args.Nav): the verb is its word to.
		{"browser_navigate", "browser.back", []string{"profile", "to"}, nil},
		{"browser_wait", "browser.wait", []string{"profile"}, nil},
		// The tab tools are browser.tab's words, one tool each: the word
		// is the tool's, and only a new tab takes a URL.
		{"browser_tab_list", "browser.tab", []string{"profile"}, []string{"action", "url"}},
		{"browser_tab_select", "browser.tab", []string{"profile", "tab"}, []string{"action", "url"}},
		{"browser_tab_new", "browser.tab", []string{"profile"}, []string{"action"}},
		{"browser_tab_close", "browser.tab", []string{"profile", "tab"}, []string{"action", "url"}},
		{"browser_profiles", "browser.profiles", nil, nil},
		// A tool registers a CDP browser's profile: no desktop app's
		// settings, no headed browser.
		{"browser_new", "browser.new", nil, []string{"backend", "url", "size", "mode", "headed"}},
		{"browser_use", "browser.use", nil, nil},
	}
	cs := connect(t, Config{Session: "s", Groups: AllGroups})
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]string{}
	for _, tl := range list.Tools {
		for p := range properties(t, tl) {
			listed[tl.Name] = append(listed[tl.Name], p)
		}
		slices.Sort(listed[tl.Name])
	}
	seen := map[string]bool{}
	for _, c := range tools {
		seen[c.tool] = true
		a, ok := args.Zero(c.verb)
		if !ok {
			t.Errorf("%s: no arguments' type for verb %s", c.tool, c.verb)
			continue
		}
		var want []string
		for _, f := range args.Fields(c.verb) {
			if !slices.Contains(c.less, f) {
				want = append(want, f)
			}
		}
		want = append(want, c.envelope...)
		slices.Sort(want)
		if got := listed[c.tool]; !slices.Equal(got, want) {
			t.Errorf("%s: its input schema lists %v, want %v (%T's arguments and the envelope %v)", c.tool, got, want, a, c.envelope)
		}
	}
	for name := range listed {
		if !seen[name] {
			t.Errorf("tool %s: which verb's arguments does it take? (add it here)", name)
		}
	}
}
