package live_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vibespace/vibespace/cdp/cdptest"
	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/native"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/daemon/yourdesktop"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestLiveViewYourDesktop: a window of the user's own desktop (an Xvfb of
// the test's own, reached as a person's terminal names it) is watched like
// one of ours once the operator opted in: the page decodes frames of the
// window's size, and the pane's title says "your desktop".
func TestLiveViewYourDesktop(t *testing.T) {
	h := startLiveDaemon(t, func(c *daemon.Config) { c.Desktop = yourdesktop.New(native.Desktop(native.Options{Logf: t.Logf})) })
	desk := testenv.NewDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	app, err := testenv.LaunchFixture(ctx, desk)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	h.ok(t, daemon.Request{Verb: "desktop", Session: "operator"}.With(args.Desktop{Action: "on", Env: &wire.DesktopEnv{Display: desk.Display, Xauthority: desk.Xauthority(), Bus: desk.BusAddress}}))
	var id target.ID
	for _, ti := range h.ok(t, daemon.Request{Verb: "list", Session: "agent"}).Targets {
		if ti.Desktop && ti.Title == "vibespace fixture" {
			id = ti.ID
		}
	}
	if id == "" {
		t.Fatal("the person's window is not listed after desktop on")
	}
	shot := h.ok(t, daemon.Request{Verb: "screenshot", Session: "agent", Target: string(id)})
	w := h.ok(t, daemon.Request{Verb: "watch", Session: "agent", Target: string(id)})
	b := cdptest.LaunchViewer(t, ctx)
	v := openPage(t, ctx, b, w.URL)
	s := waitPane(t, ctx, v, id, "live with frames", func(s paneState) bool {
		return s.State == "live" && s.Frames >= 1 && s.Decoded >= 1
	})
	if s.W != shot.Bounds.W || s.H != shot.Bounds.H {
		t.Errorf("the video is %dx%d, the window %dx%d", s.W, s.H, shot.Bounds.W, shot.Bounds.H)
	}
	if !strings.Contains(s.Title, "your desktop") {
		t.Fatalf("the pane's title %q does not say your desktop", s.Title)
	}
}
