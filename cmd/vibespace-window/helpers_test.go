package main_test

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
	"github.com/vibespace/vibespace/target"
)

// bin is the vibespace-window binary TestMain built (with -race under
// -race).
var bin string

func TestMain(m *testing.M) {
	clitest.RelayMain() // ssh's ProxyCommand to the remote-host test's sshd
	clitest.Main(m, "vibespace-window", &bin)
}

// env is one isolated vibespace with the fixture app (wintest.Env); this
// package's helpers are its methods.
type env struct{ *wintest.Env }

type result = clitest.Result

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{wintest.New(t, bin)}
}

// What every package of the command's tests shares (wintest).
var (
	wait       = wintest.Wait
	node       = wintest.Node
	markedPIDs = wintest.MarkedPIDs
)

// centre is the centre of n in the window's own pixels.
func centre(t *testing.T, e *env, s, id string, n *target.Node) string {
	t.Helper()
	return wintest.Centre(t, e.Env, s, id, n)
}

// checkAudit checks the audit log: one line per verb, never the typed text.
func checkAudit(t *testing.T, e *env, typed ...string) {
	t.Helper()
	wintest.CheckAudit(t, e.Env, typed...)
}
