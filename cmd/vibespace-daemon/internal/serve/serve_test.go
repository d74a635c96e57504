package serve

import (
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
