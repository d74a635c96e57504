// Package doctor is the doctor verb's probe of the machine, out of the
// daemon's core: each display provider's checks and, once it is up, its
// display's own (XTEST, MIT-SHM, AT-SPI), the user's desktop's, the
// browser's, each provider's row, the live view's.
//
// The core keeps the displays, the desktop's gate, the browser, the
// provider law and the live view, and lends them to Checks in a Machine
// for one call; doctor stays a verb of the core's (it is no step, and
// writes no audit row). The package never imports the core
// (layout_test.go).
package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/displays"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/wire"
)

// Machine is what doctor probes, as the core lends it.
type Machine struct {
	// Registry is the display registry; Displays the display providers
	// registered in it, in order (the first is the default).
	Registry *displays.Registry
	Displays []kind.DisplayProvider
	// Desktop is the user's desktop's gate.
	Desktop interface {
		Doctor(ctx context.Context, env *kind.DesktopEnv) []wire.Check
	}
	// Browser is the browser backend; nil when the daemon has none.
	Browser kind.Browser
	// Providers is the provider law's row of each provider (package
	// daemon/providerlaw), never a key.
	Providers func() []wire.Check
	// Live says in words what the live view is doing and whether it is
	// well; never its token.
	Live func() (string, bool)
}

// Checks probes the machine for session (env: its own desktop session,
// nil for none): each display provider's checks and, once it is up, its
// display's own (XTEST, MIT-SHM, AT-SPI) — which brings the default
// display up; the browser's; the live view's.
func (m Machine) Checks(ctx context.Context, session string, env *kind.DesktopEnv) []wire.Check {
	var checks []wire.Check
	for i, p := range m.Displays {
		checks = append(checks, p.Doctor(ctx)...)
		// A per-session provider's display is the caller's own.
		disp := m.Registry.Running(displays.KeyFor(p, session))
		if disp == nil && i == 0 {
			up, release, err := m.Registry.Use(ctx, p, session)
			if err != nil {
				checks = append(checks, wire.Check{Name: "display", Detail: p.Name() + " could not start: " + err.Error()})
			} else {
				disp = up
				release()
			}
		}
		if disp != nil {
			checks = append(checks, disp.Kind().Doctor(ctx)...)
		}
	}
	var per []string
	for _, p := range m.Displays {
		if displays.PerSession(p) {
			per = append(per, p.Name())
		}
	}
	if len(per) > 0 {
		checks = append(checks, wire.Check{Name: "session displays", OK: true, Detail: fmt.Sprintf(
			"%s: one display per session, started on its first open there; %s",
			strings.Join(per, ", "), m.Registry.SessionDisplaysWords(m.Registry.SessionDisplays()))})
	}
	if len(m.Displays) == 0 {
		checks = append(checks, wire.Check{Name: "display", Detail: "no display: this daemon was started without one (window verbs are refused no_display)"})
	}
	checks = append(checks, m.Desktop.Doctor(ctx, env)...)
	if m.Browser == nil {
		checks = append(checks, wire.Check{Name: "browser", Detail: "no browser backend: this daemon was started without one (browser.* verbs are refused no_browser)"})
	} else {
		checks = append(checks, m.Browser.Doctor(ctx)...)
	}
	checks = append(checks, m.Providers()...)
	live, liveOK := m.Live()
	checks = append(checks, wire.Check{Name: "live view", OK: liveOK, Detail: live})
	return checks
}
