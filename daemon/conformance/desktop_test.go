package conformance_test

import (
	"context"
	"fmt"
	"os/exec"
	"os/user"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/vibespace/vibespace/daemon"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/daemontest"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// ---- a window of the user's own desktop -------------------------------------

// desktopSubject is the GTK fixture as the person's own application on
// their own desktop: an Xvfb of the test's own (its own session bus and
// AT-SPI registry) standing in for it, reached by the daemon's desktop road
// only once the operator opens it (desktop on, from a terminal of it), the
// window found through list as "your desktop".
func (st *suite) desktopSubject(t *testing.T, session string) *subject {
	t.Helper()
	testenv.NeedIntegration(t, "xhost")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	desk, err := testenv.Start(ctx, testenv.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := desk.Close(); err != nil {
			t.Errorf("closing the stand-in desktop: %v", err)
		}
		if leaks := testenv.Leaks([]*testenv.Desktop{desk}); len(leaks) > 0 {
			t.Errorf("the stand-in desktop left behind: %v", leaks)
		}
	})
	app, err := testenv.LaunchFixture(ctx, desk) // the person's own app
	if err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	xhost := exec.CommandContext(ctx, "xhost", "-si:localuser:"+u.Username)
	xhost.Env = append(desk.Env(), "XAUTHORITY="+desk.Xauthority())
	if out, err := xhost.CombinedOutput(); err != nil {
		t.Fatalf("xhost: %v: %s", err, out)
	}

	// The operator opens their desktop to agents from a terminal of it.
	st.sv.OK(t, daemon.Request{Verb: "desktop", Session: "operator"}.With(args.Desktop{Action: "on", Env: &wire.DesktopEnv{Display: desk.Display, Xauthority: desk.Xauthority(), Bus: desk.BusAddress}}))
	t.Cleanup(func() { desktopOff(t, st.sv.Sock) })
	pid := app.Window.PID
	var id target.ID
	for _, ti := range st.sv.OK(t, daemon.Request{Verb: "list", Session: session}).Targets {
		if ti.Desktop && ti.PID == pid {
			id = ti.ID
		}
	}
	if id == "" {
		t.Fatal("the person's window is not listed as your desktop after desktop on")
	}
	// Every session sees it (why a stranger is answered held, below).
	if !slices.ContainsFunc(st.sv.OK(t, daemon.Request{Verb: "list", Session: "stranger"}).Targets, func(ti wire.TargetInfo) bool { return ti.ID == id && ti.Desktop }) {
		t.Fatalf("%s is not listed for another session", id)
	}
	s := &subject{
		name: "desktop", kind: target.KindWindow, sv: st.sv, session: session, id: id, app: fixtureOracle{app.Log},
		ask:       func(r daemon.Request) daemon.Request { r.Target = string(id); return r },
		wrongKind: daemon.Request{Verb: "browser.tab", Target: string(id)}.With(args.Tab{Action: "select"}),
		wrongCLI:  "vibespace-window",
		alive: func(t *testing.T) bool {
			return syscall.Kill(pid, 0) == nil && st.sv.Call(t, daemon.Request{Verb: "list", Session: session}).OK
		},
		// The person's app ends (they quit it, or it crashes).
		vanish:    func(t *testing.T) { syscall.Kill(pid, syscall.SIGKILL) },
		afterGone: target.CodeUnknownTarget,
		outside:   target.CodeOutsideWindow,
		stranger: &expectation{code: target.CodeHeld, why: "a window of the user's desktop is exposed to every session while the desktop is open " +
			"(listed for every session, marked your desktop), so another session is refused held by the agent's lease, " +
			"naming its holder as list does, not not_exposed"},
	}
	s.alphaAt = func(t *testing.T) daemon.Point { return alphaInShot(t, s) }

	// The suite's point verbs (click --at, scroll, which is a point at the
	// window's centre) need the operator's pixels grant on this window:
	// refused without it, reaching nothing; granted as the operator does.
	at := s.alphaAt(t)
	from := s.mark()
	s.refused(t, daemon.Request{Verb: "click"}.With(args.Click{At: fmt.Sprintf("%d,%d", at.X, at.Y)}), target.CodeNoPixelsGrant)
	s.refused(t, daemon.Request{Verb: "scroll"}.With(args.Scroll{Direction: "down", By: 3}), target.CodeNoPixelsGrant)
	s.none(t, from, "click", "scroll")
	st.sv.OK(t, daemon.Request{Verb: "desktop", Session: "operator", Target: string(id)}.With(args.Desktop{Action: "pixels"}))
	return s
}

// desktopOff is the operator's desktop off, once the test's context is
// done (a cleanup's): every lease on the desktop closed, every connection
// of ours to it too, before the stand-in desktop goes.
func desktopOff(t *testing.T, sock string) {
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.CallTimeout)
	defer cancel()
	c, err := daemon.Dial(ctx, sock)
	if err != nil {
		t.Errorf("desktop off: %v", err)
		return
	}
	defer c.Close()
	if resp, err := c.Call(ctx, daemon.Request{Verb: "desktop", Session: "operator"}.With(args.Desktop{Action: "off"})); err != nil || !resp.OK {
		t.Errorf("desktop off: %+v %v", resp, err)
	}
}
