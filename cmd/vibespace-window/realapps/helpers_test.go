package realapps_test

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
)

// bin is the vibespace-window binary TestMain built (with -race under
// -race).
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "vibespace-window", &bin) }

type env = wintest.Env

func newEnv(t testing.TB) *env { return wintest.New(t, bin) }

var wait = wintest.Wait
