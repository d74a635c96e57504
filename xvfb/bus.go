package xvfb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
)

// BusConfig is a private session bus's configuration (dbus-daemon
// --config-file): the ordinary session policy, listening on the Unix
// socket at socket, activating only the services in serviceDir (a
// directory of its own, so nothing of the machine's is started behind its
// back).
func BusConfig(socket, serviceDir string) string { return fmt.Sprintf(busConfig, socket, serviceDir) }

const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <servicedir>%s</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// activatable are the session services a Desktop may activate. Their Exec
// lines are read from the system's own .service files.
var activatable = []string{"org.a11y.Bus"}

var systemServiceDirs = []string{"/usr/share/dbus-1/services", "/usr/local/share/dbus-1/services"}

func (d *Desktop) startBus(ctx context.Context) error {
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return fmt.Errorf("xvfb: dbus-daemon: %w", err)
	}
	svcDir := filepath.Join(d.Dir, "dbus-services")
	if err := os.MkdirAll(svcDir, 0o700); err != nil {
		return err
	}
	for _, name := range activatable {
		exe, err := ServiceExec(name)
		if err != nil {
			return err
		}
		body := fmt.Sprintf("[D-BUS Service]\nName=%s\nExec=%s\n", name, exe)
		if err := os.WriteFile(filepath.Join(svcDir, name+".service"), []byte(body), 0o600); err != nil {
			return err
		}
	}
	conf := filepath.Join(d.Dir, "session-bus.conf")
	sock := filepath.Join(d.RuntimeDir, "bus")
	if err := os.WriteFile(conf, []byte(BusConfig(sock, svcDir)), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=3")
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w}
	if _, err := d.start(cmd, "dbus-daemon"); err != nil {
		w.Close()
		return err
	}
	w.Close()
	addr, err := ReadyLine(ctx, r, nil)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("xvfb: dbus-daemon not ready: %w", ctx.Err())
	case err != nil:
		return fmt.Errorf("xvfb: dbus-daemon printed no address; its log: %s", d.logTail("dbus-daemon"))
	}
	d.BusAddress = addr
	return nil
}

// Missing lists what this machine lacks to run a Desktop, with a reason
// each: the programs it starts and the AT-SPI bus's service file.
func Missing() []string {
	var out []string
	for _, b := range []string{"Xvfb", "xhost", "dbus-daemon"} {
		if _, err := exec.LookPath(b); err != nil {
			out = append(out, fmt.Sprintf("%s not found", b))
		}
	}
	if _, err := ServiceExec("org.a11y.Bus"); err != nil {
		out = append(out, err.Error())
	}
	return out
}

// ServiceExec finds the Exec line of a system D-Bus service file (the
// program a bus activates for name).
func ServiceExec(name string) (string, error) {
	for _, dir := range systemServiceDirs {
		b, err := os.ReadFile(filepath.Join(dir, name+".service"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Exec="); ok {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("xvfb: no D-Bus service file for %s (is at-spi2-core installed?)", name)
}

// startA11y activates the AT-SPI bus launcher through the session bus and the
// registry daemon on the accessibility bus, so applications register at once.
func (d *Desktop) startA11y(ctx context.Context) error {
	conn, err := dbus.Connect(d.BusAddress, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("xvfb: connect session bus: %w", err)
	}
	defer conn.Close()
	var addr string
	err = conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	if err != nil {
		return fmt.Errorf("xvfb: org.a11y.Bus.GetAddress: %w", err)
	}
	d.A11yAddress = addr
	d.A11ySwitch = switchOn(ctx, conn)
	return d.StartRegistry(ctx)
}

// StartRegistry starts the desktop's AT-SPI registry (at-spi2-registryd)
// on its accessibility bus, as Start does: the bus activates it. A
// registry that runs already is left as it is. Whoever uses the desktop
// calls it again when the registry died.
func (d *Desktop) StartRegistry(ctx context.Context) error {
	a11y, err := dbus.Connect(d.A11yAddress, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("xvfb: connect accessibility bus %s: %w", d.A11yAddress, err)
	}
	defer a11y.Close()
	var ret uint32
	err = a11y.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.StartServiceByName", 0, "org.a11y.atspi.Registry", uint32(0)).Store(&ret)
	if err != nil {
		return fmt.Errorf("xvfb: start org.a11y.atspi.Registry: %w", err)
	}
	return nil
}

// a11ySwitches are the properties of org.a11y.Status that toolkits which
// wait to be asked read before they put their tree on the bus: Qt reads
// IsEnabled, Chromium and Electron watch ScreenReaderEnabled. GTK3 and
// GTK4 register whatever they say.
var a11ySwitches = []string{"IsEnabled", "ScreenReaderEnabled"}

// switchOn sets org.a11y.Status's switches on our private session bus (no
// one else's session is touched) and answers what it did, for doctor: "on
// (IsEnabled, ScreenReaderEnabled)" or which could not be set and why.
func switchOn(ctx context.Context, conn *dbus.Conn) string {
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	var bad []string
	for _, p := range a11ySwitches {
		call := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0, "org.a11y.Status", p, dbus.MakeVariant(true))
		if call.Err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p, call.Err))
		}
	}
	if len(bad) > 0 {
		return "not set (" + strings.Join(bad, "; ") + ")"
	}
	return "on (" + strings.Join(a11ySwitches, ", ") + ")"
}

// A11ySwitchesOff reads org.a11y.Status's switches back from the session
// bus now and answers those that are not true (each with the error that
// kept it from being read, if one did); none when all are on. An error is
// a session bus that did not answer.
func (d *Desktop) A11ySwitchesOff(ctx context.Context) ([]string, error) {
	return A11ySwitchesOff(ctx, d.BusAddress)
}

// A11ySwitchesOff is Desktop.A11ySwitchesOff for the session bus at
// address (the user's own, on their desktop).
func A11ySwitchesOff(ctx context.Context, address string) ([]string, error) {
	conn, err := dbus.Connect(address, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	var off []string
	for _, p := range a11ySwitches {
		var v dbus.Variant
		err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, "org.a11y.Status", p).Store(&v)
		switch on, _ := v.Value().(bool); {
		case err != nil:
			off = append(off, p+" ("+err.Error()+")")
		case !on:
			off = append(off, p+" is off")
		}
	}
	return off, nil
}

// busPeerPIDs asks the bus at addr for the PID behind every connection that
// owns a name (unique or well-known) on it.
func busPeerPIDs(ctx context.Context, addr string) ([]int, error) {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var names []string
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		return nil, err
	}
	self := os.Getpid()
	seen := map[int]bool{}
	var pids []int
	for _, n := range names {
		if n == "org.freedesktop.DBus" || n == conn.Names()[0] {
			continue
		}
		var pid uint32
		if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n).Store(&pid); err != nil {
			continue // gone meanwhile
		}
		if p := int(pid); p > 1 && p != self && !seen[p] {
			seen[p] = true
			pids = append(pids, p)
		}
	}
	return pids, nil
}
