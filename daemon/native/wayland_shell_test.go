package native

import (
	"strings"
	"testing"

	"github.com/vibespace/vibespace/portal"
	"github.com/vibespace/vibespace/target"
)

// TestPortalRoadShell: what the road asks of each compositor's portal, and
// how its refusals name the compositor. KWin is asked for no ScreenCast
// source (its chooser crashes headless KWin 5.27: measured, see
// TestYourKWinDesktop for the road on the real KWin) unless the operator
// asked for it (desktop on --screencast); GNOME Shell for a window or a
// monitor.
func TestPortalRoadShell(t *testing.T) {
	offers := portal.Info{RemoteDesktop: 1, ScreenCast: 4, Devices: 7, Sources: portal.Monitor | portal.Window}
	for _, tc := range []struct {
		name       string
		shell      portal.Shell
		current    string
		screencast bool
		source     portal.SourceTypes
		named      string
	}{
		{"kwin", portal.Shell{Compositor: "KWin", Backend: "xdg-desktop-portal-kde"}, "KDE", false, 0, "KWin"},
		{"kwin asked", portal.Shell{Compositor: "KWin"}, "KDE", true, portal.Monitor | portal.Window, "KWin"},
		{"gnome shell", portal.Shell{Compositor: "GNOME Shell"}, "GNOME", false, portal.Monitor | portal.Window, "GNOME Shell"},
		{"unnamed on the bus", portal.Shell{}, "sway", false, portal.Monitor | portal.Window, "sway (XDG_CURRENT_DESKTOP)"},
		{"unnamed", portal.Shell{}, "", false, portal.Monitor | portal.Window, "an unnamed compositor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := offers
			i.Shell = tc.shell
			r := &portalRoad{info: i, current: tc.current, screencast: tc.screencast}
			if got := r.source(); got != tc.source {
				t.Errorf("source() = %v, want %v", got, tc.source)
			}
			why := r.screenCastWhy()
			if (why != "") != (tc.source == 0) {
				t.Errorf("screenCastWhy() = %q with source %v", why, tc.source)
			}
			if tc.source == 0 && (!strings.Contains(r.pointWhy(), "KWin") || !strings.Contains(why, "desktop on --screencast")) {
				t.Errorf("pointWhy() = %q: does not name KWin and the operator's way", r.pointWhy())
			}
			ref := r.noInjection("because")
			if ref.Code != target.CodeNoInjectionBackend || !strings.Contains(ref.Error(), tc.named+"'s portal") {
				t.Errorf("noInjection = %v (%s): does not name %s", ref, ref.Code, tc.named)
			}
		})
	}
}
