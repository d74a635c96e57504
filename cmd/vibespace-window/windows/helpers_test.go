package windows_test

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
)

func TestMain(m *testing.M) { wintest.Main(m) }

// env is one isolated vibespace with the fixture app (wintest.Env); this
// package's helpers are its methods.
type env struct{ *wintest.Env }

type result = clitest.Result

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{wintest.New(t)}
}

// What every package of the command's tests shares (wintest).
var (
	wait     = wintest.Wait
	node     = wintest.Node
	snapBody = wintest.SnapBody
	effectOf = wintest.EffectOf
)
