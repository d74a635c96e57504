package app

import (
	"strings"
	"testing"
)

// TestHelpSaysTheSharedRules: the rules both command lines keep alike are
// in both helps (issue 11): a ref may be written without its "@", and a
// call the daemon went away from is unanswered, outcome_unknown or
// daemon_gone.
func TestHelpSaysTheSharedRules(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, w := range []string{`"@" may be left out (e7 is @e7), in both command lines`, "unanswered: … [outcome_unknown]", "[daemon_gone]", "busy"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), w) {
			t.Errorf("help does not say %q", w)
		}
	}
}
