package portal

import (
	"context"
	"fmt"
	"strings"
)

// Shell is the compositor and the portal backend the session bus holds,
// as their own bus names say: what runs the person's session, named in
// doctor's rows and in every refusal of the portal road.
type Shell struct {
	// Compositor is "GNOME Shell", "KWin" or "mutter" (bare, no shell);
	// "" when no name on the bus says.
	Compositor string
	// Backend is the portal backend on the bus ("xdg-desktop-portal-gnome",
	// "xdg-desktop-portal-kde", …); "" when none has claimed its name.
	Backend string
}

// The bus names that say which compositor runs the session, the first
// one held wins (GNOME Shell also holds mutter's).
var compositorNames = []struct{ bus, name string }{
	{"org.gnome.Shell", "GNOME Shell"},
	{"org.kde.KWin", "KWin"},
	{"org.gnome.Mutter.RemoteDesktop", "mutter"},
}

// backendPrefix begins every portal backend's bus name; the rest names it
// (gnome, kde, gtk, wlr, …).
const backendPrefix = "org.freedesktop.impl.portal.desktop."

// shellOf reads the compositor and backend from the bus's names.
func shellOf(names []string) Shell {
	var s Shell
	held := map[string]bool{}
	for _, n := range names {
		held[n] = true
		if rest, ok := strings.CutPrefix(n, backendPrefix); ok && s.Backend == "" {
			s.Backend = "xdg-desktop-portal-" + rest
		}
	}
	for _, c := range compositorNames {
		if held[c.bus] {
			s.Compositor = c.name
			break
		}
	}
	return s
}

// shell lists the bus's names (one call) and reads the shell from them.
func (c *Client) shell(ctx context.Context) (Shell, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	var names []string
	if err := c.conn.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		return Shell{}, fmt.Errorf("ListNames: %w", err)
	}
	return shellOf(names), nil
}
