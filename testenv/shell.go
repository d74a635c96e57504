package testenv

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Shell is the compositor a Wayland stack runs, with the portal backend
// that goes with it.
type Shell int

// The shells. Each runs headless with no GPU (see shellSpecs).
const (
	// Mutter is bare mutter with xdg-desktop-portal-gnome: no shell, so
	// the portal's window picker is empty (only a monitor can be shared).
	Mutter Shell = iota
	// GnomeShell is GNOME Shell (mutter plus its Introspect service, which
	// lists windows to the portal's picker) with xdg-desktop-portal-gnome.
	GnomeShell
	// KWin is KDE's kwin_wayland with xdg-desktop-portal-kde.
	KWin
)

func (s Shell) String() string { return s.spec().name }

// Desktop is the shell's XDG_CURRENT_DESKTOP ("GNOME", "KDE").
func (s Shell) Desktop() string { return s.spec().desktop }

// shellSpec is what differs between the shells' stacks; the rest of
// StartShell is shared.
type shellSpec struct {
	name    string // the compositor's process name in logs ("mutter", "gnome-shell", "kwin_wayland")
	program string // the compositor's program
	// args are the compositor's arguments for a headless virtual monitor
	// of size ("1280x720") and the Wayland socket name display.
	args func(display, size string) []string
	// names are the compositor's bus names to wait for.
	names []string
	// systemBus: the compositor wants a system bus (a private one is
	// started and given as DBUS_SYSTEM_BUS_ADDRESS).
	systemBus bool
	// copyProgram: the program is run from a copy in the stack's bin dir.
	// Debian's kwin_wayland carries a file capability (cap_sys_resource)
	// and exec of it fails where capabilities cannot be raised; the copy
	// has none, and keeps the name kwin_wayland (its own Qt platform
	// plugin refuses to load under another name).
	copyProgram bool
	// units: systemd's stand-in answers on the session bus (units.go).
	units       bool
	desktop     string   // XDG_CURRENT_DESKTOP: it picks the portal's backend
	backend     string   // the portal backend's program
	backendName string   // its bus name
	env         []string // more environment for every process of the stack
}

// permissionStore keeps the portal's grants (a ScreenCast restore token's).
const permissionStore = "/usr/libexec/xdg-permission-store"

var shellSpecs = map[Shell]shellSpec{
	Mutter: {
		name: "mutter", program: "mutter",
		args: func(display, size string) []string {
			return []string{"--headless", "--virtual-monitor", size, "--wayland", "--no-x11", "--wayland-display=" + display}
		},
		names:   []string{"org.gnome.Mutter.RemoteDesktop", "org.gnome.Mutter.ScreenCast"},
		desktop: "GNOME", backend: "/usr/libexec/xdg-desktop-portal-gnome", backendName: "org.freedesktop.impl.portal.desktop.gnome",
	},
	GnomeShell: {
		name: "gnome-shell", program: "gnome-shell",
		args: func(display, size string) []string {
			return []string{"--headless", "--virtual-monitor", size, "--wayland", "--no-x11", "--wayland-display=" + display}
		},
		// Introspect is what lists windows to the portal's picker.
		names:     []string{"org.gnome.Mutter.RemoteDesktop", "org.gnome.Mutter.ScreenCast", "org.gnome.Shell.Introspect"},
		systemBus: true,
		units:     true,
		desktop:   "GNOME", backend: "/usr/libexec/xdg-desktop-portal-gnome", backendName: "org.freedesktop.impl.portal.desktop.gnome",
	},
	KWin: {
		name: "kwin_wayland", program: "/usr/bin/kwin_wayland",
		args: func(display, size string) []string {
			w, h, _ := strings.Cut(size, "x")
			return []string{"--virtual", "--width", w, "--height", h, "--no-lockscreen", "--socket", display}
		},
		names:       []string{"org.kde.KWin"},
		systemBus:   true,
		copyProgram: true,
		desktop:     "KDE", backend: "/usr/lib/x86_64-linux-gnu/libexec/xdg-desktop-portal-kde", backendName: "org.freedesktop.impl.portal.desktop.kde",
		// QPainter compositing (no GPU); Qt apps (the portal's dialogs)
		// on Wayland with their trees on the AT-SPI bus.
		env: []string{"KWIN_COMPOSE=Q", "QT_QPA_PLATFORM=wayland", "QT_ACCESSIBILITY=1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"},
	},
}

func (s Shell) spec() shellSpec {
	sp, ok := shellSpecs[s]
	if !ok {
		panic(fmt.Sprintf("testenv: no shell %d", int(s)))
	}
	return sp
}

// programs are what NeedShell asks for.
func (sp shellSpec) programs() []string {
	return []string{"dbus-daemon", "pipewire", "wireplumber", sp.program, permissionStore,
		"/usr/libexec/xdg-desktop-portal", sp.backend}
}

// compositorProgram is the program to run for sp: its own, or a copy of
// it (copyProgram) in the stack's bin dir.
func (w *Wayland) compositorProgram(sp shellSpec) (string, error) {
	if !sp.copyProgram {
		return sp.program, nil
	}
	dst := filepath.Join(w.dir, "bin", filepath.Base(sp.program))
	if err := copyFile(sp.program, dst, 0o700); err != nil {
		return "", fmt.Errorf("testenv: copy %s: %w", sp.program, err)
	}
	return dst, nil
}

// copyFile copies src's bytes (no extended attributes: no file
// capability) to a new file dst of mode perm.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
