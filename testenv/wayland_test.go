package testenv_test

import (
	"context"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
)

func TestWaylandStackUp(t *testing.T) {
	w := testenv.NewWayland(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := w.LaunchFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fixture pid %d, RSS %d MB", f.PID, w.RSS()>>20)
}
