package testenv_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/testenv"
	"github.com/vibespace/vibespace/x11"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// processAlive reads /proc directly: an oracle independent of testenv.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// busPeers asks a bus for the PIDs of every named connection.
func busPeers(t *testing.T, addr string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	defer conn.Close()
	var names []string
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, n := range names {
		var pid uint32
		if conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n).Store(&pid) == nil && int(pid) != os.Getpid() {
			out[n] = int(pid)
		}
	}
	return out
}

func TestDesktopStartsAndLeavesNothing(t *testing.T) {
	testenv.NeedIntegration(t, "gtk3-widget-factory")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d, err := testenv.Start(ctx, testenv.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			d.Close()
		}
	})

	disp, err := x11.Open(ctx, d.Display)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := disp.ScreenSize(); w < 1920 || h < 1080 {
		t.Errorf("screen %dx%d, want at least 1920x1080", w, h)
	}
	disp.Close()

	app, err := d.Launch(ctx, "gtk3-widget-factory")
	if err != nil {
		t.Fatal(err)
	}
	if app.Window.PID != app.PID || !app.Window.Viewable || app.Window.Geometry.Width < 100 {
		t.Errorf("window %+v does not look like pid %d's mapped main window", app.Window, app.PID)
	}

	// The session bus activated the AT-SPI bus launcher; the registry runs
	// on the accessibility bus. Both are re-parented away from us.
	pids := map[string]int{"app": app.PID}
	for n, p := range busPeers(t, d.BusAddress) {
		pids["session:"+n] = p
	}
	a11y := busPeers(t, d.A11yAddress)
	if _, ok := a11y["org.a11y.atspi.Registry"]; !ok {
		t.Errorf("no registry on the accessibility bus; names: %v", a11y)
	}
	for n, p := range a11y {
		pids["a11y:"+n] = p
	}
	if _, ok := pids["session:org.a11y.Bus"]; !ok {
		t.Errorf("org.a11y.Bus not on the session bus: %v", pids)
	}
	dir := d.Dir

	if err := d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	closed = true
	for n, p := range pids {
		if processAlive(p) {
			t.Errorf("%s (pid %d) still running after Close", n, p)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s still exists (%v)", dir, err)
	}
	if leaks := testenv.Leaks([]*testenv.Desktop{d}); len(leaks) > 0 {
		t.Errorf("leaks: %v", leaks)
	}
}

func TestLaunchMissingProgram(t *testing.T) {
	d := testenv.SharedDesktop(t)
	_, err := d.Launch(t.Context(), "vibespace-no-such-program")
	if !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v, want exec.ErrNotFound", err)
	}
}

func TestLaunchExitsBeforeWindow(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := d.Launch(ctx, "sh", "-c", "echo boom >&2; exit 3")
	if !errors.Is(err, testenv.ErrExited) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want ErrExited carrying the program's output", err)
	}
}

func TestFixtureReady(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	f, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	evs, err := f.Log.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) == 0 || evs[0].Type != "ready" {
		t.Fatalf("first event %+v, want ready", evs)
	}
	if x11.WindowID(evs[0].XID) != f.Window.ID {
		t.Errorf("fixture says its window is 0x%x, X says pid %d mapped %s", evs[0].XID, f.PID, f.Window.ID)
	}
	if f.Window.Title != "vibespace fixture" {
		t.Errorf("title %q", f.Window.Title)
	}
	if err := f.Stop(); err != nil {
		t.Fatal(err)
	}
	if processAlive(f.PID) {
		t.Errorf("fixture pid %d alive after Stop", f.PID)
	}
}

// TestAccessibilitySwitchedOn: the toolkits that wait to be asked (Qt,
// Chromium) read org.a11y.Status on the session bus; our bus says yes, read
// back through the bus itself, not through the Desktop's own account.
func TestAccessibilitySwitchedOn(t *testing.T) {
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := dbus.Connect(d.BusAddress, dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, p := range []string{"IsEnabled", "ScreenReaderEnabled"} {
		var v dbus.Variant
		err := conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, "org.a11y.Status", p).Store(&v)
		if err != nil {
			t.Fatalf("Get %s: %v", p, err)
		}
		if on, _ := v.Value().(bool); !on {
			t.Errorf("org.a11y.Status.%s = %v, want true", p, v)
		}
	}
	if !strings.HasPrefix(d.A11ySwitch, "on (") {
		t.Errorf("A11ySwitch %q", d.A11ySwitch)
	}
}

func TestEnvIsClean(t *testing.T) {
	t.Setenv("VIBESPACE_TEST_SECRET", "do-not-leak")
	d := testenv.SharedDesktop(t)
	env := strings.Join(d.Env(), "\n")
	if strings.Contains(env, "do-not-leak") {
		t.Errorf("the caller's environment leaked into the desktop's: %s", env)
	}
	for _, want := range []string{"DISPLAY=" + d.Display, "DBUS_SESSION_BUS_ADDRESS=" + d.BusAddress, "XDG_RUNTIME_DIR=" + d.RuntimeDir} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s", want)
		}
	}
}

func TestAdoptDetachedDesktop(t *testing.T) {
	testenv.NeedIntegration(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d, err := testenv.Start(ctx, testenv.Options{Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	f, err := testenv.LaunchFixture(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	// A new owner (as after a daemon restart) takes the desktop over and
	// tears it down, the earlier owner's app included.
	d2, err := testenv.Adopt(ctx, d.State(), testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Exited():
	case <-ctx.Done():
		t.Fatalf("fixture pid %d survived the adopted desktop's Close", f.PID)
	}
	if leaks := testenv.Leaks([]*testenv.Desktop{d2}); len(leaks) > 0 {
		t.Errorf("leaks: %v", leaks)
	}
	if _, err := testenv.Adopt(ctx, d.State(), testenv.Options{}); err == nil {
		t.Errorf("adopting a torn-down desktop succeeded")
	}
}

// TestOtherUsersAreKeptOut: the display admits our uid but not another
// user's process (xdpyinfo run as nobody is refused).
func TestOtherUsersAreKeptOut(t *testing.T) {
	testenv.NeedIntegration(t, "xdpyinfo", "setpriv")
	if os.Getuid() != 0 {
		t.Skip("SKIP: needs root to run a process as another user")
	}
	d := testenv.SharedDesktop(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	own := exec.CommandContext(ctx, "xdpyinfo", "-display", d.Display)
	own.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"} // no cookie: the localuser rule admits us
	if out, err := own.CombinedOutput(); err != nil {
		t.Fatalf("our own uid could not connect: %v: %s", err, out)
	}
	other := exec.CommandContext(ctx, "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
		"xdpyinfo", "-display", d.Display)
	other.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	out, err := other.CombinedOutput()
	if err == nil {
		t.Fatalf("user nobody connected to the display: %s", out)
	}
	if !strings.Contains(string(out), "unable to open display") {
		t.Errorf("nobody's xdpyinfo failed, but not by being refused: %v: %s", err, out)
	}
}
