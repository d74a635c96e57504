package sessions_test

import (
	"strings"
	"testing"
)

// TestOperatorChangesSayWhatIsLeft: the operator's pin --none --for and
// detach --for say, in text, whose set changed and what it holds now, as
// --json does (issue 11 item 10).
func TestOperatorChangesSayWhatIsLeft(t *testing.T) {
	e := newEnv(t)
	e.Serve()
	e.OK("operator", "new", "work")
	e.OK("operator", "use", "work", "--for", "agent")
	out := e.OK("operator", "pin", "--none", "--for", "agent")
	if !strings.Contains(out, "unpinned session agent's default") || !strings.Contains(out, "work (bp-") {
		t.Fatalf("pin --none --for agent:\n%s", out)
	}
	out = e.OK("operator", "detach", "--for", "agent")
	if !strings.Contains(out, "detached work from session agent") || !strings.Contains(out, "session agent has no attachments now") {
		t.Fatalf("detach --for agent:\n%s", out)
	}
	if out := e.OK("operator", "detach", "--for", "agent"); !strings.Contains(out, "session agent had nothing attached") {
		t.Fatalf("detach --for agent again:\n%s", out)
	}
	// The operator's own set is untouched and says so.
	if out := e.OK("operator", "detach"); !strings.Contains(out, "no attachments now") {
		t.Fatalf("detach of the operator's own empty set:\n%s", out)
	}
}
