package app

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// TestHelpSaysTheSharedRules: the rules both command lines keep alike are
// in both helps (issue 11).
func TestHelpSaysTheSharedRules(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	if code != 0 {
		t.Fatal(code)
	}
	clitest.CheckSharedRules(t, out)
}
