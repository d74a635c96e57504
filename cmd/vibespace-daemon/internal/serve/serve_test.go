package serve

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon"
)

// The command lines show the daemon's defaults in serve's help without
// linking the daemon: their copies must stay its values.
func TestServeDefaultsAreTheDaemons(t *testing.T) {
	if daemoncall.DefaultIdleHandback != daemon.DefaultIdleHandback {
		t.Errorf("idle-handback: daemoncall %v, daemon %v", daemoncall.DefaultIdleHandback, daemon.DefaultIdleHandback)
	}
	if daemoncall.DefaultVerbTimeout != daemon.DefaultVerbTimeout {
		t.Errorf("verb-timeout: daemoncall %v, daemon %v", daemoncall.DefaultVerbTimeout, daemon.DefaultVerbTimeout)
	}
}

// TestServeTabPaneRefused: a road that is none of --tab-pane's is a usage
// error naming the roads, before the daemon touches its state directory.
func TestServeTabPaneRefused(t *testing.T) {
	home := t.TempDir()
	var stderr bytes.Buffer
	code := Run(t.Context(), []string{daemoncall.DaemonName, "--tab-pane=pixels"}, &stderr, func(k string) string {
		if k == "VIBESPACE_HOME" {
			return home
		}
		return ""
	})
	if code != daemoncall.ExitUsage || !strings.Contains(stderr.String(), "window") || !strings.Contains(stderr.String(), "screencast") {
		t.Fatalf("exit %d, stderr %q; want a usage error naming the roads", code, stderr.String())
	}
	if ents, err := os.ReadDir(home); err != nil || len(ents) > 0 {
		t.Errorf("the refused daemon left %d entries in its state directory (%v)", len(ents), err)
	}
}
