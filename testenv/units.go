package testenv

import (
	"context"
	"fmt"
	"syscall"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/xvfb"
)

// GNOME Shell 43 spawns ibus-daemon at start unless systemd's user manager
// says IBus is a unit of its own (ibusManager.js), and it spawns it with a
// JavaScript function as the child's setup (to restore RLIMIT_NOFILE). The
// forked child runs JavaScript before exec: when another thread of the
// shell held GObject's type lock at the fork (often, under load), the child
// waits for it forever, and the shell, waiting for its child to exec,
// answers nothing more — not a Wayland roundtrip of a client starting
// (xdg-desktop-portal-gnome's gtk_init hung there), not its bus. Measured
// in 3 of 5 starts at a load average of 30 (the stuck child's backtrace:
// g_spawn_async → a gjs closure → g_type_get_qdata → a rwlock). A desktop
// with systemd never sees it; the stack's session bus has no systemd, so a
// small stand-in answers the one question: the IBus unit exists. Yet the
// same hang was still seen (2 of about 10 starts, at load 30: the shell
// spawns from JavaScript elsewhere too), so a start whose backend does not
// come ends such a stuck child (unstick): the shell's spawn then fails,
// and it goes on.

// ibusUnit is the unit GNOME Shell asks systemd about.
const ibusUnit = "org.freedesktop.IBus.session.GNOME.service"

// unitsManager answers org.freedesktop.systemd1.Manager.GetUnit: the IBus
// unit is there, no other.
type unitsManager struct{}

func (unitsManager) GetUnit(name string) (dbus.ObjectPath, *dbus.Error) {
	if name == ibusUnit {
		return "/org/freedesktop/systemd1/unit/ibus", nil
	}
	return "", dbus.NewError("org.freedesktop.systemd1.NoSuchUnit", []any{"Unit " + name + " not loaded."})
}

// startUnits claims org.freedesktop.systemd1 on the stack's session bus
// with unitsManager, on a connection of its own that lives until Close.
func (w *Wayland) startUnits(ctx context.Context) error {
	conn, err := dbus.Connect(w.bus, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("testenv: connect the session bus for systemd's stand-in: %w", err)
	}
	if err := conn.Export(unitsManager{}, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager"); err != nil {
		conn.Close()
		return err
	}
	reply, err := conn.RequestName("org.freedesktop.systemd1", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		conn.Close()
		return fmt.Errorf("testenv: claim org.freedesktop.systemd1: %v (reply %v)", err, reply)
	}
	w.mu.Lock()
	w.units = conn
	w.mu.Unlock()
	return nil
}

// unstick ends every forked child of the stack's compositor that is stuck
// before its exec (a process of the stack still named as the compositor,
// other than the compositor itself), and says how many.
func (w *Wayland) unstick(sp shellSpec) int {
	w.mu.Lock()
	comp := 0
	for _, p := range w.procs {
		if p.name == sp.name && p.cmd.Process != nil {
			comp = p.cmd.Process.Pid
		}
	}
	w.mu.Unlock()
	n := 0
	for _, pid := range xvfb.MarkedPIDs(w.id) {
		if pid != comp && xvfb.ProcName(pid) == sp.name {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}
