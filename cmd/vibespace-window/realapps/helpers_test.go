package realapps_test

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/wintest"
)

func TestMain(m *testing.M) { wintest.Main(m) }

type env = wintest.Env

func newEnv(t testing.TB) *env { return wintest.New(t) }

var wait = wintest.Wait
