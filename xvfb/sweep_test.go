package xvfb_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/xvfb"
)

// TestSweepStopsOnlyItsOwners: Sweep stops the desktops carrying its
// owner's mark — every process of it, its directory — and leaves another
// owner's, and an unmarked one's, running.
func TestSweepStopsOnlyItsOwners(t *testing.T) {
	testenv.NeedIntegration(t, "Xvfb")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	start := func(owner string) *xvfb.Desktop {
		d, err := xvfb.Start(ctx, xvfb.Options{Owner: owner, Detach: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	mine, theirs, nobody := start("sweep-test-mine"), start("sweep-test-theirs"), start("")
	pids := xvfb.MarkedPIDs(mine.ID)
	if len(pids) == 0 {
		t.Fatal("no process of the desktop carries its marker")
	}
	got, err := xvfb.Sweep("sweep-test-mine")
	if err != nil || len(got) != 1 || got[0] != "desktop "+mine.ID+" ("+mine.Display+")" {
		t.Fatalf("Sweep = %v, %v", got, err)
	}
	if left := xvfb.MarkedPIDs(mine.ID); len(left) != 0 {
		t.Fatalf("processes of the swept desktop run on: %v", left)
	}
	if _, err := os.Stat(mine.Dir); !os.IsNotExist(err) {
		t.Fatalf("the swept desktop's directory is left: %v", err)
	}
	for _, d := range []*xvfb.Desktop{theirs, nobody} {
		if err := d.Alive(ctx); err != nil {
			t.Fatalf("another owner's desktop %s was touched: %v", d.ID, err)
		}
	}
	if got, _ := xvfb.Sweep(""); len(got) != 0 {
		t.Fatalf("an empty owner swept %v", got)
	}
}
