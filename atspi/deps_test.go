package atspi_test

import (
	"os/exec"
	"strings"
	"testing"
)

// atspi matches frames to X windows through a plain WindowHint: it must
// not depend on an X library, nor on the test harness.
func TestNoForbiddenImports(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "github.com/vibespace/vibespace/atspi").Output()
	if err != nil {
		t.Skipf("SKIP: go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/x11") || strings.Contains(dep, "jezek/xgb") || strings.HasSuffix(dep, "/testenv") {
			t.Errorf("atspi depends on %s", dep)
		}
	}
}
