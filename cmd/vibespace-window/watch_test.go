package main_test

import (
	"testing"

	"github.com/vibespace/vibespace/cmd/internal/clitest"
)

// watch prints the live view's address: the overview, or a window's pane.
func TestWatch(t *testing.T) {
	e := newEnv(t)
	e.StartServe()
	clitest.CheckWatch(t, clitest.LastLine(e.OK("s1", "watch")), "")
	id, _, _ := e.OpenFixture("s1")
	clitest.CheckWatch(t, clitest.LastLine(e.OK("s1", "watch", id)), id)
	e.Refused("unknown_target", "s1", "watch", "win:999")
}
