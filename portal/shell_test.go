package portal

import "testing"

func TestShellOf(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  Shell
	}{
		{[]string{"org.gnome.Mutter.RemoteDesktop", "org.gnome.Shell", "org.freedesktop.impl.portal.desktop.gnome"}, Shell{"GNOME Shell", "xdg-desktop-portal-gnome"}},
		{[]string{"org.kde.KWin", "org.freedesktop.impl.portal.desktop.kde", "org.freedesktop.portal.Desktop"}, Shell{"KWin", "xdg-desktop-portal-kde"}},
		{[]string{"org.gnome.Mutter.ScreenCast", "org.gnome.Mutter.RemoteDesktop"}, Shell{Compositor: "mutter"}},
		{[]string{":1.4", "org.freedesktop.portal.Desktop"}, Shell{}},
	} {
		if got := shellOf(tc.names); got != tc.want {
			t.Errorf("shellOf(%q) = %+v, want %+v", tc.names, got, tc.want)
		}
	}
}
