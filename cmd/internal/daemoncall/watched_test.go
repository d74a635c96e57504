package daemoncall

import (
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon/wire"
)

// TestTargetLineSaysAPersonMayDrive: while someone is attached to a
// window's display from outside, its target line says a person may be
// driving, since when (local time; the date too on another day) and how
// to make it a takeover — that hint left out once it is one. (Before, the
// line said nothing of it.)
func TestTargetLineSaysAPersonMayDrive(t *testing.T) {
	since := time.Now().Truncate(time.Minute)
	ti := wire.TargetInfo{ID: "win:3", Title: "Fake", Lease: "held by a", Input: "agent",
		Watched: "an xpra client", Watchers: 1, WatchedSince: since.UTC().Format(time.RFC3339)}
	want := `win:3 "Fake" · lease: held by a · a person may be driving (an xpra client attached since ` + since.Format("15:04") +
		`; to pause agents: vibespace-window takeover win:3)`
	if got := TargetLine(&ti); got != want {
		t.Fatalf("TargetLine:\n got %s\nwant %s", got, want)
	}
	ti.Input = "user"
	if got := TargetLine(&ti); !strings.HasSuffix(got, "(an xpra client attached since "+since.Format("15:04")+")") {
		t.Fatalf("TargetLine of a window taken over: %s", got)
	}
	ti.WatchedSince = time.Date(2020, 3, 1, 19, 12, 0, 0, time.Local).UTC().Format(time.RFC3339)
	if got := WatchedWords(&ti); got != " · a person may be driving (an xpra client attached since Mar 1 19:12)" {
		t.Fatalf("on another day: %q", got)
	}
	ti.Watched, ti.Watchers, ti.WatchedSince = "", 0, ""
	if got := TargetLine(&ti); got != `win:3 "Fake" · lease: held by a` {
		t.Fatalf("with nobody attached: %s", got)
	}
}
